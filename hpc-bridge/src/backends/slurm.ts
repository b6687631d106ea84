// Slurm backend: sbatch --parsable with the gateway job and stage in the Slurm job
// name and comment; one squeue call per poll for every tracked job; a job missing
// from squeue is confirmed by its exit.json or by `scontrol show job`, and never
// taken for a success without the exit record; scancel to cancel.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { STAGE_FILES, exists } from '@wpv/jobs/workdir';
import { RUN_STAGE, jobName, mpirunArgv, stageEnv, type Backend, type BackendState, type Handle, type Submission } from './backend.ts';

const run = promisify(execFile);
/** Slurm states meaning the allocation failed under the job, not the program: worth a retry. */
const TRANSIENT = new Set(['NODE_FAIL', 'BOOT_FAIL', 'PREEMPTED', 'DEADLINE']);
/**
 * A job Slurm requeued and held: after a failed launch, or by `scontrol requeuehold` (squeue's
 * reason "job requeued in held state", scontrol's "job_requeued_in_held_state"). Its state may
 * still read COMPLETING while the first run is being killed: the reason names it.
 */
const requeuedHeld = (state: string | undefined, reason: string) =>
  state === 'REQUEUE_HOLD' || /launch[ _]failed|requeued[ _]in[ _]held/i.test(reason);

export class SlurmBackend implements Backend {
  readonly kind = 'slurm';

  constructor(private readonly extraArgs: string[] = []) {}

  async submit(s: Submission): Promise<string> {
    const { stdout } = await run('sbatch', [
      '--parsable',
      `--job-name=${jobName(s)}`,
      `--comment=wpv:${s.jobId}/${s.stage}`,
      `--ntasks=${s.command.ranks}`,
      // Exactly the nodes asked for: Slurm would otherwise spread the ranks as it likes (mpirun
      // inside the allocation starts them on every node through Slurm).
      `--nodes=${s.command.nodes ?? 1}`,
      `--cpus-per-task=${s.command.threads}`,
      `--chdir=${s.dir}`,
      `--output=${path.join(s.dir, 'slurm.out')}`,
      // Slurm's limit (whole minutes) backs up the wrapper's own, which ends the program with an exit record.
      ...(s.command.timeLimitSeconds ? [`--time=${Math.ceil(s.command.timeLimitSeconds / 60) + 1}`] : []),
      ...this.extraArgs,
      RUN_STAGE,
      s.dir,
      ...mpirunArgv(s.command),
    ], { env: { ...process.env, ...stageEnv(s.command) } });
    const id = stdout.trim().split(';')[0]!;
    if (!/^\d+$/.test(id)) throw new Error(`sbatch printed "${stdout.trim()}", not a job id`);
    return id;
  }

  async poll(handles: Handle[]): Promise<Map<string, BackendState>> {
    const states = new Map<string, BackendState>();
    if (!handles.length) return states;
    // Keyed by id and working directory (the stage's own): a slurmctld that crashed before
    // saving its state forgets the latest submissions and hands their ids out again.
    const { stdout } = await run('squeue', ['--noheader', '--all', '--format=%i|%T|%Z|%r']);
    const queued = new Map(stdout.trim().split('\n').filter(Boolean).map((line) => {
      const [id, state, dir, reason = ''] = line.trim().split('|');
      return [`${id}|${dir}`, { state: state!, reason }] as const;
    }));
    for (const h of handles) {
      const { state, reason } = queued.get(`${h.id}|${h.dir}`) ?? { state: undefined, reason: '' };
      if (await exists(path.join(h.dir, STAGE_FILES.exit))) states.set(h.id, { state: 'ended' });
      else if (state && requeuedHeld(state, reason)) states.set(h.id, await this.dropHeld(h, reason || state));
      else if (state === 'PENDING' || state === 'CONFIGURING') states.set(h.id, { state: 'waiting' });
      else if (state && !['COMPLETING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'OUT_OF_MEMORY'].includes(state) && !TRANSIENT.has(state)) {
        states.set(h.id, { state: 'running' });
      } else states.set(h.id, await this.confirmEnd(h));
    }
    return states;
  }

  /**
   * Slurm holds a requeued job (e.g. its launch failed on a node drained after a slurmctld
   * crash) until an operator releases it: cancel it, so the stage is submitted afresh.
   */
  private async dropHeld(h: Handle, why: string): Promise<BackendState> {
    await this.cancel(h);
    return { state: 'lost', reason: `Slurm held job ${h.id} after its launch failed (${why})` };
  }

  async cancel(h: Handle): Promise<void> {
    await run('scancel', [h.id]).catch(() => {});
  }

  /**
   * Every state, so a job that already ended while no bridge ran (kept by slurmctld for MinJobAge)
   * is found and collected, not submitted again; the newest of the name is the latest attempt.
   */
  async find(s: Submission): Promise<string | null> {
    const { stdout } = await run('squeue', ['--noheader', '--all', '--states=all', `--name=${jobName(s)}`, '--format=%i']);
    const ids = stdout.split('\n').map((line) => line.trim()).filter(Boolean).map(Number);
    return ids.length ? String(Math.max(...ids)) : null;
  }

  /** The job left squeue (or is finishing) without an exit record yet: ask scontrol why. */
  private async confirmEnd(h: Handle): Promise<BackendState> {
    const info = await run('scontrol', ['show', 'job', h.id]).then((r) => r.stdout, () => '');
    const state = /JobState=(\S+)/.exec(info)?.[1];
    if (!state) return { state: 'lost', reason: `Slurm no longer knows job ${h.id} and it left no exit record` };
    if (/WorkDir=(\S+)/.exec(info)?.[1] !== h.dir) return { state: 'lost', reason: `Slurm lost job ${h.id} (the id now names another job)` };
    const reason = /Reason=(\S+)/.exec(info)?.[1] ?? '';
    // squeue read COMPLETING while a requeue-hold killed the first run; scontrol now reads it held.
    if (requeuedHeld(state, reason)) return this.dropHeld(h, reason);
    if (state === 'COMPLETING' || state === 'RUNNING') return { state: 'running' }; // exit.json is being written
    if (TRANSIENT.has(state)) return { state: 'lost', reason: `Slurm job ${h.id} ended ${state}` };
    // Ended without running the wrapper to its end (cancelled, timed out, killed for memory).
    const exit = /ExitCode=(\S+)/.exec(info)?.[1] ?? '?';
    return { state: 'failed', reason: `Slurm job ${h.id} ended ${state} (exit ${exit}) without an exit record` };
  }
}
