// A job's progress stream (Server-Sent Events): `event: job` with the whole job (id = its
// revision) whenever the revision moves, then `event: end` once the job and its stages are
// terminal. A reconnecting client sends Last-Event-ID and gets a snapshot only if something changed.
// While the store cannot be read, `event: unavailable` (with the 503 error a request gets, again
// every UNAVAILABLE_REPEAT_MS), and a snapshot when it can again: the stream stays open, and the
// page says why nothing moves.
// Streams are few per user, and all streams of one job share one store poll.
import type { Request, Response } from 'express';
import { isTerminalJob, type StageState } from '@wpv/jobs/model';
import { ApiError, storeUnavailable } from '../http/errors.ts';
import { toJob, type Expectations, type Jobs } from '../services/jobs.ts';
import { isStoreUnreachable, within, type StoreWatch } from '../storage/reachability.ts';

type JobDoc = Awaited<ReturnType<Jobs['owned']>>;
/** A poll's read of the job: null when it is gone; 'unreadable' while the store is away. */
type Listener = (doc: JobDoc | null | 'unreadable') => void;

const isStoreOutage = (err: unknown) => isStoreUnreachable(err) || (err instanceof ApiError && err.code === 'store_unavailable');

const POLL_MS = 250;
const HEARTBEAT_MS = 15_000;
/**
 * A store shutting down answers some reads after failing others: a page that checked the session
 * then was told all is well, and a single `unavailable` left it silent for the rest of the outage.
 */
const UNAVAILABLE_REPEAT_MS = 5000;
/** A job's read takes milliseconds; one that takes this long is the store going away. */
const READ_TIMEOUT_MS = 2000;
/**
 * How long the stream waits, after the job is terminal, for its stages to be: a cancelled job's
 * running programs are recorded cancelled by the bridge once it has stopped them (its state
 * check every 2 s, then the backend's cancel), 1-3 s after the job. Ending with the job left
 * the page and the Python client showing those stages running or waiting for CPUs.
 */
const STAGES_SETTLE_MS = 10_000;
const TERMINAL_STAGE_STATES: readonly StageState[] = ['succeeded', 'failed', 'cancelled'];

const stagesTerminal = (doc: JobDoc) => Object.values(doc.stages).every((stage) => TERMINAL_STAGE_STATES.includes(stage.state));

/** Reads each watched job every POLL_MS, once for all its watchers; stops when the last one leaves. */
export class JobPolls {
  private readonly watched = new Map<string, Set<Listener>>();

  constructor(private readonly load: (jobId: string) => Promise<JobDoc | null>) {}

  /** Calls `listener` with the job after every poll; returns the function that stops watching. */
  watch(jobId: string, listener: Listener): () => void {
    let listeners = this.watched.get(jobId);
    if (!listeners) {
      listeners = new Set();
      this.watched.set(jobId, listeners);
      void this.poll(jobId, listeners);
    }
    listeners.add(listener);
    const watching = listeners;
    return () => {
      watching.delete(listener);
      if (watching.size === 0 && this.watched.get(jobId) === watching) this.watched.delete(jobId);
    };
  }

  private async poll(jobId: string, listeners: Set<Listener>): Promise<void> {
    while (this.watched.get(jobId) === listeners) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (this.watched.get(jobId) !== listeners) return;
      let doc: JobDoc | null | 'unreadable';
      try {
        doc = await this.load(jobId);
      } catch (err) {
        // The store is away: try again at the next tick. (/health reports an outage; each tick of each stream need not.)
        if (!isStoreOutage(err)) console.error(`polling job ${jobId}:`, err);
        doc = 'unreadable';
      }
      for (const listener of [...listeners]) listener(doc);
    }
  }
}

export class JobStreams {
  private readonly polls: JobPolls;
  private readonly openPerUser = new Map<string, number>();

  constructor(
    private readonly jobs: Jobs,
    private readonly maxPerUser: number,
    storeWatch: StoreWatch,
  ) {
    // While the store is known to be down, a ping bounded to 1 s answers for it, and a read gives up
    // after READ_TIMEOUT_MS: the driver retries a read that met the store going away, and that retry
    // waits out its 10 s server selection; the page would stay silent that long.
    this.polls = new JobPolls(async (jobId) => {
      if ((await storeWatch.reachable()) !== null) throw storeUnavailable();
      return within(READ_TIMEOUT_MS, jobs.repo.get(jobId), () => {
        throw storeUnavailable();
      });
    });
  }

  async stream(req: Request, res: Response, jobId: string, owner: string): Promise<void> {
    const first = await this.jobs.owned(jobId, owner);
    const expected = await this.jobs.expectations(first);
    const open = this.openPerUser.get(owner) ?? 0;
    if (open >= this.maxPerUser) {
      throw new ApiError(429, 'too_many_streams', `at most ${this.maxPerUser} progress streams may be open per user; close one`, undefined, { 'Retry-After': '5' });
    }
    this.openPerUser.set(owner, open + 1);
    try {
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      await this.follow(req, res, jobId, first, expected);
    } finally {
      const left = (this.openPerUser.get(owner) ?? 1) - 1;
      if (left > 0) this.openPerUser.set(owner, left);
      else this.openPerUser.delete(owner);
    }
    res.end();
  }

  /** Writes the job's changes until it ends, disappears, or the client goes. */
  private follow(req: Request, res: Response, jobId: string, first: JobDoc, expected: Expectations | null): Promise<void> {
    let sent = Number(req.headers['last-event-id'] ?? -1);
    let lastWrite = Date.now();
    /** When this stream first saw the job terminal (its own clock: the job's endedAt may be another host's). */
    let terminalSince: number | null = null;
    const write = (text: string) => {
      res.write(text);
      lastWrite = Date.now();
    };
    return new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        unwatch();
        res.off('close', finish);
        resolve();
      };
      const down = storeUnavailable();
      let unreadable = false;
      const show = (doc: JobDoc | null | 'unreadable') => {
        if (done) return;
        if (doc === 'unreadable') {
          if (!unreadable || Date.now() - lastWrite > UNAVAILABLE_REPEAT_MS) {
            write(`event: unavailable\ndata: ${JSON.stringify({ error: { code: down.code, message: down.message } })}\n\n`);
          }
          unreadable = true;
          return;
        }
        if (unreadable) sent = -1; // read again: a snapshot tells the client the job is followed again
        unreadable = false;
        if (!doc) return finish();
        if (doc.revision !== sent) {
          write(`id: ${doc.revision}\nevent: job\ndata: ${JSON.stringify(toJob(doc, expected))}\n\n`);
          sent = doc.revision;
        }
        if (isTerminalJob(doc.state)) terminalSince ??= Date.now();
        if (terminalSince !== null && (stagesTerminal(doc) || Date.now() - terminalSince >= STAGES_SETTLE_MS)) {
          write('event: end\ndata: {}\n\n');
          return finish();
        }
        if (Date.now() - lastWrite > HEARTBEAT_MS) write(': heartbeat\n\n');
      };
      const unwatch = this.polls.watch(jobId, show);
      res.on('close', finish);
      show(first);
    });
  }
}
