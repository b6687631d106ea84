// The `distances` stage of a `vectors` job: CSV feature vectors → an N×N SPIDAL
// matrix (int16 little-endian, distance / max distance × 32767) and labels.txt.
import path from 'node:path';
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

/** The vectors of a CSV file the job's input check accepted (read by the same CSV reader, csv-rows.ts). */
export async function readVectors(file: string, header: boolean, labelColumn: number | undefined): Promise<Vectors> {
  const values: number[] = [];
  const labels: string[] = [];
  let dims = 0;
  let skipHeader = header;
  await forEachCsvRow(fileChunks(file), (cells) => {
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

/** Pairwise distances, Euclidean or 1 − Pearson correlation (1 when a vector is constant). */
export function distanceMatrix({ rows, dims, values }: Vectors, metric: 'euclidean' | 'correlation'): Float64Array {
  const data = metric === 'correlation' ? standardise(values, rows, dims) : values;
  const out = new Float64Array(rows * rows);
  for (let i = 0; i < rows; i++) {
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

async function writeDistances(job: JobDoc): Promise<Record<string, never>> {
  const p = job.params as { header: boolean; labelColumn?: number; metric: 'euclidean' | 'correlation' };
  const vectors = await readVectors(path.join(job.workdir, job.input.file), p.header, p.labelColumn);
  await writeAtomically(path.join(job.workdir, FILES.labels), vectors.labels.join('\n') + '\n');
  await writeAtomically(path.join(job.workdir, FILES.matrix), toSpidal(distanceMatrix(vectors, p.metric)));
  return {};
}
