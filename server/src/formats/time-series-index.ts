// The "*.index" entry of a time-series ZIP: one entry name per line, in frame
// order; blank lines and lines starting with "#" are not names. Exports start it
// with a "# title: …" line so that the plot's title travels with the archive.
const TITLE_LINE = /^#\s*title:\s*(.*\S)\s*$/i;

export function formatIndex(title: string, entryNames: string[]): string {
  const heading = title.trim() ? [`# title: ${title.replace(/\s+/g, ' ').trim()}`] : [];
  return [...heading, ...entryNames].join('\n') + '\n';
}

/** The title from the first "# title:" line, if there is one. */
export function indexTitle(lines: string[]): string | undefined {
  for (const line of lines) {
    const match = TITLE_LINE.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

export function isIndexName(line: string): boolean {
  return line.length > 0 && !line.startsWith('#');
}
