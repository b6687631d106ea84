// Safety nets of the pipeline: active jobs nobody touched for a while get an
// "advance" (a publish lost to a crash or a broker restart), and a message the
// queue dead-lettered after its delivery limit fails its job with the reason.
import { DELIVERY_LIMIT, type Delivery, type JobBroker } from '../../server/src/jobs/broker.ts';
import type { JobRepo } from '../../server/src/jobs/repository.ts';

const SWEEP_EVERY_MS = 15_000;
const IDLE_AFTER_MS = 60_000;

export class Sweeper {
  private timer: NodeJS.Timeout | null = null;

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

  async sweep(idleAfterMs = IDLE_AFTER_MS): Promise<number> {
    const idle = await this.repo.idle(new Date(Date.now() - idleAfterMs));
    for (const jobId of idle) await this.broker.publish('pipeline', { jobId });
    return idle.length;
  }

  /** A poison message: its job cannot be processed, so it fails with the reason instead of hanging. */
  async deadLettered(message: unknown, _delivery: Delivery): Promise<void> {
    const jobId = typeof message === 'object' && message && 'jobId' in message ? String(message.jobId) : null;
    if (!jobId) {
      this.log(`dropped a dead-lettered message without a job id: ${JSON.stringify(message)}`);
      return;
    }
    const error = `the gateway gave up on this job after ${DELIVERY_LIMIT + 1} failed deliveries of its message; see the worker logs`;
    if (await this.repo.moveJob(jobId, 'failed', error, { error })) this.log(`${jobId}: failed (dead-lettered message)`);
  }
}
