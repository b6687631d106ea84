// Binary point data as chunked documents, one immutable blob per (plot, frame, kind).
//
// Not GridFS: GridFS reads chunks with find({files_id}), which FerretDB answers by
// scanning every chunk of every file (reads slowed linearly with the data stored).
// Here every lookup is by _id, which MongoDB and FerretDB both answer directly.
// A blob's metadata is written after all its chunks, so a blob is either whole or absent.
// A replacement is journalled until the old version's chunks are gone: whatever a crash cuts
// short, the sweep deletes the version that is not current (sweepReplacements).
// Names are built from ids the server generated, never from user input.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Binary, type Collection, type Db } from 'mongodb';
import { BlobDirectory } from './blob-directory.ts';
import { Recent } from './recent.ts';

export type FrameBlobKind = 'positions' | 'clusters' | 'labels' | 'edges';
export type PlotBlobKind = 'original' | 'thumbnail';

export function frameBlobName(plotId: string, frame: number, kind: FrameBlobKind): string {
  return `${plotId}/frames/${frame}/${kind}`;
}
/** A metadata column's values in one frame (`column`: its index in the plot's column list). */
export function columnBlobName(plotId: string, frame: number, column: number): string {
  return `${plotId}/frames/${frame}/columns/${column}`;
}
export function plotBlobName(plotId: string, kind: PlotBlobKind): string {
  return `${plotId}/${kind}`;
}

const CHUNK_BYTES = 4 * 1024 * 1024; // well under the 16 MB document limit
const CACHE_BYTES = 256 * 1024 * 1024;
const CACHE_ENTRY_MAX_BYTES = 64 * 1024 * 1024;
// A blob's current version is looked up on every read of it; remembered this long (see Recent).
// Replacing a blob in another process leaves this one serving the old version until then.
const META_CACHE_MS = 1_000;

export interface BlobInfo {
  _id: string; // the blob name
  plotId: string;
  version: string; // changes when the blob is replaced: the HTTP ETag
  length: number;
  chunks: number;
  contentType: string;
  uploadedAt: Date;
}

interface ChunkDoc {
  _id: string; // `${name}@${version}/${n}`
  data: Binary;
}

/** A replacement under way: the version being written, and the one it replaces until that one's chunks are deleted. */
interface ReplacementDoc {
  _id: string; // `${name}@${version}`
  name: string;
  version: string;
  previous: { version: string; chunks: number };
  startedAt: Date;
}

/** A version that a newer one replaced, whose chunks are still stored until `discard`. */
export interface ReplacedBlob {
  info: BlobInfo;
  /** The journal entry (ReplacementDoc) that discard closes. */
  replacement: string;
}

const chunkId = (info: Pick<BlobInfo, '_id' | 'version'>, n: number) => `${info._id}@${info.version}/${n}`;

/**
 * Recently read blobs, least recently used dropped first. Blobs never change
 * under a (name, version), so a cached copy is never stale; concurrent readers
 * of one blob share a single read of the store.
 */
class BlobCache {
  private readonly entries = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // re-insert: Map order is the recency order
      this.entries.set(key, hit);
      return hit;
    }
    const loading = load();
    this.entries.set(key, loading);
    loading.then(
      (buffer) => this.admit(key, buffer.length),
      () => this.entries.delete(key),
    );
    return loading;
  }

  private admit(key: string, size: number): void {
    if (!this.entries.has(key)) return;
    this.sizes.set(key, size);
    this.bytes += size;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= this.sizes.get(oldest) ?? 0;
      this.sizes.delete(oldest);
    }
  }
}

export class BlobStore {
  readonly meta: Collection<BlobInfo>;
  private readonly chunks: Collection<ChunkDoc>;
  private readonly replacements: Collection<ReplacementDoc>;
  private readonly cache = new BlobCache(CACHE_BYTES);
  private readonly current = new Recent<BlobInfo>(META_CACHE_MS);
  /** Each plot's blob names, so deletePlot looks them up by _id (blob-directory.ts). */
  private readonly directory: BlobDirectory;

  constructor(db: Db) {
    this.meta = db.collection<BlobInfo>('blobs');
    this.chunks = db.collection<ChunkDoc>('blob_chunks');
    this.replacements = db.collection<ReplacementDoc>('blob_replacements');
    this.directory = new BlobDirectory(db);
  }

  async createIndexes(): Promise<void> {
    await this.meta.createIndex({ plotId: 1 }); // MongoDB's (compose) for plots stored before the directory; FerretDB scans
  }

  /** A new plot, before any blob of it is written: from now on its blobs are listed (deletePlot). */
  startPlot(plotId: string): Promise<void> {
    return this.directory.start(plotId);
  }

  async putBuffer(plotId: string, name: string, data: Uint8Array, contentType: string): Promise<void> {
    const previous = await this.replaceBuffer(plotId, name, data, contentType);
    if (previous) await this.discard(previous);
  }

