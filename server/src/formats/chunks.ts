// Streaming input: files and ZIP entries are read as byte chunks and split
// into lines of bytes (a leading byte-order mark dropped) without ever holding
// the whole text. CSV is read by csv-rows.ts.
import { createReadStream } from 'node:fs';
import { isAscii } from 'node:buffer';
import { InputError } from './types.ts';

const CHUNK_BYTES = 1 << 20;
const NEWLINE = Buffer.from('\n');
/**
 * Chunks are viewed as strings in slices of this size: such strings stay in
 * V8's young generation, while 1 MiB ones filled the old generation and cost a
 * full collection every few chunks.
 */
export const VIEW_BYTES = 64 << 10;

/** Buffer's own decoding methods, which toString() calls after checking its arguments. */
type Slicing = Buffer & { utf8Slice(start: number, end: number): string; latin1Slice(start: number, end: number): string };

/**
 * bytes[start, end) decoded as UTF-8 (invalid sequences as U+FFFD). Calls the
 * method under toString() directly: toString's argument handling was a third
 * of the cost of a short label.
 */
export function utf8(bytes: Buffer, start: number, end: number): string {
  return (bytes as Slicing).utf8Slice(start, end);
}

/**
 * V8 copies substrings shorter than this; longer ones are views that would
 * keep the whole string they are cut from (a chunk) alive.
 */
export const COPIED_SUBSTRING = 13;

/** bytes[start, end) decoded as Latin-1: one character per byte, at the same positions. */
export function latin1(bytes: Buffer, start: number, end: number): string {
  return (bytes as Slicing).latin1Slice(start, end);
}
/** A single line (CSV: record) longer than this is not a plot file (and would defeat streaming). */
export const MAX_LINE_CHARS = 16 << 20;

/** A file's bytes in chunks; `signal`: stop (throwing its reason) at the next chunk once it aborts. */
export function fileChunks(path: string, signal?: AbortSignal): AsyncIterable<Buffer> {
  const chunks = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  return signal ? untilAborted(chunks, signal) : chunks;
}

/**
 * The chunks until `signal` aborts, then its reason thrown: a parser reads a chunk at a time, so an
 * upload whose client went stops within a chunk instead of being parsed to its end for nobody.
 */
export async function* untilAborted(chunks: AsyncIterable<Buffer>, signal: AbortSignal): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    signal.throwIfAborted();
    yield chunk;
  }
}

/**
 * Calls `onLine(bytes, start, end, lineNo, ascii)`
 * for every line bytes[start, end) of the chunks (a leading byte-order mark
 * dropped, "\r\n" accepted), so that parsers read fields straight from the
 * bytes and decode only what they keep. `ascii` is `bytes` as a string when
 * they are ASCII (short strings are cheaper cut from it than decoded), else
 * null. Returns the number of lines.
 */
export async function forEachByteLine(
  chunks: AsyncIterable<Buffer>,
  onLine: (bytes: Buffer, start: number, end: number, lineNo: number, ascii: string | null) => void,
  entry?: string,
): Promise<number> {
  // The line cut by a chunk end is kept as parts and joined once, with the
  // start of the next chunk, when its end arrives. Joined lines keep their
  // "\n" so that, as in a chunk, the byte after a line can be read.
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let lineNo = 0;
  const emit = (bytes: Buffer, ascii: string | null, start: number, end: number) => {
    if (++lineNo === 1 && end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
    onLine(bytes, start, end > start && bytes[end - 1] === 13 ? end - 1 : end, lineNo, ascii);
  };
  const emitJoined = (bytes: Buffer, end: number) => emit(bytes, isAscii(bytes) ? latin1(bytes, 0, bytes.length) : null, 0, end);
  const takeSlice = (slice: Buffer) => {
    // Newlines are searched in the Latin-1 view (one character per byte):
    // String indexOf costs a fraction of Buffer's for lines this short.
    const chars = latin1(slice, 0, slice.length);
    const ascii = isAscii(slice) ? chars : null;
    let start = 0;
    let nl = chars.indexOf('\n');
    if (carryBytes > 0 && nl !== -1) {
      carry.push(slice.subarray(0, nl + 1));
      emitJoined(Buffer.concat(carry), carryBytes + nl);
      carry = [];
      carryBytes = 0;
      start = nl + 1;
      nl = chars.indexOf('\n', start);
    }
    while (nl !== -1) {
      emit(slice, ascii, start, nl);
      start = nl + 1;
      nl = chars.indexOf('\n', start);
    }
    if (start < slice.length) {
      carry.push(slice.subarray(start));
      carryBytes += slice.length - start;
      if (carryBytes > MAX_LINE_CHARS) {
        throw new InputError('line_too_long', `line ${lineNo + 1} is longer than ${MAX_LINE_CHARS} bytes`, {
          line: lineNo + 1,
          file: entry,
        });
      }
    }
  };
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += VIEW_BYTES) takeSlice(chunk.subarray(at, at + VIEW_BYTES));
  }
  if (carryBytes > 0) emitJoined(Buffer.concat([...carry, NEWLINE]), carryBytes);
  return lineNo;
}
