// Interpolation for large inputs (SPIDAL's MI-MDS, issue 18): a job with more points than
// params.sampleSize (its input has `sample`) runs DA-MDS and DA-PWC on a sample only, and
// the `interp` program places every other point from its distances to the sample. The
// sample is a seeded random choice (params.seed, default 0), not a spread over the input:
// random keeps every family's share, so small families are sampled too on average.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import type { JobConfig } from '@wpv/jobs/config';
import type { JobDoc, StageCommand } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { launch, type Matrix } from './commands.ts';
import { fastaHeader, lines } from './inputs.ts';
import { cutMatrix } from './matrixCut.ts';

/** An interpolating job's sample matrix and out-of-sample block (re-clustering reads the input, not these). */
export const SAMPLE_INTERMEDIATES = [FILES.sampleMatrix, FILES.sampleWeights, FILES.block];

const rowDigest = (seed: number, row: number) => createHash('sha256').update(`${seed}:${row}`).digest();

/** `size` of the rows 0..n−1, ascending: those with the smallest SHA-256 of "seed:row" (a seeded random sample). */
export function chooseSample(n: number, size: number, seed: number): number[] {
  // Each row's key is its digest's first 8 bytes, in typed arrays (12 bytes a row; an object
  // with the hex digest per row took about 300 MB at 1,000,000 rows); rows whose 8 bytes
  // tie are ordered by their whole digests.
  const high = new Uint32Array(n);
  const low = new Uint32Array(n);
  const rows = new Uint32Array(n);
  for (let row = 0; row < n; row++) {
    const digest = rowDigest(seed, row);
    high[row] = digest.readUInt32BE(0);
    low[row] = digest.readUInt32BE(4);
    rows[row] = row;
  }
  rows.sort((a, b) => high[a]! - high[b]! || low[a]! - low[b]! || Buffer.compare(rowDigest(seed, a), rowDigest(seed, b)));
  return Array.from(rows.subarray(0, size)).sort((a, b) => a - b);
}

/** The rows outside the sample, ascending (the block's rows, as interp expects). */
export function outsideRows(n: number, sample: number[]): number[] {
  const inSample = new Uint8Array(n);
  for (const row of sample) inSample[row] = 1;
  return Array.from({ length: n }, (_, row) => row).filter((row) => !inSample[row]);
}

/** Where DA-MDS and DA-PWC read and write: the sample's files when the job interpolates, else the job's own. */
export function analysisFiles(job: JobDoc) {
  const sampled = job.input.sample !== undefined;
  return {
    points: sampled ? job.input.sample! : job.input.points,
    mdsOutput: sampled ? FILES.samplePoints : FILES.points,
    pwcOutput: sampled ? FILES.sampleClusters : FILES.clusters,
    centers: sampled ? FILES.sampleCenters : FILES.centers,
    silhouettes: sampled ? FILES.sampleSilhouettes : FILES.silhouettes,
    weights: job.input.weights && (sampled ? FILES.sampleWeights : job.input.weights.file),
  };
}

/**
 * The `sample` stage of a distance-matrix job: picks the sample and cuts its matrix (and
 * weights) and the out-of-sample × sample block from the input, little-endian. `signal` (a
 * cancelled job) stops the cut under way, which leaves no output.
 */
export async function cutSample(job: JobDoc, input: Matrix, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const at = (file: string) => path.join(job.workdir, file);
  const sample = chooseSample(job.input.points, job.input.sample!, Number(job.params.seed ?? 0));
  await writeFile(at(FILES.sampleRows), sample.map((row) => `${row}\n`).join(''));
  await cutMatrix(input, sample, at(FILES.sampleMatrix), sample, signal);
  if (job.input.weights) await cutMatrix({ ...input, file: at(job.input.weights.file) }, sample, at(FILES.sampleWeights), sample, signal);
  await cutMatrix(input, outsideRows(job.input.points, sample), at(FILES.block), sample, signal);
  return { sample: sample.length, interpolated: job.input.points - sample.length };
}

