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
import type { JobRepo } from '@wpv/jobs/repository';
import type { StageTimings } from '@wpv/jobs/timings';
import { JOB_MODULES } from '@wpv/server/jobtypes/index';

/**
 * A stage run in this process. `run` throws with the reason on failure; what it
 * returns is recorded with the stage's success. A stage may run again after a
 * crash (even after its first run stored results): `run` must be idempotent.
 */
export interface WorkerStage {
  run(job: JobDoc): Promise<Record<string, unknown>>;
}

/** A worker stage still `running` this long after it started belongs to a dead worker. */
const WORKER_STAGE_LEASE_MS = 10 * 60_000;
/** Guard against a loop: each pass finishes at least one worker stage. */
const MAX_PASSES = 10;

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
      if (isTerminalJob(job.state)) {
        await this.repo.retire(jobId); // normally done with the final move; again in case that process died
        await this.cleanUp(job);
        return;
      }
      const stages = job.stageOrder.map((name) => job.stages[name]!);
      const failed = stages.find((s) => s.state === 'failed');
      if (failed) {
        await this.failJob(job, `${failed.error ?? 'no reason given'}; stage ${failed.name} failed`);
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

  private async runWorkerStage(job: JobDoc, name: StageName): Promise<boolean> {
    // The type's own worker stages first (stock-timeseries' prepare), then the shared ones.
    const own = JOB_MODULES[job.type].workerStages?.[name];
    const worker = own ? { run: own } : this.workerStages[name];
    if (!worker) throw new Error(`no worker runs stage ${name}`);
    // A stage resumed after a crash is already running: its attempt count goes with its end.
    const attempts = job.stages[name]!.attempts + 1;
    await this.repo.moveStage(job._id, name, 'running', 'started in the worker', { startedAt: new Date(), attempts });
    const startedAt = Date.now();
    let result: Record<string, unknown>;
    try {
      result = await worker.run(job);
    } catch (err) {
      this.log(`${job._id}/${name}: failed: ${(err as Error).message}`);
      const error = redactPaths((err as Error).message);
      await this.repo.moveStage(job._id, name, 'failed', error.slice(0, 500), { endedAt: new Date(), error, attempts });
      return true;
    }
    const metrics = { queueWaitSeconds: 0, runSeconds: (Date.now() - startedAt) / 1000, cpuSeconds: null, peakMemoryKb: null, ranks: 1, threads: 1 };
    await this.repo.moveStage(job._id, name, 'succeeded', 'finished in the worker', { ...result, endedAt: new Date(), metrics, error: null, attempts });
    return true;
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
