// Decimal numbers read in place from a line, without slicing a string per field
// (the slices, not the arithmetic, dominated text parsing through garbage collection).

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k); // exact doubles up to 1e22
const MAX_EXACT_DIGITS = 15; // an integer of 15 digits is exact in a double

/**
 * The number written in text[start, end). Plain decimals with at most 15
 * significant digits and a small exponent take the exact fast path (one
 * correctly rounded multiplication or division of exact values, as in
 * Clinger's algorithm); anything else goes through Number(). Returns NaN for
 * text that is not a number (and for "NaN").
 */
export function parseNumber(text: string, start: number, end: number): number {
  let i = start;
  let c = text.charCodeAt(i);
  const negative = c === 45; /* - */
  if (negative || c === 43 /* + */) c = text.charCodeAt(++i);
  let mantissa = 0;
  let digits = 0;
  let scale = 0;
  let seenDigit = false;
  while (c >= 48 && c <= 57) {
    seenDigit = true;
    if (mantissa !== 0 || c !== 48) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
    }
    c = text.charCodeAt(++i);
  }
  if (c === 46 /* . */) {
    c = text.charCodeAt(++i);
    while (c >= 48 && c <= 57) {
      seenDigit = true;
      if (mantissa !== 0 || c !== 48) {
        mantissa = mantissa * 10 + (c - 48);
        digits++;
      }
      scale--;
      c = text.charCodeAt(++i);
    }
  }
  if (c === 101 || c === 69 /* e E */) {
    c = text.charCodeAt(++i);
    const negativeExponent = c === 45;
    if (negativeExponent || c === 43) c = text.charCodeAt(++i);
    let exponent = 0;
    let exponentDigits = 0;
    while (c >= 48 && c <= 57 && exponentDigits < 6) {
      exponent = exponent * 10 + (c - 48);
      exponentDigits++;
      c = text.charCodeAt(++i);
    }
    if (exponentDigits === 0) return Number(text.slice(start, end));
    scale += negativeExponent ? -exponent : exponent;
  }
  if (i !== end || !seenDigit || digits > MAX_EXACT_DIGITS || scale > 22 || scale < -22) {
    return Number(text.slice(start, end));
  }
  const magnitude = scale < 0 ? mantissa / POW10[-scale] : mantissa * POW10[scale];
  return negative ? -magnitude : magnitude;
}
