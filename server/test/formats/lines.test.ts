import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VIEW_BYTES, forEachByteLine } from '../../src/formats/chunks.ts';

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
