import { Router, type Request, type Response } from 'express';
import express from 'express';
import { ClusterCreate, ClusterUndo, ExportQuery, PlotPatch, PlotQuery, PlotUploadFields, ReclusterRequest, SavedView, SearchQuery } from '@wpv/schema';
import { z } from 'zod';
import { requireUser, userOf } from '../http/auth.ts';
import { ApiError, notFound } from '../http/errors.ts';
import { overUploadLimit, receiveUpload, untilClientGone } from '../http/upload.ts';
import { jsonBody } from '../http/body.ts';
import type { Config } from '../config.ts';
import { ClusterEditor } from '../services/clusters.ts';
import { toPlot, type Plots } from '../services/plots.ts';
import { checkThumbnail } from '../services/thumbnails.ts';
import type { Exporter } from '../services/export.ts';
import type { Reclusterer } from '../services/recluster.ts';
import { plotBlobName, type BlobInfo, type BlobStore, type FrameBlobKind } from '../storage/blobs.ts';

const FRAME_KINDS: Record<string, { kind: FrameBlobKind; type: string }> = {
  positions: { kind: 'positions', type: 'application/octet-stream' },
  clusters: { kind: 'clusters', type: 'application/octet-stream' },
  labels: { kind: 'labels', type: 'application/json' },
  edges: { kind: 'edges', type: 'application/json' },
};
const MAX_SEARCH_HITS = 10_000;
const ViewName = z.string().trim().min(1).max(100);

export function plotRoutes(config: Config, plots: Plots, blobs: BlobStore, exporter: Exporter, reclusterer: Reclusterer): Router {
  const router = Router();
  const caller = (req: Request) => req.caller.username;
  const readable = (req: Request) => plots.readable(String(req.params.id), caller(req));
  const clusters = new ClusterEditor(plots, blobs, config.limits.clusters);

  router.post('/', requireUser, async (req, res) => {
    const declared = Number(req.headers['content-length']);
    if (declared > config.limits.uploadBytes + 1024 * 1024) {
      throw overUploadLimit('file', config.limits.uploadBytes);
    }
    const limit = await plots.quota.uploadLimit(userOf(req), declared, config.limits.uploadBytes, 1024 * 1024);
    const signal = untilClientGone(res);
    const upload = await receiveUpload(req, `${config.dataDir}/tmp`, limit.maxBytes, { files: ['file'], fields: Object.keys(PlotUploadFields.shape) }, limit.overLimit);
    try {
      const { file } = upload.files;
      if (!file) throw new ApiError(400, 'bad_request', 'a "file" part is required', 'file');
      if (file.bytes === 0) throw new ApiError(400, 'empty_file', 'the file is empty', 'file');
      const fields = PlotUploadFields.parse({ ...upload.fields, tags: parseTags(upload.fields.tags) });
      res.status(201).json(await plots.ingest(userOf(req), file, fields, signal));
    } finally {
      await upload.cleanup();
    }
  });

  router.get('/', async (req, res) => {
    res.json(await plots.list(PlotQuery.parse(req.query), caller(req)));
  });

  router.get('/:id', async (req, res) => {
    const doc = await readable(req);
    const [parent, children, details] = await Promise.all([plots.visibleParent(doc, caller(req)), plots.visibleChildren(doc, caller(req)), plots.details(doc)]);
    res.json({ ...toPlot({ ...doc, parent }, details), ...(children.length > 0 && { children }) });
  });

  router.patch('/:id', requireUser, async (req, res) => {
    res.json(await plots.patch(String(req.params.id), userOf(req), jsonBody(PlotPatch, req)));
  });

  router.post('/:id/clusters', requireUser, async (req, res) => {
    const created = await clusters.create(String(req.params.id), userOf(req), jsonBody(ClusterCreate, req));
    res.status(201).json(created);
  });

  router.get('/:id/clusters/edits', requireUser, async (req, res) => {
    res.json(await clusters.edits(String(req.params.id), userOf(req)));
  });

  router.post('/:id/clusters/undo', requireUser, async (req, res) => {
    res.json(await clusters.undo(String(req.params.id), userOf(req), jsonBody(ClusterUndo, req)));
  });

  router.delete('/:id/clusters/:key', requireUser, async (req, res) => {
    const key = String(req.params.key);
    if (!/^\d+$/.test(key)) throw new ApiError(400, 'bad_request', `key: "${key}" is not a cluster key (a whole number)`, 'key');
    res.json(await clusters.delete(String(req.params.id), userOf(req), Number(key)));
  });

  router.delete('/:id', requireUser, async (req, res) => {
    await plots.delete(String(req.params.id), userOf(req));
    await reclusterer.dropMatrix(String(req.params.id));
    res.status(204).end();
  });

  router.post('/:id/recluster', requireUser, async (req, res) => {
    const { id } = await reclusterer.start(String(req.params.id), userOf(req), jsonBody(ReclusterRequest, req));
    res.status(202).json({ jobId: id });
  });

  router.get('/:id/frames/:frame/:kind', async (req, res) => {
    const spec = FRAME_KINDS[String(req.params.kind)];
    if (!spec) throw notFound('frame data');
    const doc = await readable(req);
    const file = await plots.frameBlob(doc, Number(req.params.frame), spec.kind);
    // Cluster keys change when the owner makes a cluster: revalidated by ETag, never cached for good.
    await sendBlob(req, res, blobs, file, spec.type, spec.kind !== 'clusters');
  });

  router.get('/:id/frames/:frame/columns/:column', async (req, res) => {
    const doc = await readable(req);
    await sendBlob(req, res, blobs, await plots.columnBlob(doc, Number(req.params.frame), Number(req.params.column)), 'application/octet-stream');
  });

  router.get('/:id/search', async (req, res) => {
    const { label, frame, column } = SearchQuery.parse(req.query);
    const doc = await readable(req);
    const { points, matches } = await plots.searchFrame(doc, frame, label.toLowerCase(), column);
    const indices: number[] = [];
    let truncated = false;
    for (let index = 0; index < points; index++) {
      if (!matches(index)) continue;
      if (indices.length === MAX_SEARCH_HITS) {
        truncated = true;
        break;
      }
      indices.push(index);
    }
    res.json({ frame, indices, truncated });
  });

  router.get('/:id/export', async (req, res) => {
    const { format } = ExportQuery.parse(req.query);
    const doc = await readable(req);
    await (format === 'original' ? exporter.original(doc, res) : exporter.pviz(doc, await plots.details(doc), res));
  });

  router.get('/:id/thumbnail', async (req, res) => {
    const doc = await readable(req);
    const file = doc.hasThumbnail ? await blobs.find(plotBlobName(doc._id, 'thumbnail')) : null;
    if (!file) throw notFound('thumbnail');
    await sendBlob(req, res, blobs, file, 'image/png', false);
  });

  router.put(
    '/:id/thumbnail',
    requireUser,
    express.raw({ type: 'image/png', limit: config.limits.thumbnailBytes }),
    async (req, res) => {
      const doc = await plots.owned(String(req.params.id), userOf(req));
      const png = req.body as Buffer;
      if (!Buffer.isBuffer(png)) throw new ApiError(400, 'bad_request', 'send the thumbnail as Content-Type: image/png', 'body');
      checkThumbnail(png);
      await plots.setThumbnail(doc, png, { drawn: false });
      res.status(204).end();
    },
  );

  router.get('/:id/views', async (req, res) => {
    res.json((await plots.details(await readable(req))).views);
  });

  router.put('/:id/views/:name', requireUser, express.json({ limit: config.limits.viewBytes }), async (req, res) => {
    const doc = await plots.owned(String(req.params.id), userOf(req));
    const view = jsonBody(SavedView, req);
    await plots.setView(doc, ViewName.parse(req.params.name), view);
    res.status(204).end();
  });

  router.delete('/:id/views/:name', requireUser, async (req, res) => {
    const doc = await plots.owned(String(req.params.id), userOf(req));
    if (!(await plots.setView(doc, String(req.params.name), undefined))) throw notFound('view');
    res.status(204).end();
  });

  return router;
}

