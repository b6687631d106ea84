// Names of plots and jobs: what a user may type, and the room the server has when it makes one up.
import { z } from 'zod';

export const NAME_MAX = 200;
// Control characters (NUL, tab, newline, escapes) never show as part of a name: a typed name with
// one is refused (plots, jobs, collections, tokens), a name made from a file name or a
// file's title has them dropped.
export const NO_CONTROL_CHARACTERS = [/^\P{Cc}*$/u, 'no control characters (NUL, tab, newline…)'] as const;
export const Name = z
  .string()
  .trim()
  .min(1)
  .max(NAME_MAX)
  .regex(...NO_CONTROL_CHARACTERS);

/** A name made from a file name or a title found in a file: without control characters, clipped to NAME_MAX with an ellipsis. */
export function nameFrom(text: string): string {
  const clean = text.replace(/\p{Cc}+/gu, ' ').trim();
  if (clean.length <= NAME_MAX) return clean;
  // Clipped in UTF-16 units, as Name counts them, without splitting a surrogate pair.
  return `${clean.slice(0, NAME_MAX - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}
