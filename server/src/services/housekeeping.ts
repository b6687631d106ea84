// The API's periodic clean-up: what TTL indexes would remove (FerretDB has none) and what a
// crash leaves behind. A supervised API may run for months, so none of it waits for a restart.
import type { LoginLimits } from '../http/rate-limits.ts';
import type { BlobStore } from '../storage/blobs.ts';
import type { Plots } from './plots.ts';
import type { Users } from './users.ts';

// An ingest (upload or a job's assemble stage, in this process or a worker) not done after this
// long was cut short by a crash: the largest measured take under 2 minutes.
export const ABANDONED_INGEST_MS = 10 * 60_000;
export const HOUSEKEEPING_EVERY_MS = 10 * 60_000;

export interface Housekeeping {
  /** Runs every sweep once, one after the other; what each removed is logged. */
  sweep(): Promise<void>;
  stop(): void;
}

/** Sweeps every `everyMs` (the first run after that long: start-up runs `sweep()` itself). */
export function startHousekeeping(services: { plots: Plots; blobs: BlobStore; users: Users; loginLimits: LoginLimits }, everyMs = HOUSEKEEPING_EVERY_MS): Housekeeping {
  const sweeps: [string, () => Promise<number>][] = [
    ['plots left half-written by a crash', () => services.plots.sweepAbandoned(ABANDONED_INGEST_MS)],
    ['blob replacements cut short by a crash', () => services.blobs.sweepReplacements(ABANDONED_INGEST_MS)],
    ['expired sessions', () => services.users.sweepExpiredSessions()],
    ['expired failed-login counters', () => services.loginLimits.sweep()],
  ];
  let running: Promise<void> | null = null;
  const sweep = () =>
    (running ??= (async () => {
      for (const [what, run] of sweeps) {
        try {
          const removed = await run();
          if (removed) console.log(`removed ${removed} ${what}`);
        } catch (err) {
          console.error(`removing ${what} stopped (the next sweep goes on):`, err);
        }
      }
    })().finally(() => (running = null)));
  const timer = setInterval(() => void sweep(), everyMs).unref();
  return { sweep, stop: () => clearInterval(timer) };
}
