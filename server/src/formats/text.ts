// Whitespace-separated text, one point per line, "#" comments:
//   3 columns  x y z
//   4 columns  idx x y cluster          (2D, z = 0)
//   5 columns  idx x y z cluster        (DA-MDS output)
//   6 columns  idx x y z cluster label
// Every data line must have the column count of the first one (so labels have
// no spaces); idx is the point key and must be unique.
import { decodeUtf8, forEachLine } from './chunks.ts';
import { FrameBuilder } from './frame-builder.ts';
import { parseFloat32, parseIndex } from './numbers.ts';
import { inputError, parseClusterKey, titleFromName, type FrameInput, type FrameRead } from './reader.ts';

const MAX_COLUMNS = 6;

/** Column positions of each layout: [idx, x, y, z, cluster, label]; -1 when absent. */
const LAYOUTS: Record<number, readonly number[]> = {
  3: [-1, 0, 1, 2, -1, -1],
  4: [0, 1, 2, -1, 3, -1],
  5: [0, 1, 2, 3, 4, -1],
  6: [0, 1, 2, 3, 4, 5],
};

export async function readTextFrame(input: FrameInput): Promise<FrameRead> {
  const builder = new FrameBuilder(input);
  // Field i of the current line is text[bounds[2i], bounds[2i+1]).
  const bounds = new Int32Array(MAX_COLUMNS * 2);
  let columns = 0;
  let layout: readonly number[] = LAYOUTS[3];

  const coordinate = (text: string, field: number, line: number): number => {
    const start = bounds[2 * field];
    const end = bounds[2 * field + 1];
    const value = parseFloat32(text, start, end);
    if (Number.isNaN(value) && text.slice(start, end) !== 'NaN') {
      throw inputError(input, 'bad_number', `"${text.slice(start, end)}" is not a number`, line);
    }
    return value; // NaN and ±Infinity are rejected as non-finite by the builder
  };
  const field = (text: string, i: number): string => text.slice(bounds[2 * i], bounds[2 * i + 1]);

  const lastLine = await forEachLine(
    decodeUtf8(input.chunks),
    (text, start, end, lineNo) => {
      const count = splitWhitespace(text, start, end, bounds);
      if (count === 0 || text.charCodeAt(bounds[0]) === 35 /* # */) return;
      if (columns === 0) {
        if (LAYOUTS[count] === undefined) {
          throw inputError(input, 'column_count', `expected 3 to 6 columns, found ${count}`, lineNo);
        }
        columns = count;
        layout = LAYOUTS[count];
      } else if (count !== columns) {
        throw inputError(input, 'column_count', `expected ${columns} columns like the first line, found ${count}`, lineNo);
      }
      const [idx, xi, yi, zi, ci, li] = layout;
      let cluster = 0;
      if (ci >= 0) {
        cluster = parseIndex(text, bounds[2 * ci], bounds[2 * ci + 1]);
        if (cluster < 0 || cluster > 0xffffffff) cluster = parseClusterKey(field(text, ci)); // "1e3", "+4"…
        if (cluster < 0) {
          throw inputError(input, 'bad_cluster_key', `cluster "${field(text, ci)}" is not an unsigned integer`, lineNo);
        }
      }
      let key: string | number | null = null;
      if (idx >= 0) {
        key = parseIndex(text, bounds[2 * idx], bounds[2 * idx + 1]);
        if (key < 0) key = field(text, idx);
      }
      builder.add(
        key,
        coordinate(text, xi, lineNo),
        coordinate(text, yi, lineNo),
        zi >= 0 ? coordinate(text, zi, lineNo) : 0,
        cluster,
        li >= 0 ? field(text, li) : '',
        lineNo,
      );
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
 * Finds the fields of text[start, end) separated by spaces and tabs, recording
 * as many as fit into `bounds` (start, end pairs); returns the field count.
 */
function splitWhitespace(text: string, start: number, end: number, bounds: Int32Array): number {
  let count = 0;
  let i = start;
  while (i < end) {
    let c = text.charCodeAt(i);
    while (i < end && (c === 32 || c === 9)) c = text.charCodeAt(++i);
    if (i >= end) break;
    const fieldStart = i;
    while (i < end && c !== 32 && c !== 9) c = text.charCodeAt(++i);
    if (2 * count < bounds.length) {
      bounds[2 * count] = fieldStart;
      bounds[2 * count + 1] = i;
    }
    count++;
  }
  return count;
}