/**
 * The `sample` stage of a sequence-clustering job: picks the sample and splits the FASTA into
 * the sample's records and the others (each in input order, as read), and writes every id in
 * input order (FILES.labels) for the plot. `signal` (a cancelled job) stops it at the next line;
 * a split that stops or fails leaves none of its files.
 */
export async function splitFasta(job: JobDoc, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const at = (file: string) => path.join(job.workdir, file);
  const sample = chooseSample(job.input.points, job.input.sample!, Number(job.params.seed ?? 0));
  await writeFile(at(FILES.sampleRows), sample.map((row) => `${row}\n`).join(''));
  const inSample = new Uint8Array(job.input.points);
  for (const row of sample) inSample[row] = 1;
  // The records go to the sample's FASTA or the rest's, and every id to the labels as it is read.
  const outputs = [FILES.sampleFasta, FILES.restFasta, FILES.labels].map((file) => createWriteStream(at(file)));
  const [sampleOut, restOut, labelsOut] = outputs as [WriteStream, WriteStream, WriteStream];
  const write = async (output: WriteStream, text: string) => {
    if (!output.write(text)) await once(output, 'drain');
  };
  let records = 0;
  let target = sampleOut;
  try {
    for await (const [raw] of lines(at(job.input.file))) {
      signal?.throwIfAborted();
      const text = raw.trim();
      if (text.startsWith('>')) {
        target = inSample[records++] ? sampleOut : restOut;
        await write(labelsOut, `${fastaHeader(text).id}\n`);
      }
      if (text) await write(target, `${raw}\n`);
    }
    for (const output of outputs) output.end();
    await Promise.all(outputs.map((output) => finished(output)));
  } catch (err) {
    outputs.forEach((output) => output.destroy());
    await Promise.all(outputs.map((output) => finished(output).catch(() => {}))); // closed (and created) before they go
    await Promise.all([FILES.sampleRows, FILES.sampleFasta, FILES.restFasta, FILES.labels].map((file) => rm(at(file), { force: true })));
    throw err;
  }
  return { sample: sample.length, interpolated: records - sample.length };
}

/** The `interp` stage: places the out-of-sample points and writes the job's points, clusters, centres and silhouettes. */
export function interpCommand(job: JobDoc, config: JobConfig): StageCommand {
  const { bin, layout, at, memory } = launch(job, config, 'interp');
  const files = analysisFiles(job);
  return {
    ...layout,
    argv: [
      bin,
      '--points', at(files.mdsOutput),
      '--clusters', at(files.pwcOutput),
      '--centers', at(files.centers),
      '--distances', at(FILES.block),
      '--in-sample', String(files.points),
      '--out-of-sample', String(job.input.points - files.points),
      '--sample', at(FILES.sampleRows),
      '--output', at(FILES.points),
      '--clusters-output', at(FILES.clusters),
      '--centers-output', at(FILES.centers),
      '--silhouettes', at(files.silhouettes),
      '--silhouettes-output', at(FILES.silhouettes),
      '--dim', String(job.params.dimension ?? 3),
      '--k', String(job.params.k ?? 10),
      ...memory,
    ],
    outputs: [FILES.points, FILES.clusters, FILES.centers, FILES.silhouettes],
  };
}

/** An interpolating job's sample: the input row of each sample point, in sample order. */
async function sampleRows(job: JobDoc): Promise<number[]> {
  const rows: number[] = [];
  for await (const [raw] of lines(path.join(job.workdir, FILES.sampleRows))) if (raw.trim()) rows.push(Number(raw));
  return rows;
}

/** The plot's "interpolated" column (yes/no per point in input order), for an interpolating job. */
export async function interpolatedColumn(job: JobDoc): Promise<Map<string, string[]> | undefined> {
  if (job.input.sample === undefined) return undefined;
  const flags = new Array<string>(job.input.points).fill('yes');
  for (const row of await sampleRows(job)) flags[row] = 'no';
  return new Map([['interpolated', flags]]);
}
