// Decimal coordinates read in place from the file's bytes and rounded to
// Float32, without a string per field and without the exact decimal→double
// conversion (those two, not the arithmetic, dominated parsing).
import { utf8 } from './chunks.ts';

const MAX_DIGITS = 30;
const MAX_SCALE = 300;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, k) => Number(`1e${k}`)); // correctly rounded
/**
 * Exact case: a mantissa below 2^53 and a power of ten up to 1e22 are both
 * exact doubles, so their one product or quotient is the correctly rounded
 * double, which is what Number() gives; its fround is the answer.
 */
const EXACT_MANTISSA = 2 ** 53;
const EXACT_SCALE = 22;
/**
 * Otherwise the double approximation below is within 2^-47 (relative) of the exact value.
 * When every value within 2^-40 of it rounds to the same Float32, so does the
 * exact value, and so does the correctly rounded double that Number() gives:
 * the result equals Math.fround(Number(text)).
 */
const WINDOW_UP = 1 + 2 ** -40;
const WINDOW_DOWN = 1 - 2 ** -40;

/** Where the last scanFloat32 or scanIndex call stopped reading. */
export let scanEnd = 0;

/**
 * Reads the decimal number starting at bytes[start] (up to `end`, or the first
 * byte that cannot continue it, which is left in scanEnd) and returns it as
 * Math.fround(Number(text)); NaN when that needs Number() itself: no digits,
 * more than MAX_DIGITS, a huge exponent, or a value near a Float32 rounding
 * boundary.
 */
export function scanFloat32(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let c = i < end ? bytes[i] : 0;
  const negative = c === 45; /* - */
  if (negative || c === 43 /* + */) c = ++i < end ? bytes[i] : 0;
  // Leading zeros count as digits too: a branch-free loop, and the rare number
  // with over MAX_DIGITS digits simply takes the Number() path.
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  while (c >= 48 && c <= 57) {
    mantissa = mantissa * 10 + (c - 48);
    digits++;
    c = ++i < end ? bytes[i] : 0;
  }
  if (c === 46 /* . */) {
    c = ++i < end ? bytes[i] : 0;
    const fractionStart = i;
    while (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      c = ++i < end ? bytes[i] : 0;
    }
    digits += i - fractionStart;
    scale = fractionStart - i;
  }
  if (c === 101 || c === 69 /* e E */) {
    c = ++i < end ? bytes[i] : 0;
    const negativeExponent = c === 45;
    if (negativeExponent || c === 43) c = ++i < end ? bytes[i] : 0;
    let exponent = 0;
    let exponentDigits = 0;
    while (c >= 48 && c <= 57 && exponentDigits < 4) {
      exponent = exponent * 10 + (c - 48);
      exponentDigits++;
      c = ++i < end ? bytes[i] : 0;
    }
    if (exponentDigits === 0) return NaN;
    scale += negativeExponent ? -exponent : exponent;
  }
  scanEnd = i;
  if (digits === 0 || digits > MAX_DIGITS || scale > MAX_SCALE || scale < -MAX_SCALE) return NaN;
  const magnitude = scale < 0 ? mantissa / POW10[-scale] : mantissa * POW10[scale];
  const value = negative ? -magnitude : magnitude;
  // Mantissas grow with every digit, so one below 2^53 was exact at every step.
  if (mantissa < EXACT_MANTISSA && scale >= -EXACT_SCALE && scale <= EXACT_SCALE) return Math.fround(value);
  const rounded = Math.fround(value * WINDOW_UP);
  return rounded === Math.fround(value * WINDOW_DOWN) ? rounded : NaN;
}

/**
 * Math.fround(Number(text)) for the UTF-8 text bytes[start, end): computed in
 * place for decimal numbers, through Number() for other spellings (hex,
 * "Infinity"…) and the rare value scanFloat32 leaves to it. NaN when the text
 * is not a number (or is "NaN").
 */
export function parseFloat32(bytes: Buffer, start: number, end: number): number {
  const value = scanFloat32(bytes, start, end);
  return value === value && scanEnd === end ? value : slowFloat32(bytes, start, end);
}

function slowFloat32(bytes: Buffer, start: number, end: number): number {
  return Math.fround(Number(utf8(bytes, start, end)));
}

/** Reused by parseFloat32Text: short ASCII strings are copied here and read as bytes. */
const scratch = Buffer.alloc(64);

/** parseFloat32 for text already held as a string (CSV fields, entity-decoded XML values). */
export function parseFloat32Text(text: string): number {
  if (text.length > scratch.length) return Math.fround(Number(text));
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return Math.fround(Number(text));
    scratch[i] = c;
  }
  return parseFloat32(scratch, 0, text.length);
}

/**
 * Reads the unsigned integer starting at bytes[start] (plain digits, at most
 * 15, up to `end` or the first other byte, left in scanEnd); -1 when there is none.
 */
export function scanIndex(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  let value = 0;
  let c = i < end ? bytes[i] : 0;
  while (c >= 48 && c <= 57) {
    value = value * 10 + (c - 48);
    c = ++i < end ? bytes[i] : 0;
  }
  scanEnd = i;
  return i === start || i - start > 15 ? -1 : value;
}

/** The unsigned integer written in bytes[start, end) (plain digits, at most 15), or -1. */
export function parseIndex(bytes: Uint8Array, start: number, end: number): number {
  const value = scanIndex(bytes, start, end);
  return scanEnd === end ? value : -1;
}
