// The one CSV reader (csv-rows.ts) and its three users: plot uploads, the
// vectors job's input check and its distances stage read a file alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse as parseSync } from 'csv-parse/sync';
import { readVectors } from '../../../workers/src/distances.ts';
import { fileChunks } from '../../src/formats/chunks.ts';
import { forEachCsvRow } from '../../src/formats/csv-rows.ts';
import { parseFile } from '../../src/formats/index.ts';
import { checkVectors } from '../../src/jobtypes/inputs.ts';
import { LIMITS, assertInputError, writeTemp } from './helpers.ts';

async function rows(text: string | Buffer): Promise<Array<[number, string[]]>> {
  const seen: Array<[number, string[]]> = [];
  await forEachCsvRow(fileChunks(writeTemp('rows.csv', text)), (fields, line) => seen.push([line, fields]));
  return seen;
}

test('rows: quotes, quoted line breaks, blank lines, CRLF and CR, a byte-order mark; each with the line it starts on', async () => {
  assert.deepEqual(await rows('\uFEFFa,"b, c"\r\n\r\n  \r\n"d\r\ne","say ""hi"""\r\nf,g'), [
    [1, ['a', 'b, c']],
    [4, ['d\r\ne', 'say "hi"']],
    [6, ['f', 'g']],
  ]);
  assert.deepEqual(await rows('a,b\r1,2\r'), [[1, ['a', 'b']], [2, ['1', '2']]]);
  assert.deepEqual(await rows('5" disk,x\n'), [[1, ['5" disk', 'x']]], 'a quote inside an unquoted field is a character');
});

test('rows: a record cut by chunk ends anywhere, UTF-8 characters included', async () => {
  const label = 'é'.repeat(700_000); // 1.4 MB: crosses the 1 MiB chunk end, inside a character
  assert.deepEqual(await rows(`x,"${label}\n${label}"\n1,2\n`), [[1, ['x', `${label}\n${label}`]], [3, ['1', '2']]]);
});

test('rows: lines split before the first quote or CR give the records csv-parse gives, with the same lines, across chunk and slice ends', async () => {
  // ~3 MB of plain lines (UTF-8 labels of 1 to 40 characters, empty fields, blank lines), then a
  // quoted field with a line break, plain lines again, a CR line end, and no final line end.
  const plain: string[] = [];
  for (let i = 0; i < 60_000; i++) plain.push(i % 997 === 0 ? '' : `${i},${'éa'.repeat(i % 20)},,${i % 7 === 0 ? 'x'.repeat(30) : i / 8}`);
  const text = `\uFEFFid,label,empty,value\n${plain.join('\n')}\n1,"two\nlines",3\n${plain.slice(0, 1000).join('\n')}\r\nlast,row`;
  const expected = parseSync(text, { bom: true, relax_quotes: true, relax_column_count: true }).filter((r: string[]) => r.length > 1 || r[0] !== '');
  const seen = await rows(text);
  assert.deepEqual(seen.map(([, fields]) => fields), expected);
  const at = (fields: string[]) => seen.find(([, f]) => f.join() === fields.join())?.[0];
  assert.equal(seen[0]![0], 1);
  assert.equal(at(['1', 'two\nlines', '3']), 60_002, 'the quoted record starts on the line after the plain ones');
  assert.equal(seen.at(-1)![0], 60_003 + 1 + 1000, 'lines are counted on across the hand-over to csv-parse');
  assert.deepEqual((await rows('a,b\n\n1,2')).map(([line]) => line), [1, 3], 'a blank line is counted and skipped; the last line needs no line end');
  await assertInputError(rows(`a,b\n1,2\n3,${'x'.repeat(17 << 20)}\n`), { code: 'bad_csv', line: 3 });
});

