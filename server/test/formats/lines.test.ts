import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIEW_BYTES, forEachByteLine, forEachLine } from '../../src/formats/chunks.ts';

async function* chunks(...parts: string[]) {
  yield* parts;
}

async function lines(...parts: string[]): Promise<string[]> {
  const seen: string[] = [];
  await forEachLine(chunks(...parts), (text, start, end, lineNo) => seen.push(`${lineNo}:${text.slice(start, end)}`));
  return seen;
}

test('lines cut by chunk ends, CRLF included, come out whole and numbered', async () => {
  assert.deepEqual(await lines('a b\nc', ' d\r', '\ne f\n'), ['1:a b', '2:c d', '3:e f']);
});

test('a line spanning several chunks, and a last line without a newline', async () => {
  assert.deepEqual(await lines('x', 'y', 'z', '\n', 'tail'), ['1:xyz', '2:tail']);
});

test('empty chunks and empty lines', async () => {
  assert.deepEqual(await lines('', '\n\n', '', 'q\n'), ['1:', '2:', '3:q']);
});

async function byteLines(...parts: Array<string | Buffer>): Promise<string[]> {
  const seen: string[] = [];
  async function* chunks() {
    for (const part of parts) yield Buffer.from(part);
  }
  await forEachByteLine(chunks(), (bytes, start, end, lineNo, ascii) => {
    const line = bytes.toString('utf8', start, end);
    if (ascii !== null) assert.equal(ascii.slice(start, end), line, 'the ASCII view has the same characters');
    seen.push(`${lineNo}:${line}`);
  });
  return seen;
}

test('byte lines: cut by chunk ends, CRLF, a byte-order mark cut in two, no final newline', async () => {
  const bom = Buffer.from('\uFEFFa b\r\n');
  assert.deepEqual(await byteLines(bom.subarray(0, 1), bom.subarray(1), 'c', ' d\r', '\ne é\n\nf'), ['1:a b', '2:c d', '3:e é', '4:', '5:f']);
  assert.deepEqual(await byteLines('', '\n\n', '', 'q\n'), ['1:', '2:', '3:q']);
});

test('byte lines: lines longer than a string view, and many lines in one chunk', async () => {
  const long = 'x'.repeat(VIEW_BYTES * 2 + 5);
  const many = Array.from({ length: 30_000 }, (_, i) => `line ${i}`);
  const seen = await byteLines(`${long}\n${many.join('\n')}\n`);
  assert.equal(seen.length, 30_001);
  assert.equal(seen[0], `1:${long}`);
  assert.equal(seen[30_000], '30001:line 29999');
});
