// /api/v1/jobs: submit (multipart), list, read, live events (SSE), logs, cancel, retry.
import { Router, type Request, type Response } from 'express';
import { JobSubmitFiles } from '@wpv/schema';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { requireUser, userOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { receiveUpload } from '../http/upload.ts';
import { isTerminalJob } from '@wpv/jobs/model';
import { toJob, type Jobs } from '../services/jobs.ts';

const EVENT_POLL_MS = 250;
const HEARTBEAT_MS = 15_000;

export function jobRoutes(config: Config, jobs: Jobs): Router {
  const router = Router();
  router.use(requireUser);
  const id = (req: Request) => String(req.params.id);

  router.post('/', async (req, res) => {
    const limit = jobs.config.maxInputBytes;
    if (Number(req.headers['content-length']) > limit + 1024 * 1024) {
      throw new ApiError(413, 'too_large', `job inputs are limited to ${limit} bytes`, 'file');
    }
    const upload = await receiveUpload(req, `${config.dataDir}/tmp`, limit, Object.keys(JobSubmitFiles));
    try {
      res.status(202).json(await jobs.submit(userOf(req), upload));
    } finally {
      await upload.cleanup();
    }
  });

  router.get('/', async (req, res) => {
    const items = (await jobs.list(userOf(req))).map((doc) => {
      const { history: _history, params: _params, ...summary } = toJob({ ...doc, history: [] });
      return summary;
    });
    res.json({ items });
  });

  router.get('/:id', async (req, res) => {
    res.json(toJob(await jobs.owned(id(req), userOf(req))));
  });

  router.get('/:id/logs', async (req, res) => {
    const { stage } = z.object({ stage: z.string().max(40).optional() }).parse(req.query);
    res.json(await jobs.logs(id(req), userOf(req), stage));
  });

  router.post('/:id/cancel', async (req, res) => {
    res.json(toJob(await jobs.cancel(id(req), userOf(req))));
  });

  router.post('/:id/retry', async (req, res) => {
    res.status(202).json(await jobs.retry(id(req), userOf(req)));
  });

  router.get('/:id/events', async (req, res) => {
    await streamEvents(req, res, jobs, id(req), userOf(req));
  });

  return router;
}

/**
 * Server-Sent Events: `event: job` with the whole job (id = its revision) whenever
 * the revision moves, then `event: end` once the job is terminal. A reconnecting
 * client sends Last-Event-ID and gets a snapshot only if something changed.
 */
async function streamEvents(req: Request, res: Response, jobs: Jobs, jobId: string, owner: string): Promise<void> {
  let doc = await jobs.owned(jobId, owner);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  let sent = Number(req.headers['last-event-id'] ?? -1);
  let open = true;
  let lastWrite = Date.now();
  req.on('close', () => (open = false));
  const write = (text: string) => {
    res.write(text);
    lastWrite = Date.now();
  };
  while (open) {
    if (doc.revision !== sent) {
      write(`id: ${doc.revision}\nevent: job\ndata: ${JSON.stringify(toJob(doc))}\n\n`);
      sent = doc.revision;
    }
    if (isTerminalJob(doc.state)) {
      write('event: end\ndata: {}\n\n');
      break;
    }
    if (Date.now() - lastWrite > HEARTBEAT_MS) write(': heartbeat\n\n');
    await new Promise((resolve) => setTimeout(resolve, EVENT_POLL_MS));
    const next = await jobs.repo.get(jobId);
    if (!next) break;
    doc = next;
  }
  res.end();
}
