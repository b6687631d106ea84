// Guarded state transitions on job documents. Every move is one conditional update
// whose filter names the states it may leave: a late or duplicate update (a
// redelivered message, a stage finishing after a cancel) matches nothing and is
// ignored. Each successful move appends a timestamped history entry with its reason.
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import {
  ACTIVE_JOB_STATES,
  isTerminalJob,
  JOB_MOVES,
  STAGE_MOVES,
  type HistoryEntry,
  type JobDoc,
  type JobState,
  type SeriesPoint,
  type StageName,
  type StageState,
} from './model.ts';

/** Stage moves that start work: allowed only while the job itself is still active. */
const WORK_STARTING: readonly StageState[] = ['pending', 'queued', 'running'];

export class JobRepo {
  constructor(readonly jobs: Collection<JobDoc>) {}

  get(id: string): Promise<JobDoc | null> {
    return this.jobs.findOne({ _id: id });
  }

  /** Moves the job to `to` if its current state allows it; false when the move was refused. */
  async moveJob(id: string, to: JobState, reason: string, set: Partial<JobDoc> = {}): Promise<boolean> {
    const at = new Date();
    const times = to === 'running' ? { startedAt: at } : isTerminalJob(to) ? { endedAt: at } : {};
    // One conditional update per possible source state, so the history records the real one.
    for (const from of JOB_MOVES[to]) {
      const entry: HistoryEntry = { at, stage: null, from, to, reason };
      const result = await this.jobs.updateOne({ _id: id, state: from }, this.change({ state: to, ...times, ...set }, entry));
      if (result.modifiedCount === 1) return true;
    }
    return false;
  }

  /** Moves one stage to `to` if its state allows it (and, for work-starting moves, the job is active). */
  async moveStage(
    id: string,
    stage: StageName,
    to: StageState,
    reason: string,
    set: Record<string, unknown> = {},
  ): Promise<boolean> {
    const fields: Record<string, unknown> = { [`stages.${stage}.state`]: to };
    for (const [key, value] of Object.entries(set)) fields[`stages.${stage}.${key}`] = value;
    for (const from of STAGE_MOVES[to]) {
      const filter: Filter<JobDoc> = { _id: id, [`stages.${stage}.state`]: from };
      if (WORK_STARTING.includes(to)) filter.state = { $in: [...ACTIVE_JOB_STATES] };
      const entry: HistoryEntry = { at: new Date(), stage, from, to, reason };
      const result = await this.jobs.updateOne(filter, this.change(fields, entry));
      if (result.modifiedCount === 1) return true;
    }
    return false;
  }

  /** Latest progress of a running stage; ignored once the stage has left `running`. */
  async setProgress(id: string, stage: StageName, progress: Record<string, unknown>, series: SeriesPoint[]): Promise<void> {
    await this.jobs.updateOne(
      { _id: id, [`stages.${stage}.state`]: 'running' },
      {
        $set: { [`stages.${stage}.progress`]: progress, [`stages.${stage}.series`]: series, updatedAt: new Date() },
        $inc: { revision: 1 },
      },
    );
  }

  /** Non-terminal jobs last touched before `before`: the sweeper nudges them along. */
  stale(before: Date): Promise<JobDoc[]> {
    return this.jobs.find({ state: { $in: [...ACTIVE_JOB_STATES] }, updatedAt: { $lt: before } }).limit(200).toArray();
  }

  private change(set: Record<string, unknown>, entry: HistoryEntry): UpdateFilter<JobDoc> {
    return {
      $set: { ...set, updatedAt: entry.at },
      $push: { history: entry },
      $inc: { revision: 1 },
    } as UpdateFilter<JobDoc>;
  }
}
