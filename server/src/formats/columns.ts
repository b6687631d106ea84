// Metadata columns of a parsed plot (ParsedFrame.columns: the text of each point's
// value) encoded for storage: one column list for the plot (name, kind, dictionary)
// and per frame one compact array per column. A column is a number when every value
// given in every frame reads as a finite number, else a category. Frames may have
// different points (a time series' windows), so values are per frame, like labels;
// the dictionary is shared by all frames, so a code means the same in each.
import { columnArray, columnText, type PlotColumn } from '@wpv/schema';
import { quoted } from './reader.ts';
import { InputError, type ParsedFrame } from './types.ts';

export interface ColumnLimits {
  /** Columns per plot. */
  maxColumns: number;
  /** Distinct values of one category column. */
  maxCategories: number;
}

export interface EncodedColumns {
  columns: PlotColumn[];
  /** [frame][column]: Uint16/Uint32 codes or Float32 values, little-endian bytes. */
  frames: Uint8Array[][];
}

const UINT16_CODES = 1 << 16;

export function encodeColumns(frames: ParsedFrame[], limits: ColumnLimits): EncodedColumns {
  const names: string[] = [];
  for (const frame of frames) for (const name of frame.columns?.keys() ?? []) if (!names.includes(name)) names.push(name);
  if (names.length > limits.maxColumns) {
    throw new InputError('too_many_columns', `${names.length} metadata columns; at most ${limits.maxColumns} are allowed`, { field: names[limits.maxColumns] });
  }
  const valuesOf = (frame: ParsedFrame, name: string) => frame.columns?.get(name) ?? new Array<string>(frame.clusterKeys.length).fill('');
  const encoded = names.map((name) => {
    const perFrame = frames.map((frame) => valuesOf(frame, name));
    return perFrame.every((values) => values.every(isNumberOrEmpty)) && perFrame.some((values) => values.some((v) => v.trim() !== ''))
      ? encodeNumbers(name, perFrame)
      : encodeCategories(name, perFrame, limits.maxCategories);
  });
  return { columns: encoded.map((e) => e.column), frames: frames.map((_, f) => encoded.map((e) => e.frames[f]!)) };
}

function isNumberOrEmpty(text: string): boolean {
  const trimmed = text.trim();
  return trimmed === '' || trimmed === 'NaN' || Number.isFinite(Number(trimmed));
}

function encodeNumbers(name: string, perFrame: string[][]): { column: PlotColumn; frames: Uint8Array[] } {
  let min = Infinity;
  let max = -Infinity;
  const out = perFrame.map((values) => {
    const array = new Float32Array(values.length);
    values.forEach((text, i) => {
      const value = text.trim() === '' ? NaN : Math.fround(Number(text));
      array[i] = value;
      if (value < min) min = value;
      if (value > max) max = value;
    });
    return bytesOf(array);
  });
  return { column: { name, kind: 'number', ...(min <= max && { min, max }) }, frames: out };
}

function encodeCategories(name: string, perFrame: string[][], maxCategories: number): { column: PlotColumn; frames: Uint8Array[] } {
  const codes = new Map<string, number>();
  const codeArrays = perFrame.map((values) => {
    const array = new Uint32Array(values.length);
    values.forEach((text, i) => {
      let code = codes.get(text);
      if (code === undefined) {
        code = codes.size;
        if (code === maxCategories) {
          throw new InputError('too_many_categories', `metadata column ${quoted(name)} has more than ${maxCategories} distinct values, the most allowed`, { field: name });
        }
        codes.set(text, code);
      }
      array[i] = code;
    });
    return array;
  });
  const narrow = codes.size <= UINT16_CODES;
  return {
    column: { name, kind: 'category', categories: [...codes.keys()], codeBytes: narrow ? 2 : 4 },
    frames: codeArrays.map((array) => bytesOf(narrow ? Uint16Array.from(array) : array)),
  };
}

/** The text of every point's value, as the export writes it ('' when missing). */
export function decodeColumn(column: PlotColumn, bytes: Buffer): string[] {
  const data = columnArray(column, new Uint8Array(bytes).buffer); // a copy: the stored bytes may sit at an odd offset
  return Array.from(data, (_, i) => columnText(column, data, i));
}

const bytesOf = (array: Float32Array | Uint16Array | Uint32Array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
