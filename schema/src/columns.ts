// Metadata columns: extra per-point values a plot carries beside its label and cluster
// (extra CSV columns, PlotViz point properties, FASTA descriptions, stock sectors).
// The list lives in the plot metadata; each frame's values are a binary blob
// (GET /plots/{id}/frames/{frame}/columns/{column}).
import { z } from 'zod';

export const ColumnKind = z.enum(['category', 'number']);
export type ColumnKind = z.infer<typeof ColumnKind>;

export const PlotColumn = z.object({
  name: z.string(),
  kind: ColumnKind.describe('category: text values, stored as codes into `categories`; number: Float32 values'),
  categories: z
    .array(z.string())
    .optional()
    .describe('category: the distinct values in order of first appearance; a point\'s code indexes this list'),
  codeBytes: z
    .union([z.literal(2), z.literal(4)])
    .optional()
    .describe('category: bytes per code in the blob (Uint16 LE up to 65,536 categories, else Uint32 LE)'),
  min: z.number().optional().describe('number: the smallest finite value (absent when there is none)'),
  max: z.number().optional().describe('number: the largest finite value'),
});
export type PlotColumn = z.infer<typeof PlotColumn>;

/** A point's value of a column from the column's blob (as typed array): its text, or its number (NaN when missing). */
export function columnValue(column: PlotColumn, data: Uint16Array | Uint32Array | Float32Array, index: number): string | number {
  return column.kind === 'number' ? data[index]! : (column.categories?.[data[index]!] ?? '');
}

/** The typed view of a column blob's bytes (little-endian, as every host this runs on). */
export function columnArray(column: PlotColumn, bytes: ArrayBuffer, byteOffset = 0, byteLength = bytes.byteLength - byteOffset): Uint16Array | Uint32Array | Float32Array {
  if (column.kind === 'number') return new Float32Array(bytes, byteOffset, byteLength / 4);
  return column.codeBytes === 2 ? new Uint16Array(bytes, byteOffset, byteLength / 2) : new Uint32Array(bytes, byteOffset, byteLength / 4);
}

/** The shortest decimal that reads back as this Float32 value (4.7, not 4.699999809265137); '' for NaN. */
export function float32Text(value: number): string {
  if (Number.isNaN(value)) return '';
  for (let digits = 1; digits < 9; digits++) {
    const text = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(text)) === value) return text;
  }
  return String(value);
}

/** A point's value of a column as text: the category, or the number written shortest ('' when missing). */
export function columnText(column: PlotColumn, data: Uint16Array | Uint32Array | Float32Array, index: number): string {
  const value = columnValue(column, data, index);
  return typeof value === 'string' ? value : float32Text(value);
}
