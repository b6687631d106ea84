// The job document, its stages and the state machines that guard them. Shared by
// the API server, the workers (pipeline orchestrator) and the hpc-bridge.
import { JOB_TYPES, type JobType, type JobTypeContract, type StageRunner, type StageSpec } from '@wpv/schema';

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type StageState = 'pending' | 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
/** A stage of a job type's graph (JOB_TYPES in @wpv/schema): any name its type declares. */
export type StageName = string;
export type { StageRunner };

export const TERMINAL_JOB_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];
export const ACTIVE_JOB_STATES: readonly JobState[] = ['queued', 'running'];

/** For each target state, the states it may be entered from: anything else is a late or duplicate update. */
export const JOB_MOVES: Record<JobState, readonly JobState[]> = {
  queued: [],
  running: ['queued'],
  succeeded: ['running'],
  failed: ['queued', 'running'],
  cancelled: ['queued', 'running'],
};
/**
 * A stage asked to stop (its job is being cancelled) gets the event `running → running`, the one
 * move no state machine step makes: from then on it may only be recorded cancelled. A worker
 * stage's success and the cancel's request insert the same next event, so exactly one of them wins.
 */
export const isStopRequest = (move: { from: string; to: string }) => move.from === 'running' && move.to === 'running';

export const STAGE_MOVES: Record<StageState, readonly StageState[]> = {
  pending: ['running'], // a transient failure (lost node, submit error) puts the stage back to wait for a retry
  queued: ['pending'],
  running: ['queued'],
  succeeded: ['running'],
  failed: ['pending', 'queued', 'running'],
  cancelled: ['pending', 'queued', 'running'],
};

export interface StageCommand {
  argv: string[];
  ranks: number;
  threads: number;
  /** Cluster nodes the ranks are spread over (Slurm); absent or 1: one node. */
  nodes?: number;
  /** Files (relative to the job directory) that must exist after a zero exit. */
  outputs: string[];
  /** Wall-time limit of the program (absent on commands recorded before limits existed). */
  timeLimitSeconds?: number;
}

export interface StageMetrics {
  queueWaitSeconds: number | null;
  runSeconds: number | null;
  cpuSeconds: number | null;
  peakMemoryKb: number | null;
  ranks: number;
  threads: number;
}

export interface SeriesPoint {
  iteration: number;
  stress: number | null;
  temperature: number | null;
}

export interface StageDoc {
  name: StageName;
  runner: StageRunner;
  needs: StageName[];
  state: StageState;
  attempts: number;
  command: StageCommand | null;
  queuedAt: Date | null;
  startedAt: Date | null;
  endedAt: Date | null;
  retryAt: Date | null;
  backend: { kind: string; jobId: string | null } | null;
  /** When its program got its CPUs and started (the wrapper's launch record); null while it waits for them. */
  launchedAt: Date | null;
  exitCode: number | null;
  /** The program's latest JSON progress line. */
  progress: Record<string, unknown> | null;
  /** Stress per iteration, for the job page's chart (bounded). */
  series: SeriesPoint[];
  metrics: StageMetrics | null;
  error: string | null;
  /** assemble: the stored plot. */
  plotId?: string;
}

export interface HistoryEntry {
  at: Date;
  stage: StageName | null;
  from: string;
  to: string;
  reason: string;
}

export interface JobInput {
  originalName: string;
  bytes: number;
  /** File name inside the job directory. */
  file: string;
  /** Rows of the input: sequences, matrix order or vectors. */
  points: number;
  /** distance-matrix: the DA-MDS weight matrix, if one was sent. */
  weights?: { originalName: string; bytes: number; file: string };
  /** Points in the sample when the job interpolates the others (more points than params.sampleSize). */
  sample?: number;
  /** Bytes of the distance matrix its plot will keep for re-clustering (2·N²), when it keeps one. */
  keptBytes?: number;
}

/** The stored part of a job: it never changes after submission. */
export interface JobRecord {
  _id: string;
  owner: string;
  name: string;
  type: JobType;
  params: Record<string, unknown>;
  input: JobInput;
  /** Absolute path of the job's staging directory (on the shared path). */
  workdir: string;
  stageOrder: StageName[];
  retryOf: string | null;
  createdAt: Date;
}

/** The n-th job a user submitted, under the id "<owner>/<n>": a user's list is read by _id, newest first. */
export interface OwnedJob {
  _id: string;
  jobId: string;
}

