// CSV records for every CSV input: plot uploads (csv.ts), the job types' CSV
// inputs (server/src/jobtypes/) and the vectors job's distances stage
// (workers/src/distances.ts), so that a file one of them accepts, the others
// read the same way. Parsed by
// csv-parse, streaming: RFC 4180 quoting ("a, b", doubled "" inside quotes,
// line breaks inside quotes); a quote inside an unquoted field is kept as a
// character; "\n", "\r\n" or "\r" line ends; blank lines are skipped.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { MAX_LINE_CHARS } from './chunks.ts';
import { checkUtf8 } from './detect.ts';
import { inputError } from './reader.ts';
import type { InputError } from './types.ts';

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
  const parser = parse({
    bom: true,
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
        // Blank lines arrive as records of one empty field.
        const line = next;
        next += 1 + newlinesIn(fields);
        try {
          if (fields.length > 1 || fields[0]!.trim() !== '') onRow(fields, line);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
    });
    await pipeline(checkedUtf8(chunks, entry), parser, rows);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw csvError(error, next, entry);
  }
  return next - 1;
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
