// The `assemble` stage: DA-MDS points + DA-PWC clusters + labels → a PlotViz XML
// plot stored through the platform's plot service and linked from the job. One
// point per input row, labelled (sequence id, matrix label, CSV label), in its
// DA-PWC cluster; the cluster centres (mean of the members' 3D points) are added
// as star glyphs in a cluster of their own.
import path from 'node:path';
import { categoricalColor } from '@wpv/schema';
import type { JobDoc } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import type { Plots } from '@wpv/server/services/plots';
import { linesOf, writeAtomically } from './files.ts';
import type { WorkerStage } from './orchestrator.ts';

/** Reads "index value..." rows into one entry per point; indices may start at 0 or 1. */
async function readIndexed(file: string, points: number, columns: number, what: string): Promise<number[][]> {
  const rows: [number, number[]][] = [];
  for await (const [raw, line] of linesOf(file)) {
    const cells = raw.trim().split(/\s+/);
    if (cells[0] === '' || cells[0]!.startsWith('#')) continue;
    const numbers = cells.slice(0, 1 + columns).map(Number);
    if (cells.length < 1 + columns || numbers.some((v) => !Number.isFinite(v))) {
      throw new Error(`${what} line ${line}: expected an index and ${columns} numbers, got "${raw.trim()}"`);
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

async function labelsOf(job: JobDoc): Promise<string[]> {
  const fromFile = async (file: string) => {
    const labels: string[] = [];
    for await (const [raw] of linesOf(path.join(job.workdir, file))) if (raw.trim()) labels.push(raw.trim());
    return labels;
  };
  switch (job.type) {
    case 'sequence-clustering':
      return fromFile(FILES.swgLabels);
    case 'vectors':
      return fromFile(FILES.labels);
    case 'distance-matrix':
      return (job.params.labels as string[] | undefined) ?? Array.from({ length: job.input.points }, (_, i) => String(i));
  }
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

export interface Assembled {
  xml: string;
  clusterCount: number;
}

export function plotXml(title: string, labels: string[], points: number[][], clusters: number[]): Assembled {
  const keys = [...new Set(clusters)].sort((a, b) => a - b);
  const centreKey = (keys.at(-1) ?? 0) + 1;
  const sums = new Map(keys.map((k) => [k, { x: 0, y: 0, z: 0, n: 0 }]));
  points.forEach(([x = 0, y = 0, z = 0], i) => {
    const s = sums.get(clusters[i]!)!;
    s.x += x;
    s.y += y;
    s.z += z;
    s.n++;
  });
  const cluster = (key: number, label: string, color: { r: number; g: number; b: number; a: number }, shape: number, size: number) =>
    `<cluster><key>${key}</key><label>${escapeXml(label)}</label><visible>1</visible><color r="${color.r}" g="${color.g}" b="${color.b}" a="${color.a}" /><size>${size}</size><shape>${shape}</shape></cluster>`;
  const point = (key: number, clusterKey: number, label: string, [x = 0, y = 0, z = 0]: number[]) =>
    `<point><key>${key}</key><clusterkey>${clusterKey}</clusterkey><label>${escapeXml(label)}</label><location x="${x}" y="${y}" z="${z}" /></point>`;
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?>', '<plotviz>', `<plot><title>${escapeXml(title)}</title></plot>`, '<clusters>'];
  keys.forEach((k, i) => out.push(cluster(k, `cluster ${k} (${sums.get(k)!.n} points)`, categoricalColor(i), 3, 1)));
  // White: the viewer draws on a dark background.
  out.push(cluster(centreKey, 'cluster centres', { r: 255, g: 255, b: 255, a: 255 }, 2, 4), '</clusters>', '<points>');
  points.forEach((p, i) => out.push(point(i, clusters[i]!, labels[i]!, p)));
  keys.forEach((k, i) => {
    const s = sums.get(k)!;
    out.push(point(points.length + i, centreKey, `centre of cluster ${k}`, [s.x / s.n, s.y / s.n, s.z / s.n]));
  });
  out.push('</points>', '</plotviz>', '');
  return { xml: out.join('\n'), clusterCount: keys.length };
}

/**
 * A job's plot id: a redone assemble (its worker died between the ingest and recording the stage)
 * finds the plot stored before, or replaces a half-stored one, instead of storing a second.
 */
export const jobPlotId = (jobId: string) => `job-${jobId}`;

/** Stores the plot; the orchestrator links it (plotId) when it records the stage's success. */
export function assembleStage(plots: Plots): WorkerStage {
  return { run: (job) => assemble(plots, job) };
}

async function assemble(plots: Plots, job: JobDoc): Promise<{ plotId: string }> {
  const n = job.input.points;
  const labels = await labelsOf(job);
  if (labels.length !== n) throw new Error(`${labels.length} labels for ${n} points`);
  const dim = Number(job.params.dimension ?? 3);
  const points = await readIndexed(path.join(job.workdir, FILES.points), n, dim, 'DA-MDS points');
  const clusters = (await readIndexed(path.join(job.workdir, FILES.clusters), n, 1, 'DA-PWC clusters')).map(([c]) => c!);
  const { xml, clusterCount } = plotXml(job.name, labels, points, clusters);
  const file = path.join(job.workdir, FILES.plot);
  await writeAtomically(file, xml);
  const plot = await plots.ingest(job.owner, { path: file, originalName: `${job.name}.pviz` }, {
    name: job.name,
    description: `${job.type} job ${job._id}: ${n} points, ${clusterCount} clusters (DA-MDS + DA-PWC)`,
    visibility: 'private',
    tags: ['job', job.type],
  }, jobPlotId(job._id));
  return { plotId: plot.id };
}
