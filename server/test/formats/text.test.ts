import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFile } from '../../src/formats/index.ts';
import { LIMITS, assertInputError, positionsOf, writeTemp } from './helpers.ts';

const parseText = (text: string, name = 'points.txt') => parseFile(writeTemp(name, text), name, LIMITS);

test('3 columns: x y z, comments and blank lines skipped, cluster 0', async () => {
  const plot = await parseText('# x y z\n1 2 3\n\n  4.5\t-5e-1   6  \r\n');
  const [frame] = plot.frames;
  assert.deepEqual(Array.from(frame.positions), [1, 2, 3, 4.5, -0.5, 6]);
  assert.deepEqual(Array.from(frame.clusterKeys), [0, 0]);
  assert.deepEqual(frame.labels, ['', '']);
  assert.equal(plot.title, 'points');
  assert.deepEqual(plot.clusters.map((c) => [c.key, c.label, c.color]), [[0, '0', null]]);
  assert.deepEqual(plot.warnings, []);
});

test('4 columns: idx x y cluster is 2D', async () => {
  const plot = await parseText('0 1 2 5\n1 3 4 6\n');
  assert.deepEqual(Array.from(plot.frames[0].positions), [1, 2, 0, 3, 4, 0]);
  assert.deepEqual(Array.from(plot.frames[0].clusterKeys), [5, 6]);
});

test('5 columns: DA-MDS output honours the cluster column', async () => {
  const plot = await parseText('0\t0.1\t0.2\t0.3\t2\n1\t-0.1\t-0.2\t-0.3\t0\n2\t1\t1\t1\t2\n');
  const [frame] = plot.frames;
  assert.deepEqual(Array.from(frame.clusterKeys), [2, 0, 2]);
  assert.deepEqual(positionsOf(frame.positions, 1), [-0.1, -0.2, -0.3].map(Math.fround));
  assert.deepEqual(plot.clusters.map((c) => c.key), [0, 2]);
  assert.deepEqual(plot.warnings, [], 'text clusters are declared by their column, no warning');
});

test('6 columns: idx x y z cluster label', async () => {
  const plot = await parseText('10 1 2 3 1 alpha\n11 4 5 6 1 beta\n');
  assert.deepEqual(plot.frames[0].labels, ['alpha', 'beta']);
});

test('coordinates are the Float32 rounding of the decimal text', async () => {
  const values = ['0.1', '-123456.789', '3.4028234663852886e38', '1e-45', '0.30000000000000004', '16777217'];
  const plot = await parseText(values.map((v) => `${v} ${v} ${v}`).join('\n'));
  assert.deepEqual(
    Array.from(plot.frames[0].positions),
    values.flatMap((v) => [v, v, v]).map((v) => Math.fround(Number(v))),
  );
});

