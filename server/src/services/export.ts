// Downloads: the uploaded file as it came, or the stored plot written back as PlotViz XML.
import type { Response } from 'express';
import { writePviz, type ExportFrame } from '../formats/export.ts';
import { notFound } from '../http/errors.ts';
import { BlobStore, frameBlobName, plotBlobName } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';

export class Exporter {
  constructor(private readonly blobs: BlobStore) {}

  async original(doc: PlotDoc, res: Response): Promise<void> {
    const file = await this.blobs.find(plotBlobName(doc._id, 'original'));
    if (!file) throw notFound('original file');
    res.attachment(doc.originalName);
    res.setHeader('Content-Length', file.length);
    this.blobs.open(file).on('error', () => res.destroy()).pipe(res);
  }

  async pviz(doc: PlotDoc, res: Response): Promise<void> {
    const base = safeFileName(doc.name);
    res.attachment(doc.frames > 1 ? `${base}.zip` : `${base}.pviz`);
    await writePviz({ title: doc.name, clusters: doc.clusters, frames: this.frames(doc) }, res);
  }

  /** Frames one at a time, so a long time series is never all in memory. */
  private async *frames(doc: PlotDoc): AsyncGenerator<ExportFrame> {
    for (const info of doc.frameList) {
      const read = async (kind: 'positions' | 'clusters' | 'labels' | 'edges') => {
        const file = await this.blobs.find(frameBlobName(doc._id, info.index, kind));
        if (!file) throw notFound('frame data');
        return this.blobs.readAll(file);
      };
      const positions = await read('positions');
      const clusters = await read('clusters');
      yield {
        title: info.title,
        positions: new Float32Array(positions.buffer, positions.byteOffset, positions.byteLength / 4),
        clusterKeys: new Uint32Array(clusters.buffer, clusters.byteOffset, clusters.byteLength / 4),
        labels: JSON.parse((await read('labels')).toString('utf8')),
        edges: JSON.parse((await read('edges')).toString('utf8')),
      };
    }
  }
}

const safeFileName = (name: string) => name.replace(/[^\w.-]+/g, '_').slice(0, 80) || 'plot';
