// Document ids: random, URL-safe, and never read as a command-line option.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../src/storage/ids.ts';

test('ids start with a letter or digit, keep their length and do not repeat', () => {
  // Plain base64url starts 1 in 32 ids with "-" or "_": 20,000 draws would give ~625.
  const ids = Array.from({ length: 20_000 }, () => newId(16));
  for (const id of ids) assert.match(id, /^[A-Za-z0-9][A-Za-z0-9_-]{21}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.match(newId(12), /^[A-Za-z0-9][A-Za-z0-9_-]{15}$/);
});
