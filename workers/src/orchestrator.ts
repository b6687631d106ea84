// The pipeline orchestrator. Every "advance job X" message makes it look at the
// persisted job and do what is due: dispatch stages whose dependencies succeeded
// (MPI stages to the bridge, worker stages run here), fail the job when a stage
// failed, finish it when all succeeded. It keeps no state of its own, so a
// redelivered or duplicate message repeats nothing: every move is guarded.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { type Delivery, type JobBroker, type PipelineMessage } from '@wpv/jobs/broker';
import type { JobConfig } from '@wpv/jobs/config';
import { isTerminalJob, type JobDoc, type StageDoc, type StageName } from '@wpv/jobs/model';
import { redactPaths } from '@wpv/jobs/messages';
import type { JobRepo, StageStates } from '@wpv/jobs/repository';
import type { StageTimings } from '@wpv/jobs/timings';
import { JOB_MODULES } from '@wpv/server/jobtypes/index';
import { stopReason, watchForStop } from './stopping.ts';

/**
 * A stage run in this process. `run` throws with the reason on failure; what it
 * returns is recorded with the stage's success. A stage may run again after a
 * crash (even after its first run stored results): `run` must be idempotent.
 * `signal` aborts when the job is cancelled: `run` should stop soon after (checking it
 * between chunks of its work) and leave no partial output. `discard` removes what a
 * stopped run stored that others could see (assemble: the job's plot).
 */
export interface WorkerStage {
  run(job: JobDoc, signal: AbortSignal): Promise<Record<string, unknown>>;
  discard?(job: JobDoc): Promise<void>;
}

/** A worker stage still `running` this long after it started belongs to a dead worker. */
const WORKER_STAGE_LEASE_MS = 10 * 60_000;
/** Guard against a loop: each pass finishes at least one worker stage. */
const MAX_PASSES = 10;
/**
 * A cancel cancels a job's stages before the job itself: a stage cancelled this long ago in a job
 * still active belongs to a cancel whose API process died half-way, which the worker finishes.
 */
const CANCEL_CUT_SHORT_MS = 10_000;

export class Orchestrator {
  constructor(
    private readonly repo: JobRepo,
    private readonly broker: JobBroker,
    private readonly config: JobConfig,
    private readonly workerStages: Partial<Record<StageName, WorkerStage>>,
    private readonly timings: StageTimings,
    private readonly log: (line: string) => void = console.log,
  ) {}

