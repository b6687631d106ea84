// What every execution backend provides. A stage runs through bin/run-stage.sh in
// its stage directory, which records launch.json and exit.json there: the files,
// not the bridge's memory, say how a program ended, so a restarted bridge can
// re-attach to everything it had started.
import path from 'node:path';
import type { StageCommand } from '@wpv/jobs/model';

export const RUN_STAGE = path.resolve(import.meta.dirname, '../../bin/run-stage.sh');

export interface Submission {
  /** Gateway job id and stage: the backend's job name carries them. */
  jobId: string;
  stage: string;
  /** Stage directory: the program's working directory and log location. */
  dir: string;
  command: StageCommand;
}

/** A submitted stage as the backend knows it: `id` is a process group or a Slurm job id. */
export interface Handle {
  id: string;
  dir: string;
}

export type BackendState =
  | { state: 'waiting' } // submitted, not started (Slurm PENDING)
  | { state: 'running' }
  | { state: 'ended' } // exit.json is there to collect
  | { state: 'failed'; reason: string } // ended by the scheduler (time limit, memory, scancel by hand)
  | { state: 'lost'; reason: string }; // gone without an exit record: node failure, killed host, ... (retried)

export interface Backend {
  readonly kind: 'local' | 'slurm';
  submit(submission: Submission): Promise<string>;
  /** One batched status query for every handle. */
  poll(handles: Handle[]): Promise<Map<string, BackendState>>;
  cancel(handle: Handle): Promise<void>;
  /** A submission whose id was never recorded (the bridge died in between), looked up by its name. */
  find(submission: Submission): Promise<string | null>;
  /** Optional hint that a program ended (polling stays the source of truth). */
  watch?(onEnd: () => void): void;
}

/** The launcher line of a stage: mpirun with R ranks and T OpenMP threads per rank. */
export function mpirunArgv(command: StageCommand): string[] {
  const asRoot = process.getuid?.() === 0 ? ['--allow-run-as-root'] : [];
  return [
    'mpirun',
    ...asRoot,
    '--oversubscribe',
    '--bind-to', 'none',
    '-np', String(command.ranks),
    '-x', `OMP_NUM_THREADS=${command.threads}`,
    ...command.argv,
  ];
}

/** The wrapper's environment for a stage: its wall-time limit. */
export const stageEnv = (command: StageCommand): Record<string, string> =>
  command.timeLimitSeconds ? { WPV_TIME_LIMIT: String(command.timeLimitSeconds) } : {};

export const jobName = (s: { jobId: string; stage: string }) => `wpv-${s.jobId}-${s.stage}`;