  /**
   * Replaces a blob like putBuffer but leaves the old version's chunks to `discard` later:
   * an edit that replaces many blobs (a cluster over every frame) deletes after replying.
   */
  async replaceBuffer(plotId: string, name: string, data: Uint8Array, contentType: string): Promise<ReplacedBlob | null> {
    return (await this.put(plotId, name, contentType, [Buffer.from(data.buffer, data.byteOffset, data.byteLength)])).previous;
  }

  /** Deletes the chunks of a version no longer current (from replaceBuffer), then its journal entry. */
  async discard(previous: ReplacedBlob): Promise<void> {
    await this.deleteChunks(previous.info);
    await this.replacements.deleteOne({ _id: previous.replacement });
  }

  /**
   * Finishes the replacements started over `ageMs` ago that a crash cut short: of the new version
   * and the old, the one not current loses its chunks (both, when a third version or none is
   * current). No replacement takes that long: blobs replaced whole are a plot's small ones
   * (cluster keys, thumbnail, tree, selection). The number finished.
   */
  async sweepReplacements(ageMs: number): Promise<number> {
    const stale = await this.replacements.find({ startedAt: { $lt: new Date(Date.now() - ageMs) } }).toArray();
    for (const { _id, name, version, previous } of stale) {
      const current = (await this.meta.findOne({ _id: name }, { projection: { version: 1 } }))?.version;
      if (current !== version) await this.deleteUncounted({ _id: name, version });
      if (current !== previous.version) await this.deleteChunks({ _id: name, ...previous });
      await this.replacements.deleteOne({ _id });
    }
    return stale.length;
  }