test('rows: CRLF lines are split too, with the records and lines csv-parse gives, a CRLF cut by a slice end included', async () => {
  const csvParse = (text: string) =>
    parseSync(text, { bom: true, relax_quotes: true, relax_column_count: true }).filter((r: string[]) => r.length > 1 || r[0] !== '');
  const plain: string[] = [];
  for (let i = 0; i < 60_000; i++) plain.push(i % 997 === 0 ? '' : `${i},${'éa'.repeat(i % 20)},,${i / 8}`);
  const crlf = `\uFEFFid,label,empty,value\r\n${plain.join('\r\n')}\r\n1,"two\r\nlines",3\r\n${plain.slice(0, 1000).join('\r\n')}\r\nlast,row\r\n`;
  const seen = await rows(crlf);
  assert.deepEqual(seen.map(([, fields]) => fields), csvParse(crlf));
  assert.equal(seen.find(([, f]) => f[1] === 'two\r\nlines')?.[0], 60_002, 'lines counted through the CRLF lines');
  assert.equal(seen.at(-1)![0], 60_003 + 1 + 1000);
  // The first slice (64 KiB) ends between a CR and its LF; then a lone CR hands over to csv-parse
  // (which takes the first line end it sees, here CR, for all that follow).
  const first = `${'x'.repeat(65_533)},y\r`;
  const cut = `${first}\n1,2\r\n3,4\r5,6\r7,8`;
  assert.equal(Buffer.byteLength(first), 65_536);
  assert.deepEqual(await rows(cut), [
    [1, ['x'.repeat(65_533), 'y']],
    [2, ['1', '2']],
    [3, ['3', '4']],
    [4, ['5', '6']],
    [5, ['7', '8']],
  ]);
  assert.deepEqual(await rows('a,b\n1,2\r\n3,4\n'), [[1, ['a', 'b']], [2, ['1', '2']], [3, ['3', '4']]], 'LF and CRLF mixed');
});

test('rows: an unclosed quote is an error at the line the record starts on; UTF-16 asks for UTF-8', async () => {
  await assertInputError(rows('a,b\n\n1,"open\n2,3\n'), { code: 'bad_csv', line: 3 });
  await assertInputError(rows(Buffer.from('a,b\n1,2\n', 'utf16le')), { code: 'not_utf8', status: 422 });
});

test('a quoted label with a comma: plot upload, vectors input check and distances stage agree', async () => {
  const csv = 'name,f1,f2\n"Smith, J",0,0\n"Doe, ""Jr""",3,4\nplain,6,8\n';
  const plot = await parseFile(writeTemp('p.csv', 'label,x,y\n"Smith, J",0,0\n"Doe, ""Jr""",3,4\nplain,6,8\n'), 'p.csv', LIMITS);
  assert.deepEqual(plot.frames[0].labels, ['Smith, J', 'Doe, "Jr"', 'plain']);
  const file = writeTemp('v.csv', csv);
  assert.deepEqual(await checkVectors(file, true, 0, 100), { rows: 3, columns: 3 });
  const vectors = await readVectors(file, true, 0);
  assert.deepEqual(vectors.labels, ['Smith, J', 'Doe, "Jr"', 'plain']);
  assert.deepEqual({ rows: vectors.rows, dims: vectors.dims, values: Array.from(vectors.values) }, { rows: 3, dims: 2, values: [0, 0, 3, 4, 6, 8] });
});

test('vectors input check: errors name the file field and the line, quoting at most 200 characters', async () => {
  const ragged = await assertInputError(checkVectors(writeTemp('v.csv', 'a,b\n1,2\n"x,y",3,4\n'), true, undefined, 100), { code: 'ragged_row', line: 3 });
  assert.equal(ragged.details.field, 'file');
  const open = await assertInputError(checkVectors(writeTemp('v.csv', 'a,b\n1,"2\n'), true, undefined, 100), { code: 'bad_csv', line: 2 });
  assert.equal(open.details.field, 'file');
  assert.match(open.message, /^file: line 2: /, 'the field first, as the API\'s messages: the browser adds no "(field file)"');
  assert.match(ragged.message, /^file: line 3: /);
  const long = await assertInputError(checkVectors(writeTemp('v.csv', `1,2\n3,${'x'.repeat(10_000_000)}\n`), false, undefined, 100), {
    code: 'not_a_number',
    line: 2,
  });
  assert.ok(long.message.length < 260, `message of ${long.message.length} characters`);
});
