// CSV records for every CSV input: plot uploads (csv.ts), the job types' CSV
// inputs (server/src/jobtypes/) and the vectors job's distances stage
// (workers/src/distances.ts), so that a file one of them accepts, the others
// read the same way. Parsed by
// csv-parse, streaming: RFC 4180 quoting ("a, b", doubled "" inside quotes,
// line breaks inside quotes); a quote inside an unquoted field is kept as a
// character; "\n", "\r\n" or "\r" line ends; blank lines are skipped.
// Lines before the first quote or lone carriage return are split here instead,
// at commas and "\n" or "\r\n" (the same records csv-parse gives for them):
// csv-parse reads a byte at a time through several calls, ~3.8 µs per short
// record, 73 s of the ~20M-record market of the stock-timeseries job; the split
// costs a tenth.
import { isAscii } from 'node:buffer';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { COPIED_SUBSTRING, MAX_LINE_CHARS, VIEW_BYTES, latin1, utf8 } from './chunks.ts';
import { checkUtf8 } from './detect.ts';
import { inputError } from './reader.ts';
import type { InputError } from './types.ts';

const LINE_END = Buffer.from('\n');

/**
 * Calls `onRow(fields, line)` for each record of the chunks: its fields as
 * written, quotes removed, and the 1-based line it starts on. The callback is
 * synchronous, so callers keep no promise per row; what it throws ends the
 * read. Returns the line the last record ends on.
 * `entry`: the ZIP entry, named in errors.
 */
