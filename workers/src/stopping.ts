// When a worker stage must stop: its job was cancelled (the cancel asks the stage to stop
// before it ends the job) or failed elsewhere. The worker polls for it while the stage runs, as
// the bridge polls for its programs, and aborts the stage's work through an AbortSignal that
// the work checks between chunks; at the commit point it asks once more.
import type { JobRepo, StageStates } from '@wpv/jobs/repository';
import type { StageName } from '@wpv/jobs/model';

/** How often a running worker stage's job is probed (two _id lookups) for a cancel. */
export const STOP_CHECK_MS = 250;

/** Why a running worker stage must stop, or null. A job that succeeded (another worker ran the stage) is no reason. */
export function stopReason(now: StageStates): string | null {
  if (now.stopping || now.job === 'cancelled') return 'job cancelled';
  if (now.job === null) return 'job deleted';
  if (now.job === 'failed') return 'job failed';
  return null;
}

/** Aborted (reason: an Error saying why) once the stage must stop or is no longer running. */
export function watchForStop(repo: JobRepo, jobId: string, stage: StageName, everyMs = STOP_CHECK_MS): { signal: AbortSignal; close: () => void } {
  const abort = new AbortController();
  let probing = false;
  const timer = setInterval(async () => {
    if (probing) return;
    probing = true;
    try {
      const now = await repo.states(jobId, stage);
      const why = stopReason(now) ?? (now.stage === 'running' ? null : `stage ${now.stage} elsewhere`);
      if (why) {
        clearInterval(timer);
        abort.abort(new Error(`stopped: ${why}`));
      }
    } catch {
      // The store did not answer: the next probe asks again, and the commit point asks anyway.
    } finally {
      probing = false;
    }
  }, everyMs);
  return { signal: abort.signal, close: () => clearInterval(timer) };
}
