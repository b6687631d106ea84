// Binary point data as chunked documents, one immutable blob per (plot, frame, kind).
//
// Not GridFS: GridFS reads chunks with find({files_id}), which FerretDB answers by
// scanning every chunk of every file (reads slowed linearly with the data stored).
// Here every lookup is by _id, which MongoDB and FerretDB both answer directly.
// A blob's metadata is written after all its chunks, so a blob is either whole or absent.
// Names are built from ids the server generated, never from user input.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { Binary, type Collection, type Db } from 'mongodb';

export type FrameBlobKind = 'positions' | 'clusters' | 'labels' | 'edges';
export type PlotBlobKind = 'original' | 'thumbnail';

export function frameBlobName(plotId: string, frame: number, kind: FrameBlobKind): string {
  return `${plotId}/frames/${frame}/${kind}`;
}
export function plotBlobName(plotId: string, kind: PlotBlobKind): string {
  return `${plotId}/${kind}`;
}

const CHUNK_BYTES = 4 * 1024 * 1024; // well under the 16 MB document limit

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

const chunkId = (info: Pick<BlobInfo, '_id' | 'version'>, n: number) => `${info._id}@${info.version}/${n}`;

export class BlobStore {
  readonly meta: Collection<BlobInfo>;
  private readonly chunks: Collection<ChunkDoc>;

  constructor(db: Db) {
    this.meta = db.collection<BlobInfo>('blobs');
    this.chunks = db.collection<ChunkDoc>('blob_chunks');
  }

  async createIndexes(): Promise<void> {
    await this.meta.createIndex({ plotId: 1 });
  }

  async putBuffer(plotId: string, name: string, data: Uint8Array, contentType: string): Promise<void> {
    await this.put(plotId, name, contentType, [Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  }

  async putFile(plotId: string, name: string, filePath: string, contentType: string): Promise<void> {
    await this.put(plotId, name, contentType, createReadStream(filePath, { highWaterMark: CHUNK_BYTES }));
  }

  /** Writes the chunks, then the metadata; replacing a blob removes the old chunks after. */
  private async put(plotId: string, name: string, contentType: string, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    const previous = await this.meta.findOne({ _id: name });
    const info: BlobInfo = { _id: name, plotId, version: randomBytes(8).toString('hex'), length: 0, chunks: 0, contentType, uploadedAt: new Date() };
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
    } catch (err) {
      await this.deleteChunks(info);
      throw err;
    }
    if (previous) await this.deleteChunks(previous);
  }

  find(name: string): Promise<BlobInfo | null> {
    return this.meta.findOne({ _id: name });
  }

  /** Streams bytes [start, end) of a blob, one chunk document at a time. */
  open(info: BlobInfo, start = 0, end = info.length): Readable {
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

  async readAll(info: BlobInfo): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this.open(info)) parts.push(part as Buffer);
    return Buffer.concat(parts, info.length);
  }

  async deletePlot(plotId: string): Promise<void> {
    for (const info of await this.meta.find({ plotId }).toArray()) {
      await this.meta.deleteOne({ _id: info._id });
      await this.deleteChunks(info);
    }
  }

  private async deleteChunks(info: Pick<BlobInfo, '_id' | 'version' | 'chunks'>): Promise<void> {
    for (let n = 0; n < info.chunks; n++) await this.chunks.deleteOne({ _id: chunkId(info, n) });
  }
}