/** Tags arrive as a JSON array or a comma-separated list. */
function parseTags(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.trim().startsWith('[')) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new ApiError(400, 'bad_request', 'tags: not a JSON array', 'tags');
    }
  }
  return raw.split(',');
}

/**
 * Serves a blob with an ETag and a single byte range when asked. Positions, labels
 * and edges never change for a plot id, so clients may cache them for good;
 * `private` keeps shared caches from holding data that may become private.
 */
async function sendBlob(req: Request, res: Response, blobs: BlobStore, file: BlobInfo, type: string, immutable = true): Promise<void> {
  const etag = `"${file.version}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache');
  res.setHeader('Accept-Ranges', 'bytes');
  res.type(type);
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  let start = 0;
  let end = file.length;
  const range = req.headers.range;
  if (range) {
    const match = /^bytes=(\d*)-(\d*)$/.exec(range);
    const first = match?.[1] ? Number(match[1]) : undefined;
    const last = match?.[2] ? Number(match[2]) : undefined;
    if (first !== undefined) [start, end] = [first, last === undefined ? file.length : Math.min(last + 1, file.length)];
    else if (last !== undefined) [start, end] = [Math.max(0, file.length - last), file.length];
    if (!match || start >= end || (first === undefined && last === undefined)) {
      res.status(416).setHeader('Content-Range', `bytes */${file.length}`).end();
      return;
    }
    res.status(206).setHeader('Content-Range', `bytes ${start}-${end - 1}/${file.length}`);
  }
  res.setHeader('Content-Length', end - start);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const bytes = await blobs.cachedSlice(file, start, end);
  if (bytes) {
    res.end(bytes);
    return;
  }
  const stream = blobs.open(file, start, end);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}