/**
 * A queued or running job: inserted with the job, deleted when it ends. The per-user
 * limit and the sweeper scan these few documents instead of every job ever run.
 */
export interface ActiveJob {
  _id: string; // the job id
  owner: string;
  /** The JobSlot this job holds (absent on jobs queued before slots existed). */
  slot?: string;
  /** When an event was last appended (to within TOUCH_EVERY_MS): the sweeper looks for idle jobs by it. */
  touchedAt: Date;
  /** The job's input.keptBytes: the owner's storage quota holds them for it until it ends. */
  keptBytes?: number;
}

/**
 * One of a user's active-job slots, "<owner>/<k>" for k below the per-user limit. A
 * submission takes the first free k by insertOne: the unique _id makes concurrent
 * submissions take different slots or none, which a count-then-insert cannot do on
 * FerretDB. Deleted when the job ends.
 */
export interface JobSlot {
  _id: string;
  jobId: string;
  at: Date;
}

/**
 * One accepted transition. Its _id is "<job>/<entity>/<seq>": two writers racing
 * for the same move insert the same _id and the store lets exactly one win. This
 * (not conditional updates) makes the guards hold on FerretDB, whose updates of
 * one document are not isolated from each other.
 */
export interface JobEvent {
  _id: string;
  jobId: string;
  /** "job" or a stage name. */
  entity: string;
  seq: number;
  at: Date;
  from: string;
  to: string;
  reason: string;
  /** Stage fields set by this move (command, attempts, exitCode, metrics, error, plotId, ...). */
  data: Record<string, unknown>;
}

/** What the bridge alone writes about a stage it runs: backend handle and live progress. */
export interface StageTrack {
  _id: string; // "<job>/<stage>"
  jobId: string;
  stage: StageName;
  /** True from just before submission until the bridge stops following the stage. */
  open: boolean;
  backend: { kind: string; jobId: string | null } | null;
  launchedAt?: Date | null;
  progress: Record<string, unknown> | null;
  series: SeriesPoint[];
  version: number;
  at: Date;
}

/** A job as everything else sees it: the record folded with its events and progress. */
export interface JobDoc extends JobRecord {
  state: JobState;
  stages: Record<string, StageDoc>;
  plotId: string | null;
  error: string | null;
  /** Recorded by stages (assemble: DA-PWC's warnings), in order. */
  warnings: string[];
  history: HistoryEntry[];
  /** Moves with every event and progress update; the events stream sends a snapshot when it does. */
  revision: number;
  updatedAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** A job's stage graph: its type's, or the interpolating one when only a sample gets the full pipeline. */
export function stageGraph(type: JobType, input?: Pick<JobInput, 'sample'>): readonly StageSpec[] {
  const contract: JobTypeContract = JOB_TYPES[type];
  return input?.sample !== undefined && contract.interpolatedStages ? contract.interpolatedStages : contract.stages;
}

/** A job's stages, all pending, from its stage graph. */
export function newStages(type: JobType, input?: Pick<JobInput, 'sample'>): { order: StageName[]; stages: Record<string, StageDoc> } {
  const stages: Record<string, StageDoc> = {};
  const graph = stageGraph(type, input);
  for (const { name, runner, needs } of graph) {
    stages[name] = {
      name,
      runner,
      needs: [...needs],
      state: 'pending',
      attempts: 0,
      command: null,
      queuedAt: null,
      startedAt: null,
      endedAt: null,
      retryAt: null,
      backend: null,
      launchedAt: null,
      exitCode: null,
      progress: null,
      series: [],
      metrics: null,
      error: null,
    };
  }
  return { order: graph.map((s) => s.name), stages };
}

export const isTerminalJob = (state: JobState) => TERMINAL_JOB_STATES.includes(state);

const JOB_PLOT = 'job-';
/**
 * A job's plot id: a redone assemble (its worker died between the ingest and recording the stage)
 * finds the plot stored before, or replaces a half-stored one, instead of storing a second.
 */
export const jobPlotId = (jobId: string) => `${JOB_PLOT}${jobId}`;
/** The job that made a plot, read from the plot's id (null for an uploaded plot). */
export const plotJobId = (plotId: string) => (plotId.startsWith(JOB_PLOT) ? plotId.slice(JOB_PLOT.length) : null);
