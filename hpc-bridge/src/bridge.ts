// The hpc-bridge: takes "run stage S of job X" messages, submits the stage's program
// to the backend, records the submission and acks at once (no delivery is held for
// the length of an MPI job), then follows every submitted stage by polling: progress
// lines into the job document, the end (exit record, outputs) into the stage state,
// cancellation of stages whose job is no longer active. At start-up it re-attaches
// to every stage left running, finding by name those whose submission was not recorded.
import { constants } from 'node:fs';
import { access, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type HpcMessage, type JobBroker } from '@wpv/jobs/broker';
import type { JobConfig } from '@wpv/jobs/config';
import { isTerminalJob, type JobDoc, type JobState, type StageCommand, type StageName, type StageState } from '@wpv/jobs/model';
import { stopReason, type JobRepo, type StageStates } from '@wpv/jobs/repository';
import { exitError } from '@wpv/jobs/messages';
import { isStoreUnreachable } from '@wpv/server/storage/reachability';
import { STAGE_FILES, exists, stageDir, tailOf } from '@wpv/jobs/workdir';
import type { Backend, BackendState, Handle, Submission } from './backends/backend.ts';
import { ProgressReader } from './progress.ts';

const STDERR_TAIL_BYTES = 2000;
const RETRY_BASE_MS = 2000;
/** A running program's job is checked for a cancel this often, not every poll (each check is two store probes). */
const STATE_CHECK_MS = 2000;
/** A program with free CPUs starts within this after its submission: a poll then records its launch (else the stage would look waiting until the next poll). */
const LAUNCH_CHECK_MS = 200;

interface Tracked {
  jobId: string;
  stage: StageName;
  workdir: string;
  handle: Handle;
  command: StageCommand;
  queuedAt: Date | null;
  progress: ProgressReader;
  writtenVersion: number;
  writtenAt: number;
  checkedAt: number;
  /** Its program's start (the wrapper's launch record) is in the store. */
  launched: boolean;
}

interface ExitRecord {
  exitCode: number;
  runSeconds: number | null;
  cpuSeconds: number | null;
  peakMemoryKb: number | null;
}

export class Bridge {
  private readonly tracked = new Map<string, Tracked>();
  private readonly unsent = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private pollRunning = false;
  private pollAgain = false;
  private stopped = false;
  /** A poll met a store outage, and no read has succeeded since. */
  private storeDown = false;

  constructor(
    private readonly repo: JobRepo,
    private readonly broker: JobBroker,
    private readonly backend: Backend,
    private readonly config: JobConfig,
    private readonly log: (line: string) => void = console.log,
  ) {}

  async start(): Promise<void> {
    this.backend.watch?.(() => this.pollSoon());
    await this.recover();
    await this.broker.consume('hpc', (message: HpcMessage) => this.onSubmit(message));
    this.schedulePoll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }

  /** Stages being followed, as "jobId/stage". */
  get following(): string[] {
    return [...this.tracked.keys()];
  }

  private async onSubmit({ jobId, stage: name }: HpcMessage): Promise<void> {
    // Back-pressure: beyond maxSubmitted this message stays unacked, and the rest queued, in RabbitMQ
    // (a bridge stopping meanwhile never acks it: the broker hands it out again).
    while (this.tracked.size >= this.config.maxSubmitted) await new Promise((r) => setTimeout(r, 50));
    if ((await this.repo.states(jobId, name as StageName)).stage !== 'queued') return; // a duplicate: two probes, not a whole job
    const job = await this.repo.get(jobId);
    const stage = job?.stages[name];
    // A duplicate or late message: the stage was already taken, or the job ended.
    if (!job || !stage || stage.state !== 'queued' || !stage.command) return;
    const attempt = stage.attempts + 1;
    // Opened before the claim: a bridge dying right after the claim finds the stage at start-up.
    await this.repo.track(jobId, stage.name, { open: true });
    const claimed = await this.repo.moveStage(jobId, stage.name, 'running', `attempt ${attempt} submitted to ${this.backend.kind}`, {
      startedAt: new Date(),
      attempts: attempt,
      exitCode: null,
    });
    if (claimed) await this.launch(job, stage.name, stage.command, stage.queuedAt);
    else await this.repo.track(jobId, stage.name, { open: false });
  }