test('bad text files are rejected with the line at fault', async () => {
  await assertInputError(parseText('1 2 3\n4 5 6\n# c\n7 8 9 10\n'), { code: 'column_count', line: 4 });
  await assertInputError(parseText('1 2\n'), { code: 'column_count', line: 1 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 inf 3 0\n'), { code: 'bad_number', line: 2 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 Infinity 3 0\n'), { code: 'non_finite', line: 2 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 NaN 3 0\n'), { code: 'non_finite', line: 2 });
  await assertInputError(parseText('0 1 2 3 0\n\n1 1 2 3 0\n0 1 2 3 0\n'), { code: 'duplicate_point_key', line: 4 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 2 3 -1\n'), { code: 'bad_cluster_key', line: 2 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 2 3 1.5\n'), { code: 'bad_cluster_key', line: 2 });
  await assertInputError(parseText('# only a comment\n\n'), { code: 'no_points' });
});

test('keys out of order are still checked for duplicates', async () => {
  const plot = await parseText('5 0 0 0 0\n3 0 0 0 0\n9 0 0 0 0\n');
  assert.equal(plot.frames[0].clusterKeys.length, 3);
  await assertInputError(parseText('5 0 0 0 0\n3 0 0 0 0\n9 0 0 0 0\n3 0 0 0 0\n'), { code: 'duplicate_point_key', line: 4 });
});

test('more points than maxPoints is a 413', async () => {
  const text = Array.from({ length: 11 }, (_, i) => `${i} 0 0`).join('\n');
  await assertInputError(parseFile(writeTemp('p.txt', text), 'p.txt', { ...LIMITS, maxPoints: 10 }), {
    code: 'too_many_points',
    line: 11,
    status: 413,
  });
});

test('a large file crosses many read chunks without losing lines', async () => {
  const lines = Array.from({ length: 200_000 }, (_, i) => `${i} ${i * 0.5} ${-i} ${i % 7} ${i % 3} label_${i}`);
  const plot = await parseFile(writeTemp('big.txt', lines.join('\n') + '\n'), 'big.txt', { ...LIMITS, maxPoints: 1e6 });
  const [frame] = plot.frames;
  assert.equal(frame.clusterKeys.length, 200_000);
  assert.deepEqual(positionsOf(frame.positions, 199_999), [199_999 * 0.5, -199_999, 199_999 % 7].map(Math.fround));
  assert.equal(frame.labels[123_457], 'label_123457');
  assert.equal(frame.clusterKeys[123_457], 123_457 % 3);
});

test('unusual fields read as Number() reads them, and spacing does not matter', async () => {
  const plot = await parseText('0 0x10 1 2 3 a\n1\t1e1\t+2\t.5\t4294967295\tb  \r\n  2 -0 1E-2 5. 007 é\n3 1.5 2 3 0 c\n');
  const [frame] = plot.frames;
  assert.deepEqual(Array.from(frame.positions), [16, 1, 2, 10, 2, 0.5, -0, 0.01, 5, 1.5, 2, 3].map(Math.fround));
  assert.ok(Object.is(frame.positions[6], -0));
  assert.deepEqual(Array.from(frame.clusterKeys), [3, 4294967295, 7, 0]);
  assert.deepEqual(frame.labels, ['a', 'b', 'é', 'c']);
  const number = await assertInputError(parseText('0 1 2 3 0 a\n1 1.5x 2 3 0 b\n'), { code: 'bad_number', line: 2 });
  assert.equal(number.message, 'line 2: x (field 2): "1.5x" is not a number', 'the message names the coordinate');
  await assertInputError(parseText('0 1 2 3 0 a\n1 1 2 3 4294967296 b\n'), { code: 'bad_cluster_key', line: 2 });
  await assertInputError(parseText('0 1 2 3 0 a\n1 1 2 3 0\n'), { code: 'column_count', line: 2 });
});

test('labels are the rest of the line: inner spaces and tabs kept, ends trimmed', async () => {
  const plot = await parseText(
    '0 1 2 3 0 Homo sapiens\n' +
      '1\t1\t2\t3\t0\tMus  musculus\tstrain\tB6\n' +
      '2 1 2 3 0   Danio rerio  \t \r\n' +
      '3 1 2 3 0 a\n' +
      '4 1 2 3 0 Saccharomyces cerevisiae S288C, a label longer than a copied substring\n' +
      '5 0x1 2 3 0 read by the slow path\n',
  );
  assert.deepEqual(plot.frames[0].labels, [
    'Homo sapiens',
    'Mus  musculus\tstrain\tB6',
    'Danio rerio',
    'a',
    'Saccharomyces cerevisiae S288C, a label longer than a copied substring',
    'read by the slow path',
  ]);
  assert.deepEqual(Array.from(plot.frames[0].positions.subarray(15)), [1, 2, 3]);
});

test('unicode labels with spaces', async () => {
  const plot = await parseText('0 1 2 3 0 Drosophila mélanogaster\n1 1 2 3 0 大肠 杆菌  K-12\n2 1 2 3 0 ok\n');
  assert.deepEqual(plot.frames[0].labels, ['Drosophila mélanogaster', '大肠 杆菌  K-12', 'ok']);
});

test('a labelled file needs a label on every line; other layouts keep their column count', async () => {
  await assertInputError(parseText('0 1 2 3 0 Homo sapiens\n1 1 2 3 0 b\n# c\n2 1 2 3 0\n'), { code: 'column_count', line: 4 });
  await assertInputError(parseText('0 1 2 3 0 Homo sapiens\n1 1 2 3 0 \t \n'), { code: 'column_count', line: 2 });
  await assertInputError(parseText('0 1 2 3 0\n1 1 2 3 0 Homo sapiens\n'), { code: 'column_count', line: 2 });
  await assertInputError(parseText('1 2 3\n4 5 6 7 8 9\n'), { code: 'column_count', line: 2 });
});
