import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import yazl from 'yazl';
import { detectFormat, parseFile } from '../../src/formats/index.ts';
import { LIMITS, assertInputError, tempPath, writeTemp } from './helpers.ts';

test('content decides first: ZIP magic and a <plotviz> root', () => {
  assert.equal(detectFormat('upload.bin', Buffer.from('PK\x03\x04rest')), 'zip');
  assert.equal(detectFormat('upload.txt', Buffer.from('\uFEFF<?xml version="1.0"?>\n<!-- c -->\n<plotviz>')), 'pviz');
  assert.equal(detectFormat('upload', Buffer.from('<plotviz>')), 'pviz');
});

test('then the extension, then a CSV header naming x and y, else text', () => {
  assert.equal(detectFormat('a.PVIZ', Buffer.from('garbage')), 'pviz');
  assert.equal(detectFormat('a.xml', Buffer.from('<other/>')), 'pviz');
  assert.equal(detectFormat('a.zip', Buffer.from('not really')), 'zip');
  assert.equal(detectFormat('a.csv', Buffer.from('1,2,3')), 'csv');
  assert.equal(detectFormat('a.dat', Buffer.from('id, "X", Y, z\n1,2,3,4')), 'csv');
  assert.equal(detectFormat('a.dat', Buffer.from('0 0.1 0.2 0.3 1\n')), 'text');
  assert.equal(detectFormat('points', Buffer.from('x y z\n')), 'text');
});

function utf32(text: string, littleEndian: boolean): Buffer {
  const codes = Array.from(text, (c) => c.codePointAt(0)!);
  const out = Buffer.alloc(codes.length * 4);
  codes.forEach((code, i) => (littleEndian ? out.writeUInt32LE(code, i * 4) : out.writeUInt32BE(code, i * 4)));
  return out;
}

test('UTF-16 and UTF-32 text, with or without a byte-order mark, is a 422 asking for UTF-8', async () => {
  const files: Record<string, string> = {
    'points.csv': 'x,y,label\n1,2,a\n3,4,b\n',
    'points.txt': '0 1 2 3 0 first\n1 4 5 6 0 second\n',
    'points.pviz': '<?xml version="1.0" encoding="utf-16"?><plotviz></plotviz>',
  };
  for (const [name, text] of Object.entries(files)) {
    const encodings: Record<string, (text: string) => Buffer> = {
      'UTF-16 (little-endian)': (t) => Buffer.from(t, 'utf16le'),
      'UTF-16 (big-endian)': (t) => Buffer.from(t, 'utf16le').swap16(),
      'UTF-32 (little-endian)': (t) => utf32(t, true),
      'UTF-32 (big-endian)': (t) => utf32(t, false),
    };
    for (const [encoding, encode] of Object.entries(encodings)) {
      for (const bom of [false, true]) {
        const content = encode(bom ? `\ufeff${text}` : text);
        const error = await assertInputError(parseFile(writeTemp(name, content), name, LIMITS), { code: 'not_utf8', status: 422 });
        assert.equal(error.message, `the file is ${encoding} text; save it as UTF-8`, `${name}, ${encoding}, BOM ${bom}`);
      }
    }
  }
  const zip = tempPath('series.zip');
  const writer = new yazl.ZipFile();
  writer.addBuffer(Buffer.from('0 0 0\n'), 'f1.txt');
  writer.addBuffer(Buffer.from('x,y\n1,2\n', 'utf16le'), 'f2.csv');
  writer.end();
  await finished(writer.outputStream.pipe(createWriteStream(zip)));
  const error = await assertInputError(parseFile(zip, 'series.zip', LIMITS), { code: 'not_utf8', status: 422, file: 'f2.csv' });
  assert.match(error.message, /^f2\.csv: the file is UTF-16 \(little-endian\) text; save it as UTF-8$/);
});

test('UTF-8 text with characters beyond ASCII is not mistaken for UTF-16', () => {
  assert.equal(detectFormat('a.txt', Buffer.from('0 1 2 3 0 日本語のラベル\n1 4 5 6 0 ελληνικά\n')), 'text');
  assert.equal(detectFormat('a.csv', Buffer.from('x,y,label\n1,2,ünïcödé\n')), 'csv');
});
