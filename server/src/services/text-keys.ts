// How the library searches text. FerretDB 1.24 has no collation, so the library sorts on a stored
// key (sortKey, in @wpv/schema) and searches with a regular expression that folds accents.
import { withoutAccents } from '@wpv/schema';

/** Each base letter's accented forms (Latin-1 Supplement and Latin Extended-A/B): "e" → "èéêëēĕėęě…". */
const ACCENTED = (() => {
  const forms = new Map<string, string>();
  for (let code = 0xc0; code <= 0x24f; code++) {
    const char = String.fromCharCode(code);
    const base = withoutAccents(char).toLowerCase();
    if (base !== char.toLowerCase() && /^[a-z]$/.test(base)) forms.set(base, (forms.get(base) ?? '') + char);
  }
  return forms;
})();

/**
 * A case-insensitive regular expression (with the `i` option) that finds `text` with or without
 * accents: "ecla" and "écla" both find "Éclair" and "Eclair".
 */
export function foldedPattern(text: string): string {
  return [...withoutAccents(text).toLowerCase()]
    .map((char) => {
      const forms = ACCENTED.get(char);
      // \p{M}*: a letter stored decomposed (e and a combining accent) matches too.
      return forms ? `[${char}${forms}]\\p{M}*` : char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
}
