// Safety nets of the pipeline: active jobs nobody touched for a while get an
// "advance" (a publish lost to a crash or a broker restart), and a message the
// queue dead-lettered after its delivery limit fails its job with the reason.
// A job may also be idle because its stages wait their turn in RabbitMQ (a burst):
// each job is re-advanced after 1 idle minute, then after 2, 4, … (at most 16)
// more, so waiting jobs cost a few messages each, not one per sweep.
import { DELIVERY_LIMIT, type Delivery, type JobBroker } from '@wpv/jobs/broker';
import type { JobRepo } from '@wpv/jobs/repository';

const SWEEP_EVERY_MS = 15_000;
const IDLE_AFTER_MS = 60_000;
const MAX_BACKOFF = 16;

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  /** Jobs re-advanced while idle: when, and the multiple of the idle time before the next one. */
  private readonly swept = new Map<string, { at: number; factor: number }>();

  constructor(
    private readonly repo: JobRepo,
    private readonly broker: JobBroker,
    private readonly log: (line: string) => void = console.log,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep().catch((err) => this.log(`sweep failed: ${err.message}`)), SWEEP_EVERY_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Re-advances the jobs idle for `idleAfterMs` that are due; returns how many. */
  async sweep(idleAfterMs = IDLE_AFTER_MS): Promise<number> {
    const now = Date.now();
    const idle = await this.repo.idle(new Date(now - idleAfterMs));
    const still = new Set(idle);
    for (const jobId of this.swept.keys()) if (!still.has(jobId)) this.swept.delete(jobId); // moved, or ended
    let sent = 0;
    for (const jobId of idle) {
      const last = this.swept.get(jobId);
      if (last && now - last.at < last.factor * idleAfterMs) continue;
      await this.broker.publish('pipeline', { jobId, sweep: true });
      this.swept.set(jobId, { at: now, factor: Math.min(MAX_BACKOFF, (last?.factor ?? 1) * 2) });
      sent++;
    }
    return sent;
  }

  /** A poison message: its job cannot be processed, so it fails with the reason instead of hanging. */
  async deadLettered(message: unknown, _delivery: Delivery): Promise<void> {
    const jobId = typeof message === 'object' && message && 'jobId' in message ? String(message.jobId) : null;
    if (!jobId) {
      this.log(`dropped a dead-lettered message without a job id: ${JSON.stringify(message)}`);
      return;
    }
    // Said to the job's owner, who cannot read the worker logs: what to do, and what the log is found by.
    const error = `the gateway gave up on this job after ${DELIVERY_LIMIT + 1} failed attempts at its next step (a server error, logged by the workers under the job's id); retry it, and report the job's id if it fails again`;
    // Its running stages end with it: a worker stage's worker gave up on this very message, and the
    // bridge stops the program of an MPI stage that has ended.
    if (await this.repo.fail(jobId, error, { endRunning: true })) this.log(`${jobId}: failed (dead-lettered message)`);
  }
}
