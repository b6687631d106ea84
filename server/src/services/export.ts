// Downloads: the uploaded file as it came, or the stored plot written back as PlotViz XML.
import type { Response } from 'express';
import { decodeColumn } from '../formats/columns.ts';
import { writePviz } from '../formats/index.ts';
import type { ParsedFrame } from '../formats/types.ts';
import { notFound } from '../http/errors.ts';
import type { FrameInfo, PlotColumn } from '@wpv/schema';
import { BlobStore, columnBlobName, frameBlobName, plotBlobName, type FrameBlobKind } from '../storage/blobs.ts';
import type { PlotDetails, PlotDoc } from '../storage/documents.ts';

export class Exporter {
  constructor(private readonly blobs: BlobStore) {}

  async original(doc: PlotDoc, res: Response): Promise<void> {
    const file = await this.blobs.find(plotBlobName(doc._id, 'original'));
    if (!file) throw notFound('original file');
    res.attachment(doc.originalName);
    res.setHeader('Content-Length', file.length);
    this.blobs.open(file).on('error', () => res.destroy()).pipe(res);
  }

  async pviz(doc: PlotDoc, { clusters, frameList, columns = [] }: PlotDetails, res: Response): Promise<void> {
    const base = safeFileName(doc.name);
    res.attachment(doc.frames > 1 ? `${base}.zip` : `${base}.pviz`);
    await writePviz({ title: doc.name, clusters, frameCount: doc.frames, frames: this.frames(doc._id, frameList, columns) }, res);
  }

  /** Frames one at a time, so a long time series is never all in memory. */
  private async *frames(plotId: string, frameList: FrameInfo[], columnList: PlotColumn[]): AsyncGenerator<ParsedFrame> {
    for (const info of frameList) {
      const readBlob = async (name: string) => {
        const file = await this.blobs.find(name);
        if (!file) throw notFound('frame data');
        return this.blobs.readAll(file);
      };
      const read = (kind: FrameBlobKind) => readBlob(frameBlobName(plotId, info.index, kind));
      const columns = new Map<string, string[]>();
      for (const [n, column] of columnList.entries()) {
        columns.set(column.name, decodeColumn(column, await readBlob(columnBlobName(plotId, info.index, n))));
      }
      const positions = await read('positions');
      const clusters = await read('clusters');
      yield {
        title: info.title,
        positions: new Float32Array(positions.buffer, positions.byteOffset, positions.byteLength / 4),
        clusterKeys: new Uint32Array(clusters.buffer, clusters.byteOffset, clusters.byteLength / 4),
        labels: JSON.parse((await read('labels')).toString('utf8')),
        edges: JSON.parse((await read('edges')).toString('utf8')),
        columns,
      };
    }
  }
}

const safeFileName = (name: string) => name.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'plot';