  /**
   * Writes blobs that do not exist yet (a plot being ingested): no previous version is looked
   * up, and chunks, then metadata, go in one insertMany each: a multi-frame plot's thousands of
   * small blobs cost a few round trips instead of three each (a 1,000-stock series of 498 frames: 100 s → 7 s).
   */
  async putNew(plotId: string, blobs: { name: string; data: Uint8Array; contentType: string }[]): Promise<void> {
    const infos: BlobInfo[] = [];
    const chunks: ChunkDoc[] = [];
    for (const { name, data, contentType } of blobs) {
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const info: BlobInfo = { _id: name, plotId, version: randomBytes(8).toString('hex'), length: bytes.length, chunks: 0, contentType, uploadedAt: new Date() };
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) chunks.push({ _id: chunkId(info, info.chunks++), data: new Binary(bytes.subarray(at, at + CHUNK_BYTES)) });
      infos.push(info);
    }
    try {
      await this.directory.add(plotId, infos.map((info) => ({ name: info._id, version: info.version })));
      if (chunks.length) await this.chunks.insertMany(chunks);
      if (infos.length) await this.meta.insertMany(infos);
    } catch (err) {
      for (const info of infos) await this.deleteChunks(info);
      throw err;
    }
  }

  /** Stores a file as a blob; its length. */
  async putFile(plotId: string, name: string, filePath: string, contentType: string): Promise<number> {
    const { previous, length } = await this.put(plotId, name, contentType, createReadStream(filePath, { highWaterMark: CHUNK_BYTES }));
    if (previous) await this.discard(previous);
    return length;
  }

  /** Writes the chunks, then the metadata; returns the replaced version, whose chunks the caller removes after, and the length written. */
  private async put(plotId: string, name: string, contentType: string, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<{ previous: ReplacedBlob | null; length: number }> {
    const current = await this.meta.findOne({ _id: name });
    const info: BlobInfo = { _id: name, plotId, version: randomBytes(8).toString('hex'), length: 0, chunks: 0, contentType, uploadedAt: new Date() };
    // A new blob is listed with its version (deletePlot finds what a crash left); a replacement is
    // journalled instead (a directory page per edit of every frame would be too many to read back).
    let previous: ReplacedBlob | null = null;
    if (current) {
      previous = { info: current, replacement: `${name}@${info.version}` };
      await this.replacements.insertOne({ _id: previous.replacement, name, version: info.version, previous: { version: current.version, chunks: current.chunks }, startedAt: new Date() });
    } else {
      await this.directory.add(plotId, [{ name, version: info.version }]);
    }
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (final: boolean) => {
      while (pendingBytes >= CHUNK_BYTES || (final && pendingBytes > 0)) {
        const joined = Buffer.concat(pending, pendingBytes);
        const data = joined.subarray(0, CHUNK_BYTES);
        await this.chunks.insertOne({ _id: chunkId(info, info.chunks++), data: new Binary(data) });
        pending = [joined.subarray(data.length)];
        pendingBytes = joined.length - data.length;
      }
    };
    try {
      for await (const piece of source) {
        pending.push(piece);
        pendingBytes += piece.length;
        info.length += piece.length;
        await flush(false);
      }
      await flush(true);
      await this.meta.replaceOne({ _id: name }, info, { upsert: true });
      this.current.delete(name);
    } catch (err) {
      await this.deleteChunks(info);
      if (previous) await this.replacements.deleteOne({ _id: previous.replacement });
      throw err;
    }
    return { previous, length: info.length };
  }

  find(name: string): Promise<BlobInfo | null> {
    return this.current.get(name, () => this.meta.findOne({ _id: name }));
  }

  /** Streams bytes [start, end) of a blob: from the cache, or one chunk document at a time. */
  open(info: BlobInfo, start = 0, end = info.length): Readable {
    if (info.length > CACHE_ENTRY_MAX_BYTES) return this.streamChunks(info, start, end);
    const whole = this.cached(info);
    return Readable.from((async function* () { yield (await whole).subarray(start, end); })(), { objectMode: false });
  }

  /**
   * Bytes [start, end) of a blob small enough to cache, from the cache; null for a larger one
   * (`open` streams it). A response sends them in one write, without a stream's round trips.
   */
  async cachedSlice(info: BlobInfo, start = 0, end = info.length): Promise<Buffer | null> {
    return info.length > CACHE_ENTRY_MAX_BYTES ? null : (await this.cached(info)).subarray(start, end);
  }

  private streamChunks(info: BlobInfo, start: number, end: number): Readable {
    const chunks = this.chunks;
    async function* bytes() {
      for (let n = Math.floor(start / CHUNK_BYTES); n * CHUNK_BYTES < end; n++) {
        const chunk = await chunks.findOne({ _id: chunkId(info, n) });
        if (!chunk) throw new Error(`blob ${info._id} is missing chunk ${n}`);
        const offset = n * CHUNK_BYTES;
        yield Buffer.from(chunk.data.buffer).subarray(Math.max(0, start - offset), Math.min(CHUNK_BYTES, end - offset));
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  readAll(info: BlobInfo): Promise<Buffer> {
    return info.length > CACHE_ENTRY_MAX_BYTES ? collect(this.streamChunks(info, 0, info.length), info.length) : this.cached(info);
  }

  private cached(info: BlobInfo): Promise<Buffer> {
    return this.cache.get(`${info._id}@${info.version}`, () => collect(this.streamChunks(info, 0, info.length), info.length));
  }

  /**
   * Lists the blobs of plots stored before the directory, by one scan of every blob (once, at
   * start-up, in the background): their deletes and selection lists stop scanning. The number of plots listed.
   */
  listOlderPlots(): Promise<number> {
    return this.directory.listOlder(() => this.meta.find({}, { projection: { _id: 1, plotId: 1 } }));
  }

  /**
   * The plot's blobs whose names start with `prefix` (its named selections): found by name in the
   * directory; for a plot stored before it, by a scan of every blob.
   */
  async withPrefix(plotId: string, prefix: string): Promise<BlobInfo[]> {
    const names = await this.directory.names(plotId);
    if (!names) return this.meta.find({ plotId, _id: { $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` } }).toArray();
    const infos = await Promise.all(names.filter((name) => name.startsWith(prefix)).map((name) => this.meta.findOne({ _id: name })));
    return infos.filter((info) => info !== null);
  }

  /**
   * Deletes every blob of the plot, found by name in the directory, with the chunks of any write
   * a crash cut short (listed by version, but never counted by metadata); a plot stored before the
   * directory (no page 0) by its `plotId`, which FerretDB answers by scanning every blob.
   */
  async deletePlot(plotId: string): Promise<void> {
    const listed = await this.directory.blobs(plotId);
    if (listed) {
      for (const { name, version } of listed) {
        const info = await this.meta.findOneAndDelete({ _id: name });
        if (info) {
          this.current.delete(name);
          await this.deleteChunks(info);
        }
        if (version && version !== info?.version) await this.deleteUncounted({ _id: name, version });
      }
    } else {
      for (const info of await this.meta.find({ plotId }).toArray()) {
        await this.meta.deleteOne({ _id: info._id });
        this.current.delete(info._id);
        await this.deleteChunks(info);
      }
    }
    await this.directory.remove(plotId);
  }

  /** Deletes one blob (a named selection): its metadata first, so it is gone at once, then its chunks. */
  async delete(name: string): Promise<boolean> {
    const info = await this.meta.findOneAndDelete({ _id: name });
    if (!info) return false;
    this.current.delete(name);
    await this.deleteChunks(info);
    return true;
  }

  private async deleteChunks(info: Pick<BlobInfo, '_id' | 'version' | 'chunks'>): Promise<void> {
    for (let n = 0; n < info.chunks; n++) await this.chunks.deleteOne({ _id: chunkId(info, n) });
  }

  /**
   * Deletes the chunks of a version whose metadata was never written (or was replaced): its chunks
   * are written in order from 0, so they end at the first one missing. One round trip when there are none.
   */
  private async deleteUncounted(version: Pick<BlobInfo, '_id' | 'version'>): Promise<void> {
    for (let n = 0; (await this.chunks.deleteOne({ _id: chunkId(version, n) })).deletedCount > 0; n++);
  }
}

async function collect(stream: Readable, length: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts, length);
}
