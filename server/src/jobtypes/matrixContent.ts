// Checks what a SPIDAL distance matrix holds before its job is queued: a zero diagonal,
// symmetry, and few negative (missing) values. A matrix sent with the wrong byte order
// passes the size check and "succeeds" badly (issue 15: half its pairs read as missing),
// so the answer is a 422 with a hint. Only sampled rows are read for big N: O(N·k) bytes.
import { open } from 'node:fs/promises';
import { fileError } from '../formats/types.ts';

/** Up to this N every row is read (8 MiB); above it, SAMPLE_ROWS evenly spaced rows. */
const FULL_READ_POINTS = 2048;
const SAMPLE_ROWS = 256;
/** |d(i,j) − d(j,i)| allowed: 1 % of the int16 range, above rounding by whoever wrote it. */
const ASYMMETRY_TOLERANCE = Math.round(0.01 * 32767);
/** A share of negative values a real matrix with some missing pairs stays under; a swapped one has about half. */
const MAX_NEGATIVE_SHARE = 1 / 3;

const bad = (code: string, message: string) => fileError(code, message, undefined, 422);

export async function checkMatrixContent(file: string, points: number, byteOrder: 'little' | 'big'): Promise<void> {
  const n = points;
  const rows = n <= FULL_READ_POINTS ? Array.from({ length: n }, (_, i) => i) : Array.from({ length: SAMPLE_ROWS }, (_, j) => Math.floor((j * n) / SAMPLE_ROWS));
  const k = rows.length;
  const other = byteOrder === 'little' ? 'big' : 'little';
  const orderHint = `is the matrix ${other}-endian (params.byteOrder "${other}")?`;
  // The sampled rows at the sampled columns, for the symmetry check.
  const block = new Int16Array(k * k);
  const row = Buffer.alloc(2 * n);
  let negative = 0;
  const handle = await open(file, 'r');
  try {
    for (let r = 0; r < k; r++) {
      const i = rows[r]!;
      await handle.read(row, 0, row.length, 2 * n * i);
      const at = (j: number) => (byteOrder === 'little' ? row.readInt16LE(2 * j) : row.readInt16BE(2 * j));
      for (let j = 0; j < n; j++) if (at(j) < 0) negative++;
      const diagonal = at(i);
      if (diagonal !== 0) {
        // A byte swap keeps 0 as 0: a wrong N (or a similarity matrix) moves the diagonal.
        throw bad('matrix_diagonal', `row ${i}: the diagonal is ${diagonal}, not 0 as in a distance matrix; is params.points the matrix's N, and is it distances, not similarities?`);
      }
      for (let c = 0; c < k; c++) block[r * k + c] = at(rows[c]!);
    }
  } finally {
    await handle.close();
  }
  const share = negative / (k * n);
  if (share > MAX_NEGATIVE_SHARE) {
    throw bad('matrix_negative', `${Math.round(share * 100)} % of the ${n <= FULL_READ_POINTS ? '' : 'sampled '}distances are negative (SPIDAL's mark of a missing pair); ${orderHint}`);
  }
  for (let r = 0; r < k; r++) {
    for (let c = r + 1; c < k; c++) {
      const [a, b] = [block[r * k + c]!, block[c * k + r]!];
      if (a >= 0 && b >= 0 && Math.abs(a - b) > ASYMMETRY_TOLERANCE) {
        throw bad('matrix_asymmetric', `d(${rows[r]}, ${rows[c]}) = ${a} but d(${rows[c]}, ${rows[r]}) = ${b}; a distance matrix is symmetric (to within ${ASYMMETRY_TOLERANCE}). Is params.points right?`);
      }
    }
  }
}
