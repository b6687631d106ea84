// Binary point data in GridFS, one immutable file per (plot, frame, kind).
// Names are built here from ids the server generated, never from user input.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import type { GridFSBucket, GridFSFile } from 'mongodb';

export type FrameBlobKind = 'positions' | 'clusters' | 'labels' | 'edges';
export type PlotBlobKind = 'original' | 'thumbnail';

export function frameBlobName(plotId: string, frame: number, kind: FrameBlobKind): string {
  return `${plotId}/frames/${frame}/${kind}`;
}
export function plotBlobName(plotId: string, kind: PlotBlobKind): string {
  return `${plotId}/${kind}`;
}

export class BlobStore {
  constructor(private readonly bucket: GridFSBucket) {}

  async putBuffer(plotId: string, name: string, data: Uint8Array, contentType: string): Promise<void> {
    const upload = this.bucket.openUploadStream(name, { metadata: { plotId, contentType } });
    await pipeline(Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]), upload);
  }

  async putFile(plotId: string, name: string, filePath: string, contentType: string): Promise<void> {
    const upload = this.bucket.openUploadStream(name, { metadata: { plotId, contentType } });
    await pipeline(createReadStream(filePath), upload);
  }

  async find(name: string): Promise<GridFSFile | null> {
    // Newest first: a replaced thumbnail leaves no stale read behind while the old one is removed.
    const [file] = await this.bucket.find({ filename: name }).sort({ uploadDate: -1 }).limit(1).toArray();
    return file ?? null;
  }

  /** Streams bytes [start, end) of a file. */
  open(file: GridFSFile, start = 0, end = file.length): Readable {
    return this.bucket.openDownloadStream(file._id, { start, end });
  }

  async readAll(file: GridFSFile): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.open(file)) parts.push(chunk as Buffer);
    return Buffer.concat(parts, file.length);
  }

  async deleteByName(name: string, keepNewest = false): Promise<void> {
    const files = await this.bucket.find({ filename: name }).sort({ uploadDate: -1 }).toArray();
    for (const file of keepNewest ? files.slice(1) : files) await this.bucket.delete(file._id);
  }

  async deletePlot(plotId: string): Promise<void> {
    const files = await this.bucket.find({ 'metadata.plotId': plotId }).toArray();
    for (const file of files) await this.bucket.delete(file._id);
  }
}
