// Whitespace-separated text, one point per line, "#" comments:
//   3 columns  x y z
//   4 columns  idx x y cluster          (2D, z = 0)
//   5 columns  idx x y z cluster        (DA-MDS output)
//   6+ columns idx x y z cluster label  (the label is the rest of the line)
// The first data line sets the layout. The label is everything after the fifth
// field, trimmed, its inner spaces and tabs kept as written; every other layout
// needs the exact column count of the first line. idx is the point key and
// must be unique.
import { COPIED_SUBSTRING, forEachByteLine, utf8 } from './chunks.ts';
import { FrameBuilder } from './frame-builder.ts';
import { parseFloat32, parseIndex, scanEnd, scanFloat32, scanIndex } from './numbers.ts';
import { inputError, parseClusterKey, quoted, titleFromName, type FrameInput, type FrameRead } from './reader.ts';

/** Columns of the labelled layout, the widest: a label may span more fields. */
const LABELLED = 6;

/** Column positions of each layout: [idx, x, y, z, cluster, label]; -1 when absent. */
const LAYOUTS: Record<number, readonly number[]> = {
  3: [-1, 0, 1, 2, -1, -1],
  4: [0, 1, 2, -1, 3, -1],
  5: [0, 1, 2, 3, 4, -1],
  6: [0, 1, 2, 3, 4, 5],
};

export async function readTextFrame(input: FrameInput): Promise<FrameRead> {
  const builder = new FrameBuilder(input);
  // Field i of the current line is bytes[bounds[2i], bounds[2i+1]) (the first
  // six; a label runs on to the line end): only the label and the fields named
  // in errors become strings.
  const bounds = new Int32Array(LABELLED * 2);
  let columns = 0;
  let layout: readonly number[] = LAYOUTS[3];
  // The fields the layout has, for the fast path.
  let hasKey = false;
  let hasZ = false;
  let hasCluster = false;
  let hasLabel = false;

  // Short labels are cut from the ASCII chunk as a string: a substring is
  // cheaper than a decoding call. Longer ones are decoded on their own (see
  // COPIED_SUBSTRING).
  const labelText = (bytes: Buffer, ascii: string | null, start: number, end: number): string =>
    ascii !== null && end - start < COPIED_SUBSTRING ? ascii.slice(start, end) : utf8(bytes, start, end);
  const field = (bytes: Buffer, i: number): string => utf8(bytes, bounds[2 * i], bounds[2 * i + 1]);
  const coordinate = (bytes: Buffer, i: number, line: number, name: string): number => {
    const value = parseFloat32(bytes, bounds[2 * i], bounds[2 * i + 1]);
    if (Number.isNaN(value) && field(bytes, i) !== 'NaN') {
      throw inputError(input, 'bad_number', `${name} (field ${i + 1}): ${quoted(field(bytes, i))} is not a number`, line);
    }
    return value; // NaN and ±Infinity are rejected as non-finite by the builder
  };

  /** Any data line: split into fields first, so that problems are found in the order the format defines. */
  const readLine = (bytes: Buffer, start: number, end: number, lineNo: number): void => {
    const count = splitWhitespace(bytes, start, end, bounds);
    if (columns === 0) {
      if (count < 3) {
        throw inputError(input, 'column_count', `expected 3 or more columns, found ${count}`, lineNo);
      }
      columns = Math.min(count, LABELLED);
      layout = LAYOUTS[columns];
      [hasKey, , , hasZ, hasCluster, hasLabel] = layout.map((column) => column >= 0);
    } else if (hasLabel && count < LABELLED) {
      throw inputError(input, 'column_count', `expected 5 columns and a label like the first line, found ${count} columns`, lineNo);
    } else if (!hasLabel && count !== columns) {
      throw inputError(input, 'column_count', `expected ${columns} columns like the first line, found ${count}`, lineNo);
    }
    const [idx, xi, yi, zi, ci, li] = layout;
    let cluster = 0;
    if (ci >= 0) {
      cluster = parseIndex(bytes, bounds[2 * ci], bounds[2 * ci + 1]);
      if (cluster < 0 || cluster > 0xffffffff) cluster = parseClusterKey(field(bytes, ci)); // "1e3", "+4"…
      if (cluster < 0) {
        throw inputError(input, 'bad_cluster_key', `cluster ${quoted(field(bytes, ci))} is not an unsigned integer`, lineNo);
      }
    }
    let key: string | number | null = null;
    if (idx >= 0) {
      key = parseIndex(bytes, bounds[2 * idx], bounds[2 * idx + 1]);
      if (key < 0) key = field(bytes, idx);
    }
    builder.add(
      key,
      coordinate(bytes, xi, lineNo, 'x'),
      coordinate(bytes, yi, lineNo, 'y'),
      zi >= 0 ? coordinate(bytes, zi, lineNo, 'z') : 0,
      cluster,
      li >= 0 ? utf8(bytes, bounds[2 * li], labelEnd(bytes, bounds[2 * li], end)) : '',
      lineNo,
    );
  };

  /**
   * The usual data line, read in one pass with each number parsed where it is
   * found; false (nothing added) at anything unusual, which readLine then
   * judges: a wrong column count, a number Number() must read, an error.
   */
  const readFastLine = (bytes: Buffer, ascii: string | null, i: number, end: number, lineNo: number): boolean => {
    let key = -1;
    if (hasKey) {
      key = scanIndex(bytes, i, end);
      if (key < 0 || (i = nextField(bytes, scanEnd, end)) < 0) return false;
    }
    const x = scanFloat32(bytes, i, end);
    if (x !== x || (i = nextField(bytes, scanEnd, end)) < 0) return false;
    const y = scanFloat32(bytes, i, end);
    if (y !== y) return false;
    let z = 0;
    if (hasZ) {
      if ((i = nextField(bytes, scanEnd, end)) < 0) return false;
      z = scanFloat32(bytes, i, end);
      if (z !== z) return false;
    }
    let cluster = 0;
    if (hasCluster) {
      if ((i = nextField(bytes, scanEnd, end)) < 0) return false;
      cluster = scanIndex(bytes, i, end);
      if (cluster < 0 || cluster > 0xffffffff) return false;
    }
    let label = '';
    if (hasLabel) {
      if ((i = nextField(bytes, scanEnd, end)) < 0) return false;
      label = labelText(bytes, ascii, i, labelEnd(bytes, i, end));
    } else if (!isLastField(bytes, scanEnd, end)) return false;
    builder.add(hasKey ? key : null, x, y, z, cluster, label, lineNo);
    return true;
  };

  const lastLine = await forEachByteLine(
    input.chunks,
    (bytes, start, end, lineNo, ascii) => {
      let i = start;
      while (i < end && (bytes[i] === 32 || bytes[i] === 9)) i++;
      if (i === end || bytes[i] === 35 /* # */) return;
      if (columns === 0 || !readFastLine(bytes, ascii, i, end, lineNo)) readLine(bytes, start, end, lineNo);
    },
    input.entry,
  );
  return {
    frame: builder.finish(titleFromName(input.name), [], lastLine),
    titleFromContent: false,
    declared: [],
    implicitClusters: true,
  };
}

