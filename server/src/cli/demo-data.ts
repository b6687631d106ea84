// Generated demo inputs, in the same file formats users upload.
import yazl from 'yazl';

/** A seeded PRNG (mulberry32), so demo plots look the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** `index x y z cluster` lines: DA-MDS output with DA-PWC labels. */
export function clusteredBlobsText(points: number, clusters: number, seed = 7): string {
  const random = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () => [0, 1, 2].map(() => (random() - 0.5) * 20));
  const lines: string[] = ['# index x y z cluster'];
  for (let i = 0; i < points; i++) {
    const k = i % clusters;
    const [x, y, z] = centres[k]!.map((c) => (c + gaussian(random)).toFixed(4));
    lines.push(`${i} ${x} ${y} ${z} ${k}`);
  }
  return lines.join('\n') + '\n';
}

/** A ZIP of text frames `idx x y z cluster label` with an .index file: stocks drifting in 3D. */
export async function stockSeriesZip(frames: number, stocks: number, seed = 11): Promise<Buffer> {
  const random = seededRandom(seed);
  const position = Array.from({ length: stocks }, () => [0, 1, 2].map(() => (random() - 0.5) * 10));
  const drift = Array.from({ length: stocks }, () => [0, 1, 2].map(() => (random() - 0.5) * 0.05));
  const tickers = Array.from({ length: stocks }, (_, i) => `S${String(i).padStart(3, '0')}`);
  const zip = new yazl.ZipFile();
  const names: string[] = [];
  for (let f = 0; f < frames; f++) {
    const lines: string[] = [];
    for (let s = 0; s < stocks; s++) {
      const p = position[s]!;
      for (let axis = 0; axis < 3; axis++) p[axis] = p[axis]! + drift[s]![axis]! + gaussian(random) * 0.08;
      const change = drift[s]![0]! + drift[s]![1]!;
      const cluster = change > 0.02 ? 0 : change < -0.02 ? 2 : 1;
      lines.push(`${s} ${p.map((v) => v.toFixed(4)).join(' ')} ${cluster} ${tickers[s]}`);
    }
    const name = `week-${String(f + 1).padStart(3, '0')}.txt`;
    names.push(name);
    zip.addBuffer(Buffer.from(lines.join('\n') + '\n'), name);
  }
  zip.addBuffer(Buffer.from(names.join('\n') + '\n'), 'frames.index');
  zip.end();
  const parts: Buffer[] = [];
  for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}
