// Synthetic plot files for the ingest benchmark, written in blocks so that the
// generator itself stays small in memory: clustered random points with labels.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
// Deterministic pseudo-random numbers, so runs compare.
import { seededRandom as random } from '../../server/src/cli/demo-data.ts';

const BLOCK_POINTS = 10_000;


/** Coordinates as DA-MDS writes them: full double precision. */
function coordinate(next: () => number): string {
  return String((next() - 0.5) * 2);
}

async function writeBlocks(path: string, blocks: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const block of blocks) if (!out.write(block)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
}

/** `idx x y z cluster label` lines (6-column text format). */
export function writeTextPlot(path: string, points: number, clusters: number): Promise<void> {
  const next = random(points);
  function* blocks(): Generator<string> {
    for (let start = 0; start < points; start += BLOCK_POINTS) {
      const lines: string[] = [];
      for (let i = start; i < Math.min(points, start + BLOCK_POINTS); i++) {
        lines.push(`${i}\t${coordinate(next)}\t${coordinate(next)}\t${coordinate(next)}\t${i % clusters}\tseq_${i}\n`);
      }
      yield lines.join('');
    }
  }
  return writeBlocks(path, blocks());
}

/**
 * CSV with a header, `id,x,y,z,cluster,label`; every tenth label is quoted and
 * holds a comma (`"seq_10, var"`), so the quoted path is part of the measure.
 */
export function writeCsvPlot(path: string, points: number, clusters: number): Promise<void> {
  const next = random(points);
  function* blocks(): Generator<string> {
    yield 'id,x,y,z,cluster,label\n';
    for (let start = 0; start < points; start += BLOCK_POINTS) {
      const lines: string[] = [];
      for (let i = start; i < Math.min(points, start + BLOCK_POINTS); i++) {
        const label = i % 10 === 0 ? `"seq_${i}, var"` : `seq_${i}`;
        lines.push(`${i},${coordinate(next)},${coordinate(next)},${coordinate(next)},${i % clusters},${label}\n`);
      }
      yield lines.join('');
    }
  }
  return writeBlocks(path, blocks());
}

/** A PlotViz XML file laid out like tree_sample.pviz (indented elements). */
export function writePvizPlot(path: string, points: number, clusters: number): Promise<void> {
  const next = random(points);
  function* blocks(): Generator<string> {
    yield '<?xml version="1.0" encoding="utf-8"?>\n<plotviz>\n  <plot>\n    <title>bench</title>\n  </plot>\n  <clusters>\n';
    for (let k = 0; k < clusters; k++) {
      yield `    <cluster>\n      <key>${k}</key>\n      <label>cluster ${k}</label>\n      <visible>1</visible>\n      <default>0</default>\n      <color r="${(k * 37) % 256}" g="${(k * 91) % 256}" b="${(k * 53) % 256}" a="255" />\n      <size>1</size>\n      <shape>3</shape>\n    </cluster>\n`;
    }
    yield '  </clusters>\n  <points>\n';
    for (let start = 0; start < points; start += BLOCK_POINTS) {
      const parts: string[] = [];
      for (let i = start; i < Math.min(points, start + BLOCK_POINTS); i++) {
        parts.push(
          `    <point>\n      <key>${i}</key>\n      <clusterkey>${i % clusters}</clusterkey>\n      <label>seq_${i}</label>\n      <location x="${coordinate(next)}" y="${coordinate(next)}" z="${coordinate(next)}" />\n    </point>\n`,
        );
      }
      yield parts.join('');
    }
    yield '  </points>\n</plotviz>\n';
  }
  return writeBlocks(path, blocks());
}
