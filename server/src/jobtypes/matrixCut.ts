// Cuts a block out of a SPIDAL int16 N×N matrix by streaming its rows: a re-clustering's
// sub-matrix (recluster.ts) or an interpolation's sample and out-of-sample blocks. No
// dependency on the job types, so any of them can use it.
import { open, rm } from 'node:fs/promises';
import type { Matrix } from './commands.ts';

/**
 * Writes rows × columns of an n × n int16 matrix as little-endian int16, row by row: one parent
 * row in memory at a time (2n bytes), so a cut of a 100,000-point matrix stays small.
 * `rows` ascending; `columns` (default: the rows) in any order. `signal` (a cancelled job) stops
 * it at the next row; a cut that stops or fails leaves no output.
 */
export async function cutMatrix(from: Matrix, rows: number[], to: string, columns: number[] = rows, signal?: AbortSignal): Promise<void> {
  const source = await open(from.file, 'r');
  const target = await open(to, 'w');
  let whole = false;
  try {
    const { size } = await source.stat();
    const n = Math.round(Math.sqrt(size / 2));
    if (2 * n * n !== size) throw new Error(`the matrix has ${size} bytes, not an n×n int16 matrix`);
    const outside = [...rows, ...columns].find((i) => i < 0 || i >= n);
    if (outside !== undefined) throw new Error(`row ${outside} is outside the ${n}×${n} matrix`);
    // Typed-array views (the host is little-endian, main.ts checks): per-value Buffer reads and
    // writes made the cut 19× slower than reading its rows.
    const row = Buffer.alloc(2 * n);
    const values = new Int16Array(row.buffer, row.byteOffset, n);
    const out = Buffer.alloc(2 * columns.length);
    const kept = new Int16Array(out.buffer, out.byteOffset, columns.length);
    const at = Int32Array.from(columns);
    for (const r of rows) {
      signal?.throwIfAborted();
      const { bytesRead } = await source.read(row, 0, row.length, 2 * n * r);
      if (bytesRead !== row.length) throw new Error(`the matrix ended in row ${r}`);
      if (from.bigEndian) row.swap16();
      for (let j = 0; j < at.length; j++) kept[j] = values[at[j]!]!;
      await target.write(out);
    }
    whole = true;
  } finally {
    await Promise.all([source.close(), target.close()]);
    if (!whole) await rm(to, { force: true });
  }
}
