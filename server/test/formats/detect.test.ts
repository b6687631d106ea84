import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectFormat } from '../../src/formats/index.ts';

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