  private async launch(job: JobDoc, stage: StageName, command: StageCommand, queuedAt: Date | null): Promise<void> {
    const program = command.argv[0]!;
    if (!(await access(program, constants.X_OK).then(() => true, () => false))) {
      // mpirun would exit 132 with its banner; no retry can help until the programs are built.
      await this.failUntracked(job._id, stage, `the program ${path.basename(program)} is not built or not executable in KERNELS_BIN (bash kernels/build.sh builds the programs)`);
      return;
    }
    const dir = stageDir(job.workdir, stage);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    let id: string;
    try {
      id = await this.backend.submit({ jobId: job._id, stage, dir, command });
    } catch (err) {
      await this.transientFailure(job._id, stage, `submission failed: ${(err as Error).message}`);
      return;
    }
    // Followed before its handle is recorded: a store down at that moment fails the record (the
    // message is handled again later), never the following of a program that runs.
    this.track(job, stage, { id, dir }, command, queuedAt);
    await this.recordHandle(job._id, stage, id);
    if (LAUNCH_CHECK_MS < this.config.pollMs) setTimeout(() => this.pollSoon(), LAUNCH_CHECK_MS).unref();
    this.log(`${job._id}/${stage}: submitted as ${this.backend.kind} ${id}`);
  }

  private recordHandle(jobId: string, stage: StageName, id: string): Promise<void> {
    return this.repo.track(jobId, stage, { backend: { kind: this.backend.kind, jobId: id } });
  }

  private track(job: JobDoc, stage: StageName, handle: Handle, command: StageCommand, queuedAt: Date | null): void {
    const progress = new ProgressReader(path.join(handle.dir, STAGE_FILES.stdout));
    const tracked = { jobId: job._id, stage, workdir: job.workdir, handle, command, queuedAt, progress, writtenVersion: 0, writtenAt: 0, checkedAt: 0, launched: false };
    this.tracked.set(`${job._id}/${stage}`, tracked);
  }

  /** Re-attaches to every stage left running (by this bridge before a restart, or by another). */
  private async recover(): Promise<void> {
    const open = await this.repo.openTracks();
    const jobs = new Map((await this.repo.getMany([...new Set(open.map((t) => t.jobId))])).map((j) => [j._id, j]));
    for (const { jobId, stage: name } of open) {
      const job = jobs.get(jobId);
      const stage = job?.stages[name];
      if (!job || stage?.state !== 'running' || !stage.command) {
        await this.repo.track(jobId, name, { open: false }); // never claimed, or finished before the crash
        continue;
      }
      const dir = stageDir(job.workdir, name);
      const submission: Submission = { jobId, stage: name, dir, command: stage.command };
      const id = stage.backend?.jobId ?? (await this.backend.find(submission).catch(() => null));
      if (id && !stage.backend?.jobId) await this.recordHandle(jobId, name, id);
      if (!id && isTerminalJob(job.state)) {
        await this.repo.moveStage(jobId, name, 'cancelled', `job ${job.state}; nothing had been started`, { endedAt: job.endedAt ?? new Date() });
        await this.repo.track(jobId, name, { open: false });
      } else if (!id) {
        this.log(`${jobId}/${name}: submission was never recorded and no such job exists; submitting again`);
        await this.launch(job, name, stage.command, stage.queuedAt);
      } else {
        this.track(job, name, { id, dir }, stage.command, stage.queuedAt);
        this.log(`${jobId}/${name}: re-attached to ${this.backend.kind} ${id}`);
      }
    }
  }

