// Job gateway settings from the environment, shared by the API, workers and bridge.
import os from 'node:os';
import path from 'node:path';
import { intFromEnv } from './env.ts';

export type BackendKind = 'local' | 'slurm';

export interface JobConfig {
  /** Shared staging path: one directory per job (inputs, stage outputs, logs). */
  jobsDir: string;
  /** Directory holding the swg, damds and dapwc programs. */
  kernelsDir: string;
  backend: BackendKind;
  pollMs: number;
  /** A running stage's progress reaches the store at most this often (its end carries the last line). */
  progressMs: number;
  /** Local backend: the CPUs its programs share; a program takes ranks × threads of them. */
  localSlots: number;
  /** Stages the bridge submits before it stops taking messages (the rest wait in RabbitMQ). */
  maxSubmitted: number;
  maxInputBytes: number;
  maxActivePerUser: number;
  /** Queued and running jobs of all users together: submissions beyond it get a 503. */
  maxActiveTotal: number;
  /** Largest sequence count / matrix order of a job. */
  maxPoints: number;
  /** Longest single sequence of a FASTA input (SWG's cost grows with the product of two lengths). */
  maxSequenceLength: number;
  /** Residues of a FASTA input, all sequences together. */
  maxResidues: number;
  /** Largest CSV of vectors (distances are computed in the worker). */
  maxVectorRows: number;
  /** CPUs one program may ask for (ranks × threads): the machine's cores locally, the largest allocation on Slurm. */
  maxCpus: number;
  /** CPUs a program gets when its job names no threads (split among its ranks, at most one per 1,000 points): the local slots, 1 on Slurm. */
  defaultCpus: number;
  /** Nodes one program's ranks may span: 1 locally; on Slurm, what the site allows (HPC_MAX_NODES). */
  maxNodes: number;
  /** Wall time of one stage's program; beyond it the program is stopped and the stage fails. */
  stageTimeLimitSeconds: number;
  /** Attempts of a stage that failed for a transient reason (lost process, submission error). */
  stageAttempts: number;
  /** on-success: remove the distance matrix of succeeded jobs (but a re-clusterable type's, until its plot is deleted); never: keep everything. */
  cleanup: 'on-success' | 'never';
  /** Prefix of the RabbitMQ queue names. */
  queuePrefix: string;
  /** Extra sbatch arguments (partition, account), space separated. */
  slurmArgs: string[];
  /** Memory per MPI rank given to damds, dapwc and interp (`--memory-limit`, e.g. "24G"): a matrix beyond it is streamed from disk; unset: each program takes the node's available memory. */
  memoryPerRank?: string;
}


function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name] || fallback;
  if (!allowed.includes(raw as T)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function memoryFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[1-9]\d{0,11}[KMG]?$/i.test(raw)) throw new Error(`${name} must be a byte count with an optional K, M or G suffix, got "${raw}"`);
  return raw;
}

export function loadJobConfig(dataDir: string, env: NodeJS.ProcessEnv = process.env): JobConfig {
  const root = path.resolve(import.meta.dirname, '../..');
  const slurm = env.HPC_BACKEND === 'slurm';
  const localSlots = intFromEnv(env, 'HPC_LOCAL_SLOTS', os.availableParallelism());
  return {
    jobsDir: path.resolve(env.JOBS_DIR || path.join(dataDir, 'jobs')),
    kernelsDir: path.resolve(env.KERNELS_BIN || path.join(root, 'kernels/build/bin')),
    backend: oneOf(env, 'HPC_BACKEND', ['local', 'slurm'], 'local'),
    pollMs: intFromEnv(env, 'HPC_POLL_MS', 1000),
    progressMs: intFromEnv(env, 'HPC_PROGRESS_MS', 2000),
    localSlots,
    maxSubmitted: intFromEnv(env, 'HPC_MAX_SUBMITTED', slurm ? 1000 : 2 * localSlots),
    maxInputBytes: intFromEnv(env, 'JOB_MAX_INPUT_BYTES', 256 * 1024 * 1024),
    maxActivePerUser: intFromEnv(env, 'JOB_MAX_ACTIVE', 20),
    maxActiveTotal: intFromEnv(env, 'JOB_MAX_QUEUED', 1000),
    maxPoints: intFromEnv(env, 'JOB_MAX_POINTS', 100_000),
    maxSequenceLength: intFromEnv(env, 'JOB_MAX_SEQUENCE_LENGTH', 100_000),
    maxResidues: intFromEnv(env, 'JOB_MAX_RESIDUES', 200_000_000),
    maxVectorRows: intFromEnv(env, 'JOB_MAX_VECTOR_ROWS', 20_000),
    maxCpus: intFromEnv(env, 'HPC_MAX_CPUS', slurm ? 1024 : os.availableParallelism()),
    // Locally a lone job uses the whole machine; on a cluster the site sizes jobs, so 1 unless told.
    defaultCpus: intFromEnv(env, 'HPC_DEFAULT_CPUS', slurm ? 1 : localSlots),
    maxNodes: slurm ? intFromEnv(env, 'HPC_MAX_NODES', 1) : 1,
    stageTimeLimitSeconds: intFromEnv(env, 'JOB_STAGE_TIME_LIMIT', 24 * 3600),
    stageAttempts: intFromEnv(env, 'JOB_STAGE_ATTEMPTS', 3),
    cleanup: oneOf(env, 'JOB_CLEANUP', ['on-success', 'never'], 'on-success'),
    queuePrefix: env.JOB_QUEUE_PREFIX || 'wpv',
    slurmArgs: (env.SLURM_SBATCH_ARGS ?? '').split(/\s+/).filter(Boolean),
    memoryPerRank: memoryFromEnv(env, 'HPC_MEMORY_PER_RANK'),
  };
}
