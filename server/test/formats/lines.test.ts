import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachLine } from '../../src/formats/chunks.ts';

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
