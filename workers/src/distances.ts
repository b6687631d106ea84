// The `distances` stage of a `vectors` job: CSV feature vectors → an N×N SPIDAL
// matrix (int16 little-endian, distance / max distance × 32767) and labels.txt.
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { JobDoc } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { fileChunks } from '@wpv/server/formats/chunks';
import { forEachCsvRow } from '@wpv/server/formats/csv-rows';
import { writeAtomically } from './files.ts';

export interface Vectors {
  rows: number;
  dims: number;
  values: Float64Array; // row-major
  labels: string[];
}

/** How long the distance loop computes before it lets the worker's stop watch run (it would block it). */
const COMPUTE_SLICE_MS = 50;

/**
 * The vectors of a CSV file the job's input check accepted (read by the same CSV reader,
 * csv-rows.ts); `signal` stops the read at the next row.
 */
export async function readVectors(file: string, header: boolean, labelColumn: number | undefined, signal?: AbortSignal): Promise<Vectors> {
  const values: number[] = [];
  const labels: string[] = [];
  let dims = 0;
  let skipHeader = header;
  await forEachCsvRow(fileChunks(file), (cells) => {
    signal?.throwIfAborted();
    if (skipHeader) {
      skipHeader = false;
      return;
    }
    labels.push(labelColumn === undefined ? String(labels.length) : cells[labelColumn]!.trim());
    cells.forEach((cell, column) => column !== labelColumn && values.push(Number(cell)));
    dims = cells.length - (labelColumn === undefined ? 0 : 1);
  });
  return { rows: labels.length, dims, values: Float64Array.from(values), labels };
}

/**
 * Pairwise distances, Euclidean or 1 − Pearson correlation (1 when a vector is constant).
 * Every COMPUTE_SLICE_MS it yields to the event loop (where the stop watch runs) and checks `signal`.
 */
export async function distanceMatrix({ rows, dims, values }: Vectors, metric: 'euclidean' | 'correlation', signal?: AbortSignal): Promise<Float64Array> {
  const data = metric === 'correlation' ? standardise(values, rows, dims) : values;
  const out = new Float64Array(rows * rows);
  let sliceStart = performance.now();
  for (let i = 0; i < rows; i++) {
    if (performance.now() - sliceStart >= COMPUTE_SLICE_MS) {
      await nextTurn();
      signal?.throwIfAborted();
      sliceStart = performance.now();
    }
    for (let j = i + 1; j < rows; j++) {
      let acc = 0;
      for (let k = 0; k < dims; k++) {
        const a = data[i * dims + k]!;
        const b = data[j * dims + k]!;
        acc += metric === 'euclidean' ? (a - b) * (a - b) : a * b;
      }
      const d = metric === 'euclidean' ? Math.sqrt(acc) : Number.isNaN(acc) ? 1 : 1 - acc;
      out[i * rows + j] = out[j * rows + i] = Math.max(0, d);
    }
  }
  return out;
}

/** Centres each row and scales it to unit length, so a dot product is the correlation (NaN rows stay NaN). */
function standardise(values: Float64Array, rows: number, dims: number): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < rows; i++) {
    const row = values.subarray(i * dims, (i + 1) * dims);
    const mean = row.reduce((s, v) => s + v, 0) / dims;
    const norm = Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0));
    for (let k = 0; k < dims; k++) out[i * dims + k] = norm > 0 ? (row[k]! - mean) / norm : NaN;
  }
  return out;
}

/** SPIDAL int16 encoding: distances scaled into [0, 32767] by the largest one. */
export function toSpidal(distances: Float64Array): Buffer {
  const max = distances.reduce((m, v) => Math.max(m, v), 0);
  const out = Buffer.alloc(distances.length * 2);
  for (let i = 0; i < distances.length; i++) out.writeInt16LE(max > 0 ? Math.round((distances[i]! / max) * 32767) : 0, i * 2);
  return out;
}

export const distancesStage = { run: writeDistances };

async function writeDistances(job: JobDoc, signal: AbortSignal): Promise<Record<string, never>> {
  const p = job.params as { header: boolean; labelColumn?: number; metric: 'euclidean' | 'correlation' };
  const vectors = await readVectors(path.join(job.workdir, job.input.file), p.header, p.labelColumn, signal);
  const matrix = toSpidal(await distanceMatrix(vectors, p.metric, signal));
  await writeAtomically(path.join(job.workdir, FILES.labels), vectors.labels.join('\n') + '\n', signal);
  await writeAtomically(path.join(job.workdir, FILES.matrix), matrix, signal);
  return {};
}
