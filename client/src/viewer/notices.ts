// How long the viewer's informational notices stay on screen before they go by themselves
// (errors stay until dismissed): long enough to read, so that they do not pile up over the canvas.

/** the shortest time a notice stays */
export const NOTICE_MIN_MS = 6_000;
/** a notice that is not plain text (a link to follow) */
export const NOTICE_RICH_MS = 10_000;
/** reading time per word, at a slow reading pace */
const MS_PER_WORD = 400;

/** Milliseconds a notice stays: `text` is its words, null when it holds more than text. */
export function noticeMs(text: string | null): number {
  if (text === null) return NOTICE_RICH_MS;
  const words = text.split(/\s+/).filter(Boolean).length;
  return Math.max(NOTICE_MIN_MS, 1_000 + words * MS_PER_WORD);
}
