// The plot of a DA-MDS + DA-PWC job, built as a parsed plot for ingest: one point per
// input row, labelled (sequence id, matrix label, CSV label), in its DA-PWC cluster;
// the cluster centres (mean of the members' 3D points) are added as star glyphs in a
// cluster of their own.
import path from 'node:path';
import type { JobDoc } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { categoricalColor } from '@wpv/schema';
import type { ClusterDef, ParsedPlot } from '../formats/types.ts';
import { lines as linesOf } from './inputs.ts';

/** Shapes of the viewer's glyph set (formats/README): 2 = star, 3 = sphere. */
const STAR = 2;
const SPHERE = 3;

/** Non-empty lines of a file in the job directory (labels written by a stage). */
export async function labelsFile(job: JobDoc, file: string): Promise<string[]> {
  const labels: string[] = [];
  for await (const [raw] of linesOf(path.join(job.workdir, file))) if (raw.trim()) labels.push(raw.trim());
  return labels;
}

/** Reads "index value..." rows into one entry per point; indices may start at 0 or 1. */
async function readIndexed(file: string, points: number, columns: number, what: string): Promise<number[][]> {
  const rows: [number, number[]][] = [];
  for await (const [raw, line] of linesOf(file)) {
    const cells = raw.trim().split(/\s+/);
    if (cells[0] === '' || cells[0]!.startsWith('#')) continue;
    const numbers = cells.slice(0, 1 + columns).map(Number);
    if (cells.length < 1 + columns || numbers.some((v) => !Number.isFinite(v))) {
      throw new Error(`${what} line ${line}: expected an index and ${columns} numbers, got "${raw.trim().slice(0, 200)}"`);
    }
    rows.push([numbers[0]!, numbers.slice(1)]);
  }
  if (rows.length !== points) throw new Error(`${what} has ${rows.length} rows for ${points} points`);
  const base = Math.min(...rows.map(([index]) => index));
  const out: number[][] = new Array(points);
  for (const [index, values] of rows) {
    if (index - base >= points || out[index - base]) throw new Error(`${what}: index ${index} is out of range or repeated`);
    out[index - base] = values;
  }
  return out;
}

/** The one-frame plot of DA-MDS points (FILES.points) coloured by DA-PWC clusters (FILES.clusters). */
export async function mdsPlot(job: JobDoc, labels: string[]): Promise<ParsedPlot> {
  const n = job.input.points;
  if (labels.length !== n) throw new Error(`${labels.length} labels for ${n} points`);
  const dim = Number(job.params.dimension ?? 3);
  const points = await readIndexed(path.join(job.workdir, FILES.points), n, dim, 'DA-MDS points');
  const clusters = (await readIndexed(path.join(job.workdir, FILES.clusters), n, 1, 'DA-PWC clusters')).map(([c]) => c!);
  const keys = [...new Set(clusters)].sort((a, b) => a - b);
  const centreKey = (keys.at(-1) ?? 0) + 1;
  const sums = new Map(keys.map((k) => [k, { x: 0, y: 0, z: 0, n: 0 }]));
  const total = n + keys.length;
  const positions = new Float32Array(total * 3);
  const clusterKeys = new Uint32Array(total);
  points.forEach(([x = 0, y = 0, z = 0], i) => {
    positions.set([x, y, z], i * 3);
    clusterKeys[i] = clusters[i]!;
    const s = sums.get(clusters[i]!)!;
    s.x += x;
    s.y += y;
    s.z += z;
    s.n++;
  });
  keys.forEach((k, i) => {
    const s = sums.get(k)!;
    positions.set([s.x / s.n, s.y / s.n, s.z / s.n], (n + i) * 3);
    clusterKeys[n + i] = centreKey;
  });
  const defs: ClusterDef[] = keys.map((k, i) => ({
    key: k,
    label: `cluster ${k} (${sums.get(k)!.n} points)`,
    color: categoricalColor(i),
    shape: SPHERE,
    size: 1,
    visible: true,
  }));
  // White: the viewer draws on a dark background.
  defs.push({ key: centreKey, label: 'cluster centres', color: { r: 255, g: 255, b: 255, a: 255 }, shape: STAR, size: 4, visible: true });
  return {
    title: job.name,
    clusters: defs,
    frames: [{ title: job.name, positions, clusterKeys, labels: [...labels, ...keys.map((k) => `centre of cluster ${k}`)], edges: [] }],
    warnings: [],
  };
}