/**
 * Finds the fields of bytes[start, end) separated by spaces and tabs, recording
 * as many as fit into `bounds` (start, end pairs); returns the field count.
 */
function splitWhitespace(bytes: Buffer, start: number, end: number, bounds: Int32Array): number {
  let count = 0;
  let i = start;
  while (i < end) {
    let c = bytes[i];
    while (i < end && (c === 32 || c === 9)) c = bytes[++i];
    if (i >= end) break;
    const fieldStart = i;
    while (i < end && c !== 32 && c !== 9) c = bytes[++i];
    if (2 * count < bounds.length) {
      bounds[2 * count] = fieldStart;
      bounds[2 * count + 1] = i;
    }
    count++;
  }
  return count;
}

/** Start of the field after the one ending at bytes[stop], or -1 when no blank separates another field. */
function nextField(bytes: Buffer, stop: number, end: number): number {
  let i = stop;
  while (i < end && (bytes[i] === 32 || bytes[i] === 9)) i++;
  return i === stop || i === end ? -1 : i;
}

/** End of the label starting at bytes[start]: the line end, less trailing blanks. */
function labelEnd(bytes: Buffer, start: number, end: number): number {
  while (end > start && (bytes[end - 1] === 32 || bytes[end - 1] === 9)) end--;
  return end;
}

/** True when only blanks follow the last field, ending at bytes[stop]. */
function isLastField(bytes: Buffer, stop: number, end: number): boolean {
  let i = stop;
  while (i < end && (bytes[i] === 32 || bytes[i] === 9)) i++;
  return i === end;
}
