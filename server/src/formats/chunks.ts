// Streaming input: files and ZIP entries are read as byte chunks, decoded as
// UTF-8 (a leading byte-order mark dropped) and split into lines without ever
// holding the whole text.
import { createReadStream } from 'node:fs';
import { isAscii } from 'node:buffer';
import { InputError } from './types.ts';

const CHUNK_BYTES = 1 << 20;
/** A single line longer than this is not a plot file (and would defeat streaming). */
export const MAX_LINE_CHARS = 16 << 20;

export function fileChunks(path: string): AsyncIterable<Buffer> {
  return createReadStream(path, { highWaterMark: CHUNK_BYTES });
}

/**
 * Decodes UTF-8 chunk by chunk. A character cut by a chunk boundary waits for
 * the next chunk; pure-ASCII chunks (the usual plot file) take the cheaper
 * Latin-1 path, which gives the same string for them.
 */
export async function* decodeUtf8(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let pending: Buffer | null = null; // bytes of a character cut by the last chunk end
  let first = true;
  for await (const chunk of chunks) {
    const bytes: Buffer = pending === null ? chunk : Buffer.concat([pending, chunk]);
    const complete = completeUtf8Length(bytes);
    pending = complete < bytes.length ? bytes.subarray(complete) : null;
    const whole = bytes.subarray(0, complete);
    let text = isAscii(whole) ? whole.toString('latin1') : whole.toString('utf8');
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text.length > 0) yield text;
  }
  if (pending !== null) yield pending.toString('utf8'); // an incomplete character: U+FFFD
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 character. */
function completeUtf8Length(bytes: Buffer): number {
  const length = bytes.length;
  let lead = length - 1;
  while (lead >= 0 && length - lead < 4 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead < 0) return length;
  const byte = bytes[lead];
  const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + size <= length ? length : lead;
}

/**
 * Calls `onLine(text, start, end, lineNo)` for every line: the line is
 * text[start, end) (1-based numbers, "\r\n" accepted), so callers slice only
 * what they keep. The callback is synchronous so that a million lines cost a
 * million calls, not a million awaits. Returns the number of lines.
 */
export async function forEachLine(
  text: AsyncIterable<string>,
  onLine: (text: string, start: number, end: number, lineNo: number) => void,
  entry?: string,
): Promise<number> {
  let carry = '';
  let lineNo = 0;
  const emitLines = (buf: string, start: number): number => {
    let nl: number;
    while ((nl = buf.indexOf('\n', start)) !== -1) {
      const end = nl > start && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      onLine(buf, start, end, ++lineNo);
      start = nl + 1;
    }
    return start;
  };
  for await (const chunk of text) {
    // The line cut by the last chunk end is joined on its own: joining the whole
    // chunk would make a cons string, whose charCodeAt is several times slower.
    let start = 0;
    if (carry.length > 0) {
      const nl = chunk.indexOf('\n');
      if (nl === -1) {
        carry += chunk;
        start = chunk.length;
      } else {
        emitLines(carry + chunk.slice(0, nl + 1), 0);
        start = nl + 1;
        carry = '';
      }
    }
    carry += chunk.slice(emitLines(chunk, start));
    if (carry.length > MAX_LINE_CHARS) {
      throw new InputError('line_too_long', `line ${lineNo + 1} is longer than ${MAX_LINE_CHARS} characters`, {
        line: lineNo + 1,
        file: entry,
      });
    }
  }
  if (carry.length > 0) {
    const end = carry.charCodeAt(carry.length - 1) === 13 ? carry.length - 1 : carry.length;
    onLine(carry, 0, end, ++lineNo);
  }
  return lineNo;
}
