// Which format a file is in: content first (ZIP magic, a <plotviz> root), then
// the extension, then a CSV header naming x and y; anything else is text.
import { InputError, type FormatName } from './types.ts';

const PLOTVIZ_ROOT = /^\s*(<\?[\s\S]*?\?>\s*)?(<!--[\s\S]*?-->\s*)*<plotviz[\s>/]/;

const BY_EXTENSION: Record<string, FormatName> = {
  '.pviz': 'pviz',
  '.xml': 'pviz',
  '.zip': 'zip',
  '.csv': 'csv',
};

/**
 * `head`: the first bytes of the file (a few KiB are plenty). Text in UTF-16 or
 * UTF-32 is an InputError (422) asking for UTF-8; `entry` names the ZIP entry
 * in it.
 */
export function detectFormat(originalName: string, head: Buffer, entry?: string): FormatName {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return 'zip';
  checkUtf8(head, entry);
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (PLOTVIZ_ROOT.test(text)) return 'pviz';
  const dot = originalName.lastIndexOf('.');
  const byExtension = dot >= 0 ? BY_EXTENSION[originalName.slice(dot).toLowerCase()] : undefined;
  if (byExtension !== undefined) return byExtension;
  return hasCsvHeader(text) ? 'csv' : 'text';
}

function hasCsvHeader(text: string): boolean {
  const firstLine = text.trimStart().split('\n', 1)[0];
  const names = firstLine.split(',').map((name) => name.trim().replace(/^"|"$/g, '').toLowerCase());
  return names.length >= 2 && names.includes('x') && names.includes('y');
}

/** Throws a 422 asking for UTF-8 when `head` starts text written in UTF-16 or UTF-32. */
export function checkUtf8(head: Buffer, entry?: string): void {
  const encoding = wideEncoding(head);
  if (encoding === null) return;
  const where = entry === undefined ? '' : `${entry}: `;
  throw new InputError('not_utf8', `${where}the file is ${encoding} text; save it as UTF-8`, { file: entry, status: 422 });
}

/** Bytes looked at for the NUL pattern: enough for a few lines. */
const PATTERN_BYTES = 1024;

/**
 * UTF-16 or UTF-32 by the byte-order mark, or else by the NUL bytes every
 * ASCII character gets in them (UTF-16LE "1" is 31 00, UTF-32BE 00 00 00 31);
 * the text formats themselves never hold NUL. Null for anything else.
 */
function wideEncoding(head: Buffer): string | null {
  const starts = (...bytes: number[]) => head.length >= bytes.length && bytes.every((byte, i) => head[i] === byte);
  if (starts(0x00, 0x00, 0xfe, 0xff)) return 'UTF-32 (big-endian)';
  if (starts(0xff, 0xfe, 0x00, 0x00)) return 'UTF-32 (little-endian)';
  if (starts(0xfe, 0xff)) return 'UTF-16 (big-endian)';
  if (starts(0xff, 0xfe)) return 'UTF-16 (little-endian)';
  const length = Math.min(head.length, PATTERN_BYTES) & ~3;
  if (length === 0) return null;
  // Share of NUL bytes at each position modulo 4.
  const nul = [0, 0, 0, 0];
  for (let i = 0; i < length; i++) if (head[i] === 0) nul[i & 3] += 4 / length;
  const mostly = (share: number) => share > 0.5;
  if (mostly(nul[1]) && mostly(nul[2]) && mostly(nul[3]) && !mostly(nul[0])) return 'UTF-32 (little-endian)';
  if (mostly(nul[0]) && mostly(nul[1]) && mostly(nul[2]) && !mostly(nul[3])) return 'UTF-32 (big-endian)';
  if (mostly(nul[1]) && mostly(nul[3]) && !mostly(nul[0])) return 'UTF-16 (little-endian)';
  if (mostly(nul[0]) && mostly(nul[2]) && !mostly(nul[1])) return 'UTF-16 (big-endian)';
  return null;
}