  private schedulePoll(delayMs = this.config.pollMs): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runPoll(), delayMs);
  }

  private runPoll(): void {
    this.timer = null;
    if (this.pollRunning) {
      this.pollAgain = true;
      return;
    }
    this.pollRunning = true;
    this.polling = this.pollOnce()
      .catch((err) => this.failed('poll failed', err))
      .finally(() => {
        this.pollRunning = false;
        const again = this.pollAgain;
        this.pollAgain = false;
        this.schedulePoll(again ? 0 : this.config.pollMs);
      });
  }

  /** A backend saw a program end: poll now instead of at the next interval. */
  private pollSoon(): void {
    if (this.pollRunning) this.pollAgain = true;
    else this.schedulePoll(0);
  }

  async pollOnce(): Promise<void> {
    for (const jobId of this.unsent) await this.advance(jobId);
    const all = [...this.tracked.values()];
    if (!all.length) return;
    const states = await this.backend.poll(all.map((t) => t.handle));
    await Promise.all(
      all.map(async (t) => {
        const state = states.get(t.handle.id) ?? { state: 'running' };
        await this.follow(t, state).catch((err) => this.failed(`${t.jobId}/${t.stage}`, err));
      }),
    );
  }

  /** Logs a poll's error. A store outage is said once, not for every stage at every poll with its stack, and so is its end. */
  private failed(where: string, err: unknown): void {
    if (!isStoreUnreachable(err)) return this.log(`${where}: ${(err as Error).stack ?? err}`);
    if (!this.storeDown) this.log(`the store is unreachable (${(err as Error).message}); the ${this.tracked.size} running stage(s) are followed again once it answers`);
    this.storeDown = true;
  }

  private async follow(t: Tracked, state: BackendState): Promise<void> {
    // Always when the program ended (a stage of a cancelled job is recorded cancelled), else every STATE_CHECK_MS.
    const now = state.state !== 'running' || Date.now() - t.checkedAt >= STATE_CHECK_MS ? await this.repo.states(t.jobId, t.stage) : null;
    if (now) t.checkedAt = Date.now();
    if (now && this.storeDown) {
      this.storeDown = false;
      this.log('the store answers again');
    }
    const why = now && mustStop(now);
    if (why) {
      // The job is being cancelled, or failed elsewhere (or the stage is no longer ours): stop the program.
      if (state.state !== 'ended') await this.backend.cancel(t.handle);
      // The stage ended with its job: stopping the program (up to STATE_CHECK_MS to notice, then the
      // backend's cancel, seconds more) is not run time, and a stage cannot outlast its job.
      await this.repo.moveStage(t.jobId, t.stage, 'cancelled', `${why}; ${this.backend.kind} ${t.handle.id} stopped`, { endedAt: now!.jobEndedAt ?? new Date() });
      await this.untrack(t);
      return;
    }
    if (!t.launched) await this.recordLaunch(t);
    await t.progress.update();
    const due = Date.now() - t.writtenAt >= this.config.progressMs;
    if (state.state !== 'ended' && due && t.progress.version !== t.writtenVersion && t.progress.latest) {
      await this.repo.setProgress(t.jobId, t.stage, t.progress.latest, t.progress.series);
      t.writtenVersion = t.progress.version;
      t.writtenAt = Date.now();
    }
    if (state.state === 'ended') await this.finish(t);
    else if (state.state === 'failed') await this.end(t, 'failed', state.reason, {});
    else if (state.state === 'lost') {
      await this.untrack(t);
      await this.transientFailure(t.jobId, t.stage, state.reason);
    }
  }

  /** Once the wrapper has its CPUs (local slots, a Slurm allocation) it writes its launch record: until then the stage waits. */
  private async recordLaunch(t: Tracked): Promise<void> {
    const launch = await readFile(path.join(t.handle.dir, STAGE_FILES.launch), 'utf8').catch(() => null);
    if (launch === null) return;
    await this.repo.track(t.jobId, t.stage, { launchedAt: new Date(JSON.parse(launch).startedAt * 1000) });
    t.launched = true;
  }

  /** Collects a finished stage: exit record, outputs, metrics; success needs exit 0 and every output. */
  private async finish(t: Tracked): Promise<void> {
    const exit = JSON.parse(await readFile(path.join(t.handle.dir, STAGE_FILES.exit), 'utf8')) as ExitRecord;
    const launch = JSON.parse(await readFile(path.join(t.handle.dir, STAGE_FILES.launch), 'utf8').catch(() => '{}'));
    const metrics = {
      queueWaitSeconds: t.queuedAt && launch.startedAt ? Math.max(0, launch.startedAt - t.queuedAt.getTime() / 1000) : null,
      runSeconds: exit.runSeconds,
      cpuSeconds: exit.cpuSeconds,
      peakMemoryKb: exit.peakMemoryKb,
      ranks: t.command.ranks,
      threads: t.command.threads,
    };
    const recorded = { exitCode: exit.exitCode, metrics, progress: t.progress.latest, series: t.progress.series };
    if (exit.exitCode !== 0) {
      const stderr = await tailOf(path.join(t.handle.dir, STAGE_FILES.stderr), STDERR_TAIL_BYTES);
      // timeout(1) ends a program at its limit with 124 (137 when it had to kill it).
      const limit = t.command.timeLimitSeconds;
      const timedOut = limit !== undefined && [124, 137].includes(exit.exitCode) && (exit.runSeconds ?? 0) >= limit;
      await this.end(t, 'failed', exitError(stderr, exit.exitCode, timedOut ? limit : null), recorded);
      return;
    }
    const missing: string[] = [];
    for (const output of t.command.outputs) if (!(await exists(path.join(t.workdir, output)))) missing.push(output);
    if (missing.length) await this.end(t, 'failed', `exit code 0 but no ${missing.join(', ')} was written`, recorded);
    else await this.end(t, 'succeeded', null, recorded);
  }

  private async end(t: Tracked, to: 'succeeded' | 'failed', error: string | null, recorded: Record<string, unknown>): Promise<void> {
    const reason = to === 'succeeded' ? `${this.backend.kind} ${t.handle.id} exited 0` : error!;
    if (await this.repo.moveStage(t.jobId, t.stage, to, reason.slice(0, 500), { ...recorded, endedAt: new Date(), error })) this.log(`${t.jobId}/${t.stage}: ${to}`);
    else await this.endStopped(t.jobId, t.stage, `${this.backend.kind} ${t.handle.id} ended meanwhile`);
    await this.untrack(t);
    await this.advance(t.jobId);
  }

  /**
   * A stage whose end the repository refused because a cancel asked it to stop first (between
   * this bridge's last look at the job and the end): recorded cancelled, ended with its job.
   */
  private async endStopped(jobId: string, stage: StageName, what: string): Promise<void> {
    const now = await this.repo.states(jobId, stage);
    const why = stopReason(now);
    if (now.stage !== 'running' || !why) return; // ended by someone else
    await this.repo.moveStage(jobId, stage, 'cancelled', `${why}; ${what}`, { endedAt: now.jobEndedAt ?? new Date() });
    this.log(`${jobId}/${stage}: cancelled (${why})`);
  }

  /** A failure that may pass (lost process, submission error): the stage waits for a retry with backoff, up to the attempt limit. */
  private async transientFailure(jobId: string, stage: StageName, reason: string): Promise<void> {
    const attempts = (await this.repo.get(jobId))?.stages[stage]?.attempts ?? 0;
    if (attempts >= this.config.stageAttempts) {
      await this.failUntracked(jobId, stage, `${reason} (gave up after ${attempts} attempts)`);
      return;
    }
    const retryAt = new Date(Date.now() + RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
    const retrying = await this.repo.moveStage(jobId, stage, 'pending', `${reason}; retry at ${retryAt.toISOString()}`, {
      retryAt,
      error: reason,
      backend: null,
    });
    if (!retrying) await this.endStopped(jobId, stage, reason);
    await this.repo.track(jobId, stage, { open: false });
    this.log(`${jobId}/${stage}: ${reason}`);
    await this.advance(jobId);
  }

  /** Fails a claimed stage that has no program running (nothing to follow). */
  private async failUntracked(jobId: string, stage: StageName, error: string): Promise<void> {
    if (!(await this.repo.moveStage(jobId, stage, 'failed', error, { endedAt: new Date(), error }))) await this.endStopped(jobId, stage, error);
    await this.repo.track(jobId, stage, { open: false });
    this.log(`${jobId}/${stage}: ${error}`);
    await this.advance(jobId);
  }

  /** Tells the workers a stage ended; kept and re-sent every poll while the broker is unreachable. */
  private async advance(jobId: string): Promise<void> {
    try {
      await this.broker.publish('pipeline', { jobId });
      this.unsent.delete(jobId);
    } catch (err) {
      if (!this.unsent.has(jobId)) this.log(`could not publish advance of ${jobId} (will retry): ${(err as Error).message}`);
      this.unsent.add(jobId);
    }
  }

  private async untrack(t: Tracked): Promise<void> {
    this.tracked.delete(`${t.jobId}/${t.stage}`);
    await this.repo.track(t.jobId, t.stage, { open: false });
  }
}

/**
 * Why a followed stage's program must stop, or null: the workers' rule (a cancel's stop request, the
 * job cancelled, failed or deleted), or the stage no longer ours (ended, or retried, elsewhere).
 */
function mustStop(now: StageStates): string | null {
  if (now.job && isTerminalJob(now.job)) return stopReason(now) ?? `job ${now.job}`;
  return stopReason(now) ?? (now.stage === 'running' ? null : `stage ${now.stage} elsewhere`);
}