export async function forEachCsvRow(
  chunks: AsyncIterable<Buffer>,
  onRow: (fields: string[], line: number) => void,
  entry?: string,
): Promise<number> {
  let next = 1; // the line the next record starts on
  // `lineBreaks`: inside the record's quoted fields (none in a split line).
  const record = (fields: string[], lineBreaks = newlinesIn(fields)) => {
    const line = next;
    next += 1 + lineBreaks;
    // Blank lines arrive as records of one empty field.
    if (fields.length > 1 || fields[0]!.trim() !== '') onRow(fields, line);
  };
  const source = checkedUtf8(chunks, entry)[Symbol.asyncIterator]();
  const rest = await plainLines(source, record, () => next, entry).catch(async (error) => {
    await source.return?.(undefined); // closes the file
    throw error;
  });
  if (rest === null) return next - 1;
  const parser = parse({
    bom: rest.atStart,
    relax_quotes: true,
    relax_column_count: true, // each caller reports a wrong count in its own terms
    max_record_size: MAX_LINE_CHARS,
  });
  try {
    // A synchronous sink: consuming the records with `for await` cost a promise per record,
    // four fifths of the read (a 2,750,000-row CSV: 27 s against 6 s).
    const rows = new Writable({
      objectMode: true,
      highWaterMark: 1024,
      write(fields: string[], _encoding, done) {
        // Lines are counted here: csv-parse's own count comes with a fresh
        // object per record (on_record, info), a fifth of the parse time.
        try {
          record(fields);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
    });
    await pipeline(rest.bytes, parser, rows);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw csvError(error, next, entry);
  }
  return next - 1;
}

/**
 * Splits the lines of `source` into records at commas until a line holds a quote
 * or a carriage return that does not end it; returns the bytes from that line's start on (with
 * `atStart` when that is the file's start, where a byte-order mark may be), or
 * null when every line was read.
 */
async function plainLines(
  source: AsyncIterator<Buffer>,
  record: (fields: string[], lineBreaks: number) => void,
  line: () => number,
  entry?: string,
): Promise<{ bytes: AsyncIterable<Buffer>; atStart: boolean } | null> {
  let carry: Buffer = Buffer.alloc(0); // the line cut by the previous slice's end: no quote, no CR
  let first = true;
  for (let item = await source.next(); !item.done; item = await source.next()) {
    const chunk = item.value;
    for (let from = 0; from < chunk.length; from += VIEW_BYTES) {
      const slice = chunk.subarray(from, from + VIEW_BYTES);
      let bytes: Buffer = carry.length ? Buffer.concat([carry, slice]) : slice;
      const atStart = first;
      if (first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      first = false;
      const { rest, stopped } = splitLines(bytes, record);
      if (stopped) {
        const tail = Buffer.concat([bytes.subarray(rest), chunk.subarray(from + VIEW_BYTES)]);
        const more = async function* () {
          yield tail;
          for (let i = await source.next(); !i.done; i = await source.next()) yield i.value;
        };
        return { bytes: more(), atStart: atStart && rest === 0 };
      }
      carry = bytes.subarray(rest); // may end in the CR of a CRLF cut by the slice's end
      if (carry.length > MAX_LINE_CHARS) throw inputError({ entry }, 'bad_csv', `a record is longer than ${MAX_LINE_CHARS} characters`, line());
    }
  }
  if (carry.length > 0) splitLines(Buffer.concat([carry, LINE_END]), record);
  return null;
}

/**
 * Records of the whole lines of `bytes` before its first quote or lone CR (one not
 * followed by "\n"): where the unread rest starts, and whether one of those stopped the
 * split. Separators are searched in the bytes as Latin-1 text (one character per
 * byte), where indexOf is fast.
 */
function splitLines(bytes: Buffer, record: (fields: string[], lineBreaks: number) => void): { rest: number; stopped: boolean } {
  const text = latin1(bytes, 0, bytes.length);
  const ascii = isAscii(bytes);
  // Short fields are cut from the text (V8 copies them); longer ones decoded, so that none keeps the text alive.
  const field = (start: number, end: number) =>
    !ascii ? utf8(bytes, start, end) : end - start < COPIED_SUBSTRING ? text.substring(start, end) : latin1(bytes, start, end);
  const quote = text.indexOf('"');
  let stop = quote === -1 ? bytes.length : quote;
  // A CR as the last byte stays in the carried partial line: the next slice shows what follows it.
  for (let cr = text.indexOf('\r'); cr !== -1 && cr < stop; cr = text.indexOf('\r', cr + 1)) {
    if (cr + 1 < bytes.length && bytes[cr + 1] !== 0x0a) stop = cr;
  }
  let lineStart = 0;
  for (let end = text.indexOf('\n'); end !== -1 && end < stop; end = text.indexOf('\n', lineStart)) {
    const fields: string[] = [];
    const lineEnd = end > lineStart && bytes[end - 1] === 0x0d ? end - 1 : end;
    let start = lineStart;
    for (let comma = text.indexOf(',', start); comma !== -1 && comma < lineEnd; comma = text.indexOf(',', start)) {
      fields.push(field(start, comma));
      start = comma + 1;
    }
    fields.push(field(start, lineEnd));
    record(fields, 0);
    lineStart = end + 1;
  }
  return { rest: lineStart, stopped: stop < bytes.length };
}

/** Line breaks inside the (quoted) fields of a record. */
function newlinesIn(fields: string[]): number {
  let count = 0;
  for (const field of fields) {
    for (let at = field.indexOf('\n'); at !== -1; at = field.indexOf('\n', at + 1)) count++;
  }
  return count;
}

async function* checkedUtf8(chunks: AsyncIterable<Buffer>, entry?: string): AsyncGenerator<Buffer> {
  let first = true;
  for await (const chunk of chunks) {
    if (first) checkUtf8(chunk, entry);
    first = false;
    yield chunk;
  }
}

/** csv-parse's error as ours: its own message quotes whole fields, so only its code is used. */
function csvError(error: CsvError, line: number, entry?: string): InputError {
  const message =
    error.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted field is not closed'
      : error.code === 'CSV_MAX_RECORD_SIZE'
        ? `a record is longer than ${MAX_LINE_CHARS} characters`
        : `unreadable CSV (${error.code})`;
  return inputError({ entry }, 'bad_csv', message, line);
}
