import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFile } from '../../src/formats/index.ts';
import { LIMITS, assertInputError, writeTemp } from './helpers.ts';

const parseCsv = (text: string) => parseFile(writeTemp('points.csv', text), 'points.csv', LIMITS);

test('header names the columns in any order and case; other columns are metadata', async () => {
  const plot = await parseCsv('Label,Z,extra,X,y,ID,cluster\nfirst,3,?,1,2,a,4\nsecond,6,?,4,5,b,4\n');
  const [frame] = plot.frames;
  assert.deepEqual(Array.from(frame.positions), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(frame.labels, ['first', 'second']);
  assert.deepEqual(Array.from(frame.clusterKeys), [4, 4]);
  assert.deepEqual(plot.clusters.map((c) => [c.key, c.label]), [[4, '4']]);
  assert.deepEqual([...frame.columns!], [['extra', ['?', '?']]]);
});

test('a byte-order mark and CRLF line ends are accepted', async () => {
  const plot = await parseCsv('\uFEFFx,y,z\r\n1,2,3\r\n4,5,6\r\n');
  assert.deepEqual(Array.from(plot.frames[0].positions), [1, 2, 3, 4, 5, 6]);
});

test('without z the plot is 2D', async () => {
  const plot = await parseCsv('x,y\n1,2\n3,4\n');
  assert.deepEqual(Array.from(plot.frames[0].positions), [1, 2, 0, 3, 4, 0]);
});

test('string clusters become numbered clusters labelled with the name', async () => {
  const plot = await parseCsv('x,y,z,cluster\n0,0,0,fungi\n1,1,1,plants\n2,2,2,fungi\n3,3,3,7\n');
  assert.deepEqual(Array.from(plot.frames[0].clusterKeys), [0, 1, 0, 2]);
  assert.deepEqual(plot.clusters.map((c) => [c.key, c.label]), [[0, 'fungi'], [1, 'plants'], [2, '7']]);
  assert.deepEqual(plot.warnings, []);
});

test('quoted fields: commas, doubled quotes and line breaks inside quotes', async () => {
  const plot = await parseCsv('x,y,z,label\n1,2,3,"a, b"\n4,5,6,"say ""hi"""\n7,8,9,"two\nlines"\n10,11,12,plain\n');
  assert.deepEqual(plot.frames[0].labels, ['a, b', 'say "hi"', 'two\nlines', 'plain']);
  assert.deepEqual(Array.from(plot.frames[0].positions.subarray(9)), [10, 11, 12]);
});

test('bad CSV files are rejected with the line at fault', async () => {
  await assertInputError(parseCsv('a,b,c\n1,2,3\n'), { code: 'bad_csv_header', line: 1 });
  await assertInputError(parseCsv('x,y,z\n1,2,3\n4,5\n'), { code: 'column_count', line: 3 });
  const empty = await assertInputError(parseCsv('x,y,z\n1,2,3\n4,,6\n'), { code: 'bad_number', line: 3 });
  assert.equal(empty.message, 'line 3: y: "" is not a number', 'the message names the column');
  await assertInputError(parseCsv('x,y,z\n1,2,3\n4,1e400,6\n'), { code: 'non_finite', line: 3 });
  await assertInputError(parseCsv('x,y,z,cluster\n1,2,3,1\n4,5,6,other\n'), { code: 'bad_cluster_key', line: 3 });
  await assertInputError(parseCsv('x,y,id\n1,2,a\n\n3,4,b\n5,6,a\n'), { code: 'duplicate_point_key', line: 5 });
  await assertInputError(parseCsv('x,y,label\n1,2,"open\n3,4,x\n'), { code: 'bad_csv', line: 2 });
  await assertInputError(parseCsv('x,y,z\n'), { code: 'no_points' });
});

test('a column read from the file named twice is a 422 naming it and its columns', async () => {
  const error = await assertInputError(parseCsv('x,X,y\n1,2,3\n'), { code: 'duplicate_csv_column', line: 1 });
  assert.equal(error.message, 'line 1: the header names x (columns 1, 2) more than once');
  const both = await assertInputError(parseCsv('label,x,y, Label ,y\n'), { code: 'duplicate_csv_column' });
  assert.match(both.message, /y \(columns 3, 5\) and label \(columns 1, 4\)|label \(columns 1, 4\) and y \(columns 3, 5\)/);
  const note = await assertInputError(parseCsv('x,y,note,note\n1,2,a,b\n'), { code: 'duplicate_csv_column', line: 1 });
  assert.equal(note.message, 'line 1: the header names "note" more than once', 'a metadata column is named once too');
});

test('lines are counted through quoted line breaks and blank lines, for errors after them', async () => {
  await assertInputError(parseCsv('x,y,label\n1,2,"a\nb\nc"\n  \n\n3,4,x\n5,oops,y\n'), { code: 'bad_number', line: 8 });
  await assertInputError(parseCsv('x,y,label\r\n1,2,"a\r\nb"\r\n\r\n3,4,"open\r\n5,6,y\r\n'), { code: 'bad_csv', line: 5 });
});

test('errors quote at most 200 characters of a 10 MB line', async () => {
  const huge = '7'.repeat(5_000_000) + 'x' + '7'.repeat(5_000_000);
  const error = await assertInputError(parseCsv(`x,y\n1,${huge}\n`), { code: 'bad_number', line: 2 });
  assert.ok(error.message.length < 260, `message of ${error.message.length} characters`);
  assert.match(error.message, /^line 2: y: "7{200}…" is not a number$/);
  const header = await assertInputError(parseCsv(`${'h'.repeat(10_000_000)},a\n1,2\n`), { code: 'bad_csv_header' });
  assert.ok(header.message.length < 300, `message of ${header.message.length} characters`);
});
