// The plot of a DA-MDS + DA-PWC job, built as a parsed plot for ingest: one point per
// input row in input order, labelled (sequence id, matrix label, CSV label), in its
// DA-PWC cluster; each cluster names its medoid (SPIDAL's centre) as `centre`, a point
// index, so scripts' rows stay one-to-one with the input (nothing is appended).
import path from 'node:path';
import type { JobDoc } from '@wpv/jobs/model';
import { exists, FILES } from '@wpv/jobs/workdir';
import { categoricalColor, LOOSE_SILHOUETTE } from '@wpv/schema';
import type { ClusterDef, ParsedPlot } from '../formats/types.ts';
import { lines as linesOf } from './inputs.ts';
import { interpolatedColumn } from './interpolation.ts';

/** Shape of the viewer's glyph set (formats/README): 3 = sphere. */
const SPHERE = 3;

/** Non-empty lines of a file in the job directory (labels written by a stage). */
export async function labelsFile(job: JobDoc, file: string): Promise<string[]> {
  const labels: string[] = [];
  for await (const [raw] of linesOf(path.join(job.workdir, file))) if (raw.trim()) labels.push(raw.trim());
  return labels;
}

/**
 * Reads "index value..." rows into a points × columns array in index order (row-major);
 * indices may start at 0 or 1. Typed arrays, not an array per row: at 300,000 points the
 * per-row arrays held about 100 MB more of the worker's memory.
 */
async function readIndexed(file: string, points: number, columns: number, what: string): Promise<Float64Array> {
  const indices = new Float64Array(points);
  const values = new Float64Array(points * columns);
  let rows = 0;
  for await (const [raw, line] of linesOf(file)) {
    const cells = raw.trim().split(/\s+/);
    if (cells[0] === '' || cells[0]!.startsWith('#')) continue;
    const numbers = cells.slice(0, 1 + columns).map(Number);
    if (cells.length < 1 + columns || numbers.some((v) => !Number.isFinite(v))) {
      throw new Error(`${what} line ${line}: expected an index and ${columns} numbers, got "${raw.trim().slice(0, 200)}"`);
    }
    if (rows < points) {
      indices[rows] = numbers[0]!;
      values.set(numbers.slice(1), rows * columns);
    }
    rows++;
  }
  if (rows !== points) throw new Error(`${what} has ${rows} rows for ${points} points`);
  let base = Infinity;
  for (const index of indices) base = Math.min(base, index);
  const out = new Float64Array(points * columns);
  const seen = new Uint8Array(points);
  for (let row = 0; row < points; row++) {
    const at = indices[row]! - base;
    if (at >= points || seen[at]) throw new Error(`${what}: index ${indices[row]} is out of range or repeated`);
    seen[at] = 1;
    out.set(values.subarray(row * columns, (row + 1) * columns), at * columns);
  }
  return out;
}

/** dapwc's centres file (FILES.centers): "label count medoid" per cluster → the medoid's input row by label. */
async function readCentres(job: JobDoc, n: number): Promise<Map<number, number>> {
  const file = path.join(job.workdir, FILES.centers);
  const centres = new Map<number, number>();
  for await (const [raw, line] of linesOf(file)) {
    const cells = raw.trim().split(/\s+/);
    if (cells[0] === '' || cells[0]!.startsWith('#')) continue;
    const [label, , medoid] = cells.slice(0, 3).map(Number);
    if (cells.length < 3 || !Number.isInteger(label) || !Number.isInteger(medoid) || medoid! < 0 || medoid! >= n) {
      throw new Error(`${FILES.centers} line ${line}: expected "label count medoid" with a medoid in 0..${n - 1}, got "${raw.trim().slice(0, 200)}"`);
    }
    centres.set(label!, medoid!);
  }
  return centres;
}

/**
 * Each point's silhouette in input order, from dapwc --silhouettes, or from interp when the job
 * interpolated (an out-of-sample point's against the sample's clusters); null for jobs run before
 * the kernels wrote them.
 */
async function pointSilhouettes(job: JobDoc): Promise<Float64Array | null> {
  const file = path.join(job.workdir, FILES.silhouettes);
  return (await exists(file)) ? readIndexed(file, job.input.points, 1, 'silhouettes') : null;
}

