import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFloat32, parseFloat32Text, parseIndex, scanEnd, scanFloat32, scanIndex } from '../../src/formats/numbers.ts';

/** Every way the parser is reached must give Math.fround(Number(text)), bit for bit (-0 included). */
function assertParses(text: string): void {
  const expected = Math.fround(Number(text));
  const bytes = Buffer.from(`\t${text}\n`);
  assert.ok(Object.is(parseFloat32(bytes, 1, bytes.length - 1), expected), `bytes: ${text}`);
  assert.ok(Object.is(parseFloat32Text(text), expected), `text: ${text}`);
}

/** A pseudo-random generator, so that failures repeat. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

test('parseFloat32 equals Math.fround(Number(text)) on edge cases', () => {
  const cases = ['0', '-0', '+3', '.5', '5.', '-.5', '007', '1.5', '-0.26746', '0.030293999239802361', '1e5', '1E-5', '-1.25e-3',
    '1e+5', '1e0022', '12345678901234567890', '9007199254740993', '0.000000000000000000000000000000000001234',
    '3.4028234663852886e38', '3.4028236e38', '-3.4028236e38', '1e400', '-1e400', '1e-400', '1e-45', '7e-46', '1e-46',
    '-1e-45', '1.401298464324817e-45', '16777217', '0.1000000014901161193847656250', '1e22', '1e23', '4.5e15',
    '123456789012345678901234567890', '1234567890123456789012345678901', '0.' + '0'.repeat(40) + '1', 'Infinity',
    '-Infinity', '0x10', ' 1', '1 ', '00000000000000000000000000000000001.5'];
  for (const text of cases) assertParses(text);
});

test('parseFloat32 gives NaN for text that is not a number', () => {
  for (const text of ['abc', '1.2.3', '1e', '1e+', '-', '+', '.', 'e5', '1_0', 'NaN', 'nan', 'inf', '-inf', '1,5', '--1', '1-']) {
    assert.ok(Number.isNaN(parseFloat32(Buffer.from(text), 0, text.length)), text);
    assert.ok(Number.isNaN(parseFloat32Text(text)), text);
  }
});

test('parseFloat32 equals Math.fround(Number(text)) on random numbers and Float32 midpoints', () => {
  const next = random(42);
  for (let k = 0; k < 50_000; k++) {
    const v = (next() - 0.5) * 10 ** Math.floor(next() * 80 - 40);
    for (const text of [v.toFixed(6), v.toPrecision(9), String(v), v.toExponential(12), String(Math.fround(v))]) assertParses(text);
  }
  // Exactly between two adjacent Float32 values: the hardest case for rounding.
  const f = new Float32Array(1);
  const bits = new Uint32Array(f.buffer);
  for (let k = 0; k < 20_000; k++) {
    bits[0] = Math.floor(next() * 0x7f000000);
    const low = f[0];
    bits[0]++;
    const midpoint = (low + f[0]) / 2;
    for (const text of [midpoint.toPrecision(17), String(midpoint), midpoint.toPrecision(25), String(-midpoint)]) assertParses(text);
  }
});

test('parseFloat32 equals Math.fround(Number(text)) on random digit strings', () => {
  const next = random(7);
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');
  for (let k = 0; k < 100_000; k++) {
    const sign = ['', '-', '+'][Math.floor(next() * 3)];
    const whole = digits(Math.floor(next() * 20));
    const fraction = next() < 0.7 ? `.${digits(Math.floor(next() * 22))}` : '';
    const exponent = next() < 0.3 ? `${next() < 0.5 ? 'e' : 'E'}${['', '-', '+'][Math.floor(next() * 3)]}${Math.floor(next() * 60)}` : '';
    const text = sign + whole + fraction + exponent;
    if (whole.length + fraction.length > 1) assertParses(text);
  }
});

test('scanFloat32 stops at the first byte that cannot continue the number', () => {
  const line = Buffer.from('12.5e1x -7 3');
  assert.equal(scanFloat32(line, 0, line.length), 125);
  assert.equal(scanEnd, 6);
  assert.equal(scanFloat32(line, 8, line.length), -7);
  assert.equal(scanEnd, 10);
  assert.equal(scanFloat32(line, 11, 11), NaN, 'no digits before the end');
  assert.equal(parseFloat32(Buffer.from('a 12.5 b'), 2, 6), 12.5);
  assert.equal(parseFloat32(Buffer.from('12.55'), 0, 4), 12.5, 'the end bound is honoured');
});

test('parseIndex reads plain unsigned integers only; scanIndex stops after the digits', () => {
  assert.equal(parseIndex(Buffer.from('x 1234 y'), 2, 6), 1234);
  assert.equal(parseIndex(Buffer.from('123456789012345'), 0, 15), 123456789012345);
  for (const text of ['', '-1', '1.0', '1e3', '+1', '1234567890123456', ' 1']) {
    assert.equal(parseIndex(Buffer.from(text), 0, text.length), -1, text);
  }
  const bytes = Buffer.from('42 7');
  assert.equal(scanIndex(bytes, 0, bytes.length), 42);
  assert.equal(scanEnd, 2);
  assert.equal(scanIndex(bytes, 2, bytes.length), -1);
});
