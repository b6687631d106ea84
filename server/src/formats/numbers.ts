// Decimal coordinates read in place from a line and rounded to Float32, without
// slicing a string per field and without the exact decimal→double conversion
// (those two, not the arithmetic, dominated text parsing).

const MAX_DIGITS = 30;
const MAX_SCALE = 300;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, k) => Number(`1e${k}`)); // correctly rounded
/**
 * The double approximation below is within 2^-47 (relative) of the exact value.
 * When every value within 2^-40 of it rounds to the same Float32, so does the
 * exact value, and so does the correctly rounded double that Number() gives:
 * the result equals Math.fround(Number(text)).
 */
const WINDOW_UP = 1 + 2 ** -40;
const WINDOW_DOWN = 1 - 2 ** -40;

/**
 * Math.fround(Number(text[start, end))) for decimal numbers, computed in place;
 * other spellings (hex, "Infinity", numbers near a Float32 rounding boundary…)
 * go through Number(). NaN when the text is not a number (or is "NaN").
 */
export function parseFloat32(text: string, start: number, end: number): number {
  let i = start;
  let c = text.charCodeAt(i);
  const negative = c === 45; /* - */
  if (negative || c === 43 /* + */) c = text.charCodeAt(++i);
  // Leading zeros count as digits too: a branch-free loop, and the rare number
  // with over MAX_DIGITS digits simply takes the Number() path.
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  while (c >= 48 && c <= 57) {
    mantissa = mantissa * 10 + (c - 48);
    digits++;
    c = text.charCodeAt(++i);
  }
  if (c === 46 /* . */) {
    c = text.charCodeAt(++i);
    const fractionStart = i;
    while (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      c = text.charCodeAt(++i);
    }
    digits += i - fractionStart;
    scale = fractionStart - i;
  }
  if (c === 101 || c === 69 /* e E */) {
    c = text.charCodeAt(++i);
    const negativeExponent = c === 45;
    if (negativeExponent || c === 43) c = text.charCodeAt(++i);
    let exponent = 0;
    let exponentDigits = 0;
    while (c >= 48 && c <= 57 && exponentDigits < 4) {
      exponent = exponent * 10 + (c - 48);
      exponentDigits++;
      c = text.charCodeAt(++i);
    }
    if (exponentDigits === 0) return slowFloat32(text, start, end);
    scale += negativeExponent ? -exponent : exponent;
  }
  if (i !== end || digits === 0 || digits > MAX_DIGITS || scale > MAX_SCALE || scale < -MAX_SCALE) {
    return slowFloat32(text, start, end);
  }
  const magnitude = scale < 0 ? mantissa / POW10[-scale] : mantissa * POW10[scale];
  const value = negative ? -magnitude : magnitude;
  const rounded = Math.fround(value * WINDOW_UP);
  return rounded === Math.fround(value * WINDOW_DOWN) ? rounded : slowFloat32(text, start, end);
}

function slowFloat32(text: string, start: number, end: number): number {
  return Math.fround(Number(text.slice(start, end)));
}

/** The unsigned integer written in text[start, end) (plain digits, at most 15), or -1. */
export function parseIndex(text: string, start: number, end: number): number {
  if (end <= start || end - start > 15) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}
