// How names compare without a collation (FerretDB 1.24 has none): one rule for the server (the
// library's stored sort key, collection names that must differ) and the browser (lists it re-sorts).

/** Decimal digit runs are padded to this many digits, so numbers compare by value ("2" before "10"). */
const DIGITS = 12;

/** Without accents: "Éclair" → "Eclair" (canonical decomposition, then the combining marks dropped). */
export const withoutAccents = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '');

/**
 * The key names sort by: case- and accent-insensitive ("Éclair" among the e's, "fungi"
 * between "Clustered" and "Stock") and natural ("2 samples" before "10 samples").
 */
export function sortKey(name: string): string {
  return withoutAccents(name).toLowerCase().replace(/\d+/g, (digits) => digits.padStart(DIGITS, '0'));
}

/**
 * The key under which two names are one: case, accents and runs of white space do not count
 * ("Éclair  Runs" and "eclair runs"), digits do ("Run 2" and "Run 02" are two names).
 */
export function nameKey(name: string): string {
  return withoutAccents(name).toLowerCase().trim().replace(/\s+/g, ' ');
}

/** Orders names as the library lists them: by sortKey, then code unit by code unit ("Legacy" before "legacy"). */
export function compareNames(a: string, b: string): number {
  const [ka, kb] = [sortKey(a), sortKey(b)];
  return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}
