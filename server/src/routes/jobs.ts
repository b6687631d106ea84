// /api/v1/jobs: submit (multipart), list, read, live events (SSE), logs, cancel, retry.
import { Router, type Request } from 'express';
import { JobLogsQuery, JobSubmitFields, JobSubmitFiles } from '@wpv/schema';
import type { Config } from '../config.ts';
import { requireUser, userOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { receiveUpload, untilClientGone } from '../http/upload.ts';
import type { Jobs } from '../services/jobs.ts';
import type { StorageQuota } from '../services/storage-quota.ts';
import type { StoreWatch } from '../storage/reachability.ts';
import { JobStreams } from './job-events.ts';

export function jobRoutes(config: Config, jobs: Jobs, quota: StorageQuota, storeWatch: StoreWatch): Router {
  const router = Router();
  router.use(requireUser);
  const id = (req: Request) => String(req.params.id);
  const streams = new JobStreams(jobs, config.limits.eventStreams, storeWatch);

  router.post('/', async (req, res) => {
    const limit = jobs.config.maxInputBytes;
    const declared = Number(req.headers['content-length']);
    if (declared > limit + 1024 * 1024) {
      throw new ApiError(413, 'too_large', `job inputs are limited to ${limit} bytes`, 'file');
    }
    // The job's plot will count against the storage quota: inputs are held to the room left.
    const room = await quota.uploadLimit(userOf(req), declared, limit, 1024 * 1024);
    const signal = untilClientGone(res);
    const upload = await receiveUpload(req, `${config.dataDir}/tmp`, room.maxBytes, { files: Object.keys(JobSubmitFiles), fields: Object.keys(JobSubmitFields.shape) }, room.overLimit);
    try {
      res.status(202).json(await jobs.submit(userOf(req), upload, signal));
    } finally {
      await upload.cleanup();
    }
  });

  router.get('/', async (req, res) => {
    const docs = await jobs.list(userOf(req));
    const items = (await Promise.all(docs.map((doc) => jobs.present(doc)))).map(({ history: _history, params: _params, ...summary }) => summary);
    res.json({ items });
  });

  router.get('/:id', async (req, res) => {
    res.json(await jobs.present(await jobs.owned(id(req), userOf(req))));
  });

  router.get('/:id/logs', async (req, res) => {
    const { stage } = JobLogsQuery.parse(req.query);
    res.json(await jobs.logs(id(req), userOf(req), stage));
  });

  router.post('/:id/cancel', async (req, res) => {
    res.json(await jobs.present(await jobs.cancel(id(req), userOf(req))));
  });

  router.post('/:id/retry', async (req, res) => {
    res.status(202).json(await jobs.retry(id(req), userOf(req)));
  });

  router.get('/:id/events', async (req, res) => {
    await streams.stream(req, res, id(req), userOf(req));
  });

  return router;
}
