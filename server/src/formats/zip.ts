// Time-series ZIP: one frame per PlotViz XML, text or CSV entry, in the order
// of an optional "*.index" entry (time-series-index.ts; its "# title:" line
// names the plot), else in natural order of the names ("f2" before "f10").
// Directories, "__MACOSX/" and dot files are skipped. Entry paths with ".." or
// absolute paths are rejected.
// ZIP bombs: the inflated bytes are counted while inflating (headers are not
// trusted) against maxUncompressedBytes (all entries together) and
// maxCompressionRatio (per entry and overall, once past 1 MiB so that tiny
// entries of repeated characters pass).
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import type { Readable } from 'node:stream';
import { assemblePlot } from './assemble.ts';
import { untilAborted } from './chunks.ts';
import { checkUtf8, detectFormat } from './detect.ts';
import { FRAME_READERS } from './frame-readers.ts';
import { quoted, titleFromName, type FrameRead } from './reader.ts';
import { indexTitle, isIndexName } from './time-series-index.ts';
import { InputError, type FormatParser, type ParseLimits, type ParsedPlot } from './types.ts';

const RATIO_FLOOR_BYTES = 1 << 20;
/** Entries listed at most, per allowed frame (an index may leave some out), to bound the listing. */
const ENTRIES_PER_FRAME = 10;
const MAX_INDEX_BYTES = 1 << 20;
const naturalOrder = new Intl.Collator('en', { numeric: true }).compare;

export const zipParser: FormatParser = {
  name: 'zip',
  async parse(path: string, originalName: string, limits: ParseLimits, signal?: AbortSignal): Promise<ParsedPlot> {
    const zip = await openZip(path);
    try {
      const entries = await listEntries(zip, limits);
      const indexEntries = entries.filter((entry) => entry.fileName.toLowerCase().endsWith('.index'));
      if (indexEntries.length > 1) {
        throw new InputError('bad_index', `the archive has ${indexEntries.length} .index files; at most one is allowed`);
      }
      const frameEntries = entries.filter((entry) => !indexEntries.includes(entry));
      const budget: InflateBudget = { limits, inflated: 0, compressed: 0 };
      const warnings: string[] = [];
      let ordered: Entry[];
      let title = titleFromName(originalName);
      if (indexEntries.length === 1) {
        const names = await readIndex(zip, indexEntries[0], budget);
        title = indexTitle(names) ?? title;
        ordered = orderByIndex(frameEntries, names, indexEntries[0].fileName);
        const unlisted = frameEntries.length - ordered.length;
        if (unlisted > 0) warnings.push(`${unlisted} archive entries not listed in ${indexEntries[0].fileName} were ignored`);
      } else {
        ordered = frameEntries.sort((a, b) => naturalOrder(a.fileName, b.fileName));
      }
      if (ordered.length === 0) throw new InputError('no_frames', 'the archive contains no plot files');
      if (ordered.length > limits.maxFrames) {
        throw new InputError('too_many_frames', `the archive has ${ordered.length} frames; at most ${limits.maxFrames} are allowed`, {
          status: 413,
        });
      }
      const clusterNames = new Map<string, number>();
      const reads: FrameRead[] = [];
      for (const entry of ordered) reads.push(await readFrame(zip, entry, budget, clusterNames, signal));
      const plot = assemblePlot(title, reads);
      plot.warnings.push(...warnings);
      return plot;
    } finally {
      zip.close();
    }
  },
};

interface InflateBudget {
  limits: ParseLimits;
  inflated: number; // bytes inflated so far, all entries
  compressed: number; // compressed bytes of the entries opened so far
}

async function readFrame(zip: ZipFile, entry: Entry, budget: InflateBudget, clusterNames: Map<string, number>, signal?: AbortSignal): Promise<FrameRead> {
  signal?.throwIfAborted();
  const guarded = guardedChunks(await openEntry(zip, entry), entry, budget);
  const chunks = (signal ? untilAborted(guarded, signal) : guarded)[Symbol.asyncIterator]();
  try {
    const first = await chunks.next();
    const head: Buffer = first.done ? Buffer.alloc(0) : first.value;
    const format = detectFormat(entry.fileName, head, entry.fileName);
    if (format === 'zip') {
      throw new InputError('bad_zip_entry', `${entry.fileName}: archives inside the archive are not read`, { file: entry.fileName });
    }
    async function* all(): AsyncGenerator<Buffer> {
      if (!first.done) yield head;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
    }
    return await FRAME_READERS[format]({ chunks: all(), name: entry.fileName, entry: entry.fileName, limits: budget.limits, clusterNames });
  } finally {
    await chunks.return?.(undefined); // a reader that stopped early (or never started): close the entry stream
  }
}