/**
 * Each cluster's mean silhouette over all its points (dapwc's own for a job that did not
 * interpolate); none with one cluster, where silhouettes are undefined.
 */
function clusterSilhouettes(silhouettes: Float64Array, clusters: Uint32Array, counts: Map<number, number>): Map<number, number> {
  const sums = new Map<number, number>();
  if (counts.size < 2) return sums;
  clusters.forEach((k, i) => sums.set(k, (sums.get(k) ?? 0) + silhouettes[i]!));
  return new Map([...sums].map(([k, sum]) => [k, sum / counts.get(k)!]));
}

/**
 * When the count is not the data's own, from dapwc's done line: clusters dropped or merged, or the cap
 * reached while a cluster was still splitting (then the job says what to do); and clusters with no
 * substantial structure, which gather points that fit no cluster.
 */
function clusteringWarnings(job: JobDoc, silhouette: Map<number, number>, counts: Map<number, number>): string[] {
  const done = job.stages.pwc?.progress;
  const warnings = Array.isArray(done?.warnings) ? done.warnings.filter((w): w is string => typeof w === 'string') : [];
  const said = warnings.map((w) => (w.startsWith('capped at ') ? `${w}; raise maxClusters, or re-cluster a cluster from the plot` : w));
  const loose = [...silhouette].filter(([, s]) => s <= LOOSE_SILHOUETTE);
  if (loose.length > 0) {
    const list = loose.map(([k, s]) => `cluster ${k} (${counts.get(k) ?? 0} points, ${s.toFixed(2)})`).join(', ');
    said.push(`${loose.length} of ${silhouette.size} clusters are loose, mean silhouette ≤ ${LOOSE_SILHOUETTE}: ${list}; ` +
      'their points are about as near other clusters as each other, so read them as points that fit no cluster');
  }
  return said;
}

/**
 * The one-frame plot of DA-MDS points (FILES.points) coloured by DA-PWC clusters (FILES.clusters):
 * one point per input row, in input order; each cluster's medoid is its `centre` (a point index).
 */
export async function mdsPlot(job: JobDoc, labels: string[], columns?: Map<string, string[]>): Promise<ParsedPlot> {
  const n = job.input.points;
  if (labels.length !== n) throw new Error(`${labels.length} labels for ${n} points`);
  const pointSilhouette = await pointSilhouettes(job);
  const added = new Map(await interpolatedColumn(job));
  if (pointSilhouette) added.set('silhouette', Array.from(pointSilhouette, String));
  if (added.size > 0) columns = new Map([...(columns ?? []), ...added]);
  const dim = Number(job.params.dimension ?? 3);
  const points = await readIndexed(path.join(job.workdir, FILES.points), n, dim, 'DA-MDS points');
  const clusters = Uint32Array.from(await readIndexed(path.join(job.workdir, FILES.clusters), n, 1, 'DA-PWC clusters'));
  const centres = await readCentres(job, n);
  const counts = new Map<number, number>();
  // xyz per point; a 2-D map has z = 0.
  const positions = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < Math.min(dim, 3); k++) positions[i * 3 + k] = points[i * dim + k]!;
    counts.set(clusters[i]!, (counts.get(clusters[i]!) ?? 0) + 1);
  }
  const silhouette = pointSilhouette ? clusterSilhouettes(pointSilhouette, clusters, counts) : new Map<number, number>();
  const keys = [...counts.keys()].sort((a, b) => a - b);
  const defs: ClusterDef[] = keys.map((k, i) => ({
    key: k,
    label: `cluster ${k}`, // its size is the cluster's count, shown beside it
    color: categoricalColor(i),
    shape: SPHERE,
    size: 1,
    visible: true,
    ...(centres.has(k) && { centre: centres.get(k)! }),
    ...(silhouette.has(k) && { silhouette: silhouette.get(k)! }),
  }));
  return {
    title: job.name,
    clusters: defs,
    frames: [{ title: job.name, positions, clusterKeys: clusters, labels, edges: [], ...(columns && { columns }) }],
    warnings: clusteringWarnings(job, silhouette, counts),
  };
}
