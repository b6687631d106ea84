import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFloat32, parseIndex } from '../../src/formats/numbers.ts';

const parse = (text: string) => parseFloat32(text, 0, text.length);
const expected = (text: string) => Math.fround(Number(text));

test('parseFloat32 equals Math.fround(Number(text)) on edge cases', () => {
  const cases = ['0', '-0', '+3', '.5', '5.', '007', '1.5', '-0.26746', '0.030293999239802361', '1e5', '1E-5', '-1.25e-3',
    '12345678901234567890', '0.000000000000000000000000000000000001234', '3.4028234663852886e38', '3.4028236e38', '1e400',
    '1e-45', '7e-46', '1e-46', '16777217', '0.1000000014901161193847656250', 'Infinity', '-Infinity', '0x10'];
  for (const text of cases) assert.ok(Object.is(parse(text), expected(text)), text);
});

test('parseFloat32 gives NaN for text that is not a number', () => {
  for (const text of ['abc', '1.2.3', '1e', '-', '.', 'e5', '1_0', 'NaN']) assert.ok(Number.isNaN(parse(text)), text);
});

test('parseFloat32 equals Math.fround(Number(text)) on random numbers and Float32 midpoints', () => {
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let k = 0; k < 50_000; k++) {
    const v = (random() - 0.5) * 10 ** Math.floor(random() * 80 - 40);
    for (const text of [v.toFixed(6), v.toPrecision(9), String(v), v.toExponential(12), String(Math.fround(v))]) {
      assert.ok(Object.is(parse(text), expected(text)), text);
    }
  }
  // Exactly between two adjacent Float32 values: the hardest case for rounding.
  const f = new Float32Array(1);
  const bits = new Uint32Array(f.buffer);
  for (let k = 0; k < 20_000; k++) {
    bits[0] = Math.floor(random() * 0x7f000000);
    const low = f[0];
    bits[0]++;
    const midpoint = (low + f[0]) / 2;
    for (const text of [midpoint.toPrecision(17), String(midpoint), midpoint.toPrecision(25)]) {
      assert.ok(Object.is(parse(text), expected(text)), text);
    }
  }
});

test('parseFloat32 reads a field in place inside a line', () => {
  const line = 'a 12.5 b';
  assert.equal(parseFloat32(line, 2, 6), 12.5);
});

test('parseIndex reads plain unsigned integers only', () => {
  assert.equal(parseIndex('x 1234 y', 2, 6), 1234);
  for (const text of ['', '-1', '1.0', '1e3', '+1', '1234567890123456']) assert.equal(parseIndex(text, 0, text.length), -1, text);
});