/** The entry's inflated bytes, counted against the budget as they come. */
async function* guardedChunks(stream: Readable, entry: Entry, budget: InflateBudget): AsyncGenerator<Buffer> {
  const { maxUncompressedBytes, maxCompressionRatio } = budget.limits;
  budget.compressed += entry.compressedSize;
  let inflated = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      budget.inflated += chunk.length;
      if (budget.inflated > maxUncompressedBytes) {
        throw new InputError('zip_too_large', `the archive inflates to more than ${maxUncompressedBytes} bytes`, {
          file: entry.fileName,
          status: 413,
        });
      }
      const entryBomb = inflated > RATIO_FLOOR_BYTES && inflated > Math.max(1, entry.compressedSize) * maxCompressionRatio;
      const overallBomb = budget.inflated > RATIO_FLOOR_BYTES && budget.inflated > Math.max(1, budget.compressed) * maxCompressionRatio;
      if (entryBomb || overallBomb) {
        throw new InputError('zip_bomb', `${entry.fileName} inflates more than ${maxCompressionRatio} times its compressed size`, {
          file: entry.fileName,
          status: 413,
        });
      }
      yield chunk;
    }
  } catch (error) {
    // inflate failures and entry size mismatches (yauzl checks the header sizes too)
    throw error instanceof InputError ? error : zipError(error as Error, entry.fileName);
  }
}

async function readIndex(zip: ZipFile, entry: Entry, budget: InflateBudget): Promise<string[]> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of guardedChunks(await openEntry(zip, entry), entry, budget)) {
    size += chunk.length;
    if (size > MAX_INDEX_BYTES) throw new InputError('bad_index', `${entry.fileName} is larger than ${MAX_INDEX_BYTES} bytes`, { file: entry.fileName });
    parts.push(chunk);
  }
  const bytes = Buffer.concat(parts);
  checkUtf8(bytes, entry.fileName);
  return bytes.toString('utf8').replace(/^\uFEFF/, '').split(/\r?\n/).map((line) => line.trim());
}

/** The entries named by the index lines, in that order. */
function orderByIndex(entries: Entry[], lines: string[], indexName: string): Entry[] {
  const byName = new Map(entries.map((entry) => [entry.fileName, entry]));
  const byBaseName = new Map<string, Entry[]>();
  for (const entry of entries) {
    const base = entry.fileName.slice(entry.fileName.lastIndexOf('/') + 1);
    byBaseName.set(base, [...(byBaseName.get(base) ?? []), entry]);
  }
  const ordered: Entry[] = [];
  lines.forEach((name, i) => {
    if (!isIndexName(name)) return;
    const fail = (message: string) => new InputError('bad_index', `${indexName}: line ${i + 1}: ${message}`, { line: i + 1, file: indexName });
    const candidates = byName.has(name) ? [byName.get(name)!] : (byBaseName.get(name) ?? []);
    if (candidates.length === 0) throw fail(`${quoted(name)} is not an entry of the archive`);
    if (candidates.length > 1) throw fail(`${quoted(name)} matches several entries; give the full path`);
    if (ordered.includes(candidates[0])) throw fail(`${quoted(name)} is listed twice`);
    ordered.push(candidates[0]);
  });
  return ordered;
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error) reject(new InputError('bad_zip', `not a readable ZIP archive: ${error.message}`));
      else resolve(zip);
    });
  });
}

/** Every file entry (directories and system files skipped), checking names and declared sizes. */
function listEntries(zip: ZipFile, limits: ParseLimits): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    let declared = 0;
    zip.on('entry', (entry: Entry) => {
      const name = entry.fileName;
      const base = name.slice(name.lastIndexOf('/') + 1);
      if (!name.endsWith('/') && !name.startsWith('__MACOSX/') && !base.startsWith('.')) {
        entries.push(entry);
        declared += entry.uncompressedSize;
      }
      if (declared > limits.maxUncompressedBytes) {
        reject(new InputError('zip_too_large', `the archive declares more than ${limits.maxUncompressedBytes} uncompressed bytes`, { status: 413 }));
        return;
      }
      const maxEntries = limits.maxFrames * ENTRIES_PER_FRAME + 1;
      if (entries.length > maxEntries) {
        reject(new InputError('too_many_frames', `the archive has more than ${maxEntries} files`, { status: 413 }));
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (error: Error) => reject(zipError(error)));
    zip.readEntry();
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(zipError(error, entry.fileName));
      else resolve(stream);
    });
  });
}

/** yauzl's complaints about entry names (see its validateFileName) become path errors. */
function zipError(error: Error, file?: string): InputError {
  const path = /^(absolute path|invalid relative path|invalid characters in fileName): (.*)$/.exec(error.message);
  if (path) return new InputError('zip_path', `archive entry ${quoted(path[2])} has an unsafe path (${path[1]})`, { file: path[2] });
  return new InputError('bad_zip', `unreadable ZIP archive: ${error.message}`, { file });
}