  async advance({ jobId, sweep = false }: PipelineMessage, delivery: Pick<Delivery, 'redelivered'> = { redelivered: false }): Promise<void> {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const job = await this.repo.get(jobId);
      if (!job) return;
      const stages = job.stageOrder.map((name) => job.stages[name]!);
      if (isTerminalJob(job.state)) {
        await this.repo.retire(jobId); // normally done with the final move; again in case that process died
        // A worker stage whose worker died while stopping it: stopped with its job.
        for (const stage of stages.filter((s) => s.runner === 'worker' && s.state === 'running' && this.abandoned(s, delivery))) {
          await this.stopped(job, stage.name, stage.attempts, job.endedAt, `job ${job.state}`);
        }
        await this.cleanUp(job);
        return;
      }
      const failed = stages.find((s) => s.state === 'failed');
      if (failed) {
        await this.failJob(job, `${failed.error ?? 'no reason given'}; stage ${failed.name} failed`);
        continue;
      }
      const cancelled = stages.find((s) => s.state === 'cancelled');
      if (cancelled) {
        // A cancel under way (JobRepo.cancel): nothing more starts; the job's own move is the API's to make, or ours if it never came.
        if (Date.now() - (cancelled.endedAt?.getTime() ?? 0) < CANCEL_CUT_SHORT_MS) return;
        await this.repo.moveJob(jobId, 'cancelled', `stage ${cancelled.name} was cancelled; finishing a cancel cut short`);
        continue;
      }
      if (stages.every((s) => s.state === 'succeeded')) {
        if (await this.repo.moveJob(jobId, 'succeeded', 'every stage succeeded')) {
          // Only statistics for later jobs' progress: a failure to keep them must not touch this job.
          await this.timings.record(job).catch((err) => this.log(`${jobId}: stage times not kept: ${(err as Error).message}`));
        }
        continue;
      }
      let ranWorkerStage = false;
      for (const stage of stages) {
        if (stage.state === 'pending' && stage.needs.every((n) => job.stages[n]!.state === 'succeeded')) {
          if (stage.retryAt && stage.retryAt.getTime() > Date.now()) {
            await this.broker.publish('pipeline', { jobId }, { delayMs: stage.retryAt.getTime() - Date.now() });
            continue;
          }
          ranWorkerStage = (await this.dispatch(job, stage)) || ranWorkerStage;
        } else if (stage.state === 'queued' && stage.runner === 'hpc' && (delivery.redelivered || sweep)) {
          // Claimed by a worker that may have died before its publish was confirmed (this message
          // came back), or idle so long that the sweeper asks: publish again; the bridge ignores
          // duplicates. A confirmed publish is durable, so other advances leave it alone (under a
          // burst, re-publishing every waiting stage on every advance flooded the bridge's queue).
          await this.broker.publish('hpc', { jobId, stage: stage.name });
        } else if (stage.runner === 'worker' && (stage.state === 'queued' || stage.state === 'running') && this.abandoned(stage, delivery)) {
          this.log(`${jobId}/${stage.name}: resuming a worker stage left ${stage.state}`);
          ranWorkerStage = (await this.runWorkerStage(job, stage.name)) || ranWorkerStage;
        }
      }
      if (!ranWorkerStage) return;
    }
  }

  /** Claims a ready stage (pending → queued); true when a worker stage ran here. */
  private async dispatch(job: JobDoc, stage: StageDoc): Promise<boolean> {
    const command = stage.runner === 'hpc' ? JOB_MODULES[job.type].command(job, stage.name, this.config) : null;
    const claimed = await this.repo.moveStage(job._id, stage.name, 'queued', 'dependencies succeeded', {
      command,
      queuedAt: new Date(),
      retryAt: null,
    });
    if (!claimed) return false;
    if (job.state === 'queued') await this.repo.moveJob(job._id, 'running', `stage ${stage.name} dispatched`);
    if (stage.runner === 'hpc') {
      await this.broker.publish('hpc', { jobId: job._id, stage: stage.name });
      return false;
    }
    return this.runWorkerStage(job, stage.name);
  }

  private abandoned(stage: StageDoc, delivery: Pick<Delivery, 'redelivered'>): boolean {
    // A redelivered message means the worker that held it died: its stage is ours to redo.
    if (delivery.redelivered) return true;
    const since = stage.startedAt ?? stage.queuedAt;
    return since !== null && Date.now() - since.getTime() > WORKER_STAGE_LEASE_MS;
  }

  /** The type's own worker stage (stock-timeseries' prepare) or the shared one of that name. */
  private workerStage(job: JobDoc, name: StageName): WorkerStage {
    const own = JOB_MODULES[job.type].workerStages?.[name];
    const worker = own ? { run: own } : this.workerStages[name];
    if (!worker) throw new Error(`no worker runs stage ${name}`);
    return worker;
  }

  private async runWorkerStage(job: JobDoc, name: StageName): Promise<boolean> {
    const worker = this.workerStage(job, name);
    // A stage resumed after a crash is already running: its attempt count goes with its end.
    const attempts = job.stages[name]!.attempts + 1;
    if (!(await this.repo.moveStage(job._id, name, 'running', 'started in the worker', { startedAt: new Date(), attempts }))) {
      // Refused: running already (resumed), or cancelled with its job meanwhile (then not ours to run).
      const now = await this.repo.states(job._id, name);
      if (now.stage !== 'running') return false;
      const why = stopReason(now);
      if (why) return this.stopped(job, name, attempts, now.jobEndedAt, why).then(() => true);
    }
    const watch = watchForStop(this.repo, job._id, name);
    const startedAt = Date.now();
    let result: Record<string, unknown> | null = null;
    let error: Error | null = null;
    try {
      result = await worker.run(job, watch.signal);
    } catch (err) {
      error = err as Error;
    } finally {
      watch.close();
    }
    // The commit point: a stop the watch saw, or one asked for since, wins over the stage's own end;
    // one asked for after this look still does, as the repository refuses the end below.
    let now = await this.repo.states(job._id, name);
    if (!stopReason(now)) {
      if (now.stage !== 'running') return true; // ended by another worker that ran it too (a redelivery)
      let ended: boolean;
      if (error) {
        this.log(`${job._id}/${name}: failed: ${error.message}`);
        const reason = redactPaths(error.message);
        ended = await this.repo.moveStage(job._id, name, 'failed', reason.slice(0, 500), { endedAt: new Date(), error: reason, attempts });
      } else {
        const metrics = { queueWaitSeconds: 0, runSeconds: (Date.now() - startedAt) / 1000, cpuSeconds: null, peakMemoryKb: null, ranks: 1, threads: 1 };
        ended = await this.repo.moveStage(job._id, name, 'succeeded', 'finished in the worker', { ...result, endedAt: new Date(), metrics, error: null, attempts });
      }
      if (ended) return true;
      now = await this.repo.states(job._id, name);
    }
    const why = stopReason(now);
    if (why) await this.stopped(job, name, attempts, now.jobEndedAt, why);
    return true;
  }

  /**
   * A worker stage stopped with its job: what its run stored is discarded first (a plot, even one
   * made ready a moment before the cancel was seen, never outlives a cancelled job), then it is
   * recorded cancelled, ended with the job (a stage never outlasts its job; `jobEndedAt` null: the
   * cancel has not ended the job yet, so now).
   */
  private async stopped(job: JobDoc, name: StageName, attempts: number, jobEndedAt: StageStates['jobEndedAt'], why: string): Promise<void> {
    await this.workerStage(job, name).discard?.(job);
    if (await this.repo.moveStage(job._id, name, 'cancelled', `${why}; stopped in the worker`, { endedAt: jobEndedAt ?? new Date(), attempts })) {
      this.log(`${job._id}/${name}: stopped (${why})`);
    }
  }

  private async failJob(job: JobDoc, error: string): Promise<void> {
    if (!(await this.repo.moveJob(job._id, 'failed', error.slice(0, 500), { error }))) return;
    for (const name of job.stageOrder) {
      if (['pending', 'queued'].includes(job.stages[name]!.state)) {
        await this.repo.moveStage(job._id, name, 'cancelled', 'job failed', { endedAt: new Date() });
      }
    }
    // Running MPI stages are stopped by the bridge, which sees the job is no longer active.
  }

  /** Clean-up policy: a succeeded job keeps its input, outputs and logs, not its type's intermediates. */
  private async cleanUp(job: JobDoc): Promise<void> {
    if (job.state !== 'succeeded' || this.config.cleanup === 'never') return;
    const files = JOB_MODULES[job.type].intermediates ?? [];
    await Promise.all(files.map((file) => rm(path.join(job.workdir, file), { force: true })));
  }
}
