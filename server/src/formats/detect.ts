// Which format a file is in: content first (ZIP magic, a <plotviz> root), then
// the extension, then a CSV header naming x and y; anything else is text.
import type { FormatName } from './types.ts';

const PLOTVIZ_ROOT = /^\s*(<\?[\s\S]*?\?>\s*)?(<!--[\s\S]*?-->\s*)*<plotviz[\s>/]/;

const BY_EXTENSION: Record<string, FormatName> = {
  '.pviz': 'pviz',
  '.xml': 'pviz',
  '.zip': 'zip',
  '.csv': 'csv',
};

/** `head`: the first bytes of the file (a few KiB are plenty). */
export function detectFormat(originalName: string, head: Buffer): FormatName {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5)) return 'zip';
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
