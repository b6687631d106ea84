// Job storage as an append-only event log with guarded transitions. A move reads
// the entity's last event, checks the state machine, and inserts the next event
// under the id "<job>/<entity>/<seq+1>": a concurrent writer (a redelivered
// message, a stage finishing while the user cancels) collides on that id and
// re-checks, so late and duplicate updates are refused. A job as the API shows it
// is folded from its record, its events (which are also its history) and the
// progress the bridge records.
//
// Every read of a job is by _id: FerretDB (SQLite) answers only _id equality from
// an index (the one stack/ferretdb adds) and filters anything else document by
// document (~0.1 ms each). Events and records never change, so each process caches them and
// only probes for the next sequence number of each entity. What must be found by
// other fields (a user's active jobs, idle jobs) is kept in job_active, which
// holds only the jobs not yet ended: its scans do not grow with the jobs ever run.
// A user's list is numbered "<owner>/<n>" (job_owners), read by _id newest first.
import { MongoServerError, type Collection } from 'mongodb';
import {
  ACTIVE_JOB_STATES,
  JOB_MOVES,
  type ActiveJob,
  type OwnedJob,
  STAGE_MOVES,
  isStopRequest,
  isTerminalJob,
  newStages,
  type JobDoc,
  type JobEvent,
  type JobRecord,
  type JobSlot,
  type JobState,
  type SeriesPoint,
  type StageName,
  type StageState,
  type StageTrack,
} from './model.ts';

/** Stage moves that start work: allowed only while the job itself is still active. */
const WORK_STARTING: readonly StageState[] = ['pending', 'queued', 'running'];
const JOB = 'job';
const MAX_RACES = 20;
const CACHED_JOBS = 2000;
/** An active job's touchedAt is rewritten at most this often by one process (one write per event otherwise). */
const TOUCH_EVERY_MS = 10_000;
/** A slot whose job record never appeared (its submission died half-way) is taken back after this long. */
const ORPHAN_SLOT_MS = 60_000;

/** Why a running stage must stop, or null. A job that succeeded (another worker ran the stage) is no reason. */
export function stopReason(now: StageStates): string | null {
  if (now.stopping || now.job === 'cancelled') return 'job cancelled';
  if (now.job === null) return 'job deleted';
  if (now.job === 'failed') return 'job failed';
  return null;
}

export interface StageStates {
  job: JobState | null;
  jobEndedAt: Date | null;
  stage: StageState;
  /** The stage was asked to stop (its job is being cancelled): it may only be recorded cancelled. */
  stopping: boolean;
}

export interface JobCollections {
  jobs: Collection<JobRecord>;
  jobEvents: Collection<JobEvent>;
  jobTracks: Collection<StageTrack>;
  jobActive: Collection<ActiveJob>;
  jobOwners: Collection<OwnedJob>;
  jobSlots: Collection<JobSlot>;
}

/** Bytes of the distance matrices that `owner`'s queued and running jobs will keep with their plots. */
export async function keptBytesOfActiveJobs(active: Collection<ActiveJob>, owner: string): Promise<number> {
  const jobs = await active.find({ owner, keptBytes: { $gt: 0 } }, { projection: { keptBytes: 1 } }).toArray();
  return jobs.reduce((sum, job) => sum + job.keptBytes!, 0);
}

export class JobRepo {
  readonly jobs: Collection<JobRecord>;
  private readonly events: Collection<JobEvent>;
  private readonly tracks: Collection<StageTrack>;
  private readonly active: Collection<ActiveJob>;
  private readonly owned: Collection<OwnedJob>;
  private readonly slots: Collection<JobSlot>;
  /** Per user, a lower bound of the number of jobs submitted (the next free list number). */
  private readonly ownedCount = new Map<string, number>();
  /** Immutable records and events by job id, least recently used first; when this process last touched the job. */
  private readonly cache = new Map<string, { record: JobRecord; events: Map<string, JobEvent[]>; touchedAt: number }>();

  constructor(store: JobCollections) {
    this.jobs = store.jobs;
    this.events = store.jobEvents;
    this.tracks = store.jobTracks;
    this.active = store.jobActive;
    this.owned = store.jobOwners;
    this.slots = store.jobSlots;
  }

  /**
   * Stores a new queued job if its owner has fewer than `maxActive` jobs queued or running;
   * false (nothing stored) when every slot is taken. Atomic against concurrent submissions.
   */
  async create(record: JobRecord, reason: string, maxActive: number): Promise<boolean> {
    const slot = await this.takeSlot(record.owner, record._id, maxActive);
    if (!slot) return false;
    await this.jobs.insertOne(record);
    await this.events.insertOne(event(record._id, JOB, 0, '', 'queued', reason, {}));
    await this.active.insertOne({
      _id: record._id, owner: record.owner, slot, touchedAt: record.createdAt,
      ...(record.input.keptBytes && { keptBytes: record.input.keptBytes }),
    });
    for (let race = 0; race < MAX_RACES; race++) {
      const n = await this.countOwned(record.owner);
      try {
        await this.owned.insertOne({ _id: `${record.owner}/${n}`, jobId: record._id });
        this.ownedCount.set(record.owner, n + 1);
        return true;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        this.ownedCount.set(record.owner, n + 1); // a concurrent submission took n
      }
    }
    throw new Error(`job ${record._id}: no free list number for ${record.owner} in ${MAX_RACES} attempts`);
  }

  /** Removes a job that never got queued (the broker refused it): its only event is the creation. */
  async remove(id: string): Promise<void> {
    this.cache.delete(id);
    await this.retire(id);
    await this.events.deleteOne({ _id: `${id}/${JOB}/0` });
    await this.jobs.deleteOne({ _id: id });
  }

  async get(id: string): Promise<JobDoc | null> {
    const cached = await this.cached(id);
    if (!cached) return null;
    const entities = [JOB, ...cached.record.stageOrder];
    const hpcStages = cached.record.stageOrder.filter((name) => newStages(cached.record.type, cached.record.input).stages[name]!.runner === 'hpc');
    const [events, tracks] = await Promise.all([
      Promise.all(entities.map((entity) => this.eventsOf(id, entity))),
      Promise.all(hpcStages.map((stage) => this.tracks.findOne({ _id: `${id}/${stage}` }))),
    ]);
    return fold(cached.record, events.flat(), tracks.filter((t): t is StageTrack => t !== null));
  }

  async getMany(ids: string[]): Promise<JobDoc[]> {
    return (await Promise.all(ids.map((id) => this.get(id)))).filter((job): job is JobDoc => job !== null);
  }

  /**
   * The current state of a job and of one of its stages (two probes, for the bridge's and the
   * workers' polls), when the job ended (its endedAt; null while it is active) and whether the
   * stage was asked to stop (isStopRequest).
   */
  async states(id: string, stage: StageName): Promise<StageStates> {
    const [job, last] = await Promise.all([this.last(id, JOB), this.last(id, stage)]);
    const state = (job?.to as JobState) ?? null;
    return {
      job: state,
      jobEndedAt: state && isTerminalJob(state) ? job!.at : null,
      stage: (last?.to as StageState) ?? 'pending',
      stopping: last !== null && isStopRequest(last),
    };
  }

  /** A user's jobs, newest first (a removed job leaves a gap in the numbering, skipped here). */
  async listOwned(owner: string, limit = 200): Promise<JobDoc[]> {
    const n = await this.countOwned(owner);
    const numbers = Array.from({ length: Math.min(n, limit) }, (_, i) => n - 1 - i);
    const entries = await Promise.all(numbers.map((k) => this.owned.findOne({ _id: `${owner}/${k}` })));
    return this.getMany(entries.filter((e): e is OwnedJob => e !== null).map((e) => e.jobId));
  }

  /** How many jobs the user submitted: the cached count, then probes for any added since. */
  private async countOwned(owner: string): Promise<number> {
    let n = this.ownedCount.get(owner) ?? 0;
    while (await this.owned.findOne({ _id: `${owner}/${n}` }, { projection: { _id: 1 } })) n++;
    this.ownedCount.set(owner, n);
    return n;
  }

  /** Queued or running jobs of a user (for the per-user limit): a scan of the active jobs only. */
  countActive(owner: string): Promise<number> {
    return this.active.countDocuments({ owner });
  }

  /** Queued or running jobs of all users (for the global queue cap). */
  countAllActive(): Promise<number> {
    return this.active.countDocuments({});
  }

  /** Drops an ended job from the active ones and frees its slot (after its final event; again by whoever finds it ended, after a crash). */
  async retire(id: string): Promise<void> {
    const active = await this.active.findOne({ _id: id });
    // The slot first: a crash in between leaves the active entry, and the next retire finds the slot again.
    if (active?.slot) await this.slots.deleteOne({ _id: active.slot, jobId: id });
    await this.active.deleteOne({ _id: id });
  }

  /** The first free slot "<owner>/<k>", k < max; one pass again after taking back slots of ended jobs. */
  private async takeSlot(owner: string, jobId: string, max: number): Promise<string | null> {
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < max; k++) {
        const _id = `${owner}/${k}`;
        try {
          await this.slots.insertOne({ _id, jobId, at: new Date() });
          return _id;
        } catch (err) {
          if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        }
      }
      if (!(await this.reclaimSlots(owner, max))) return null;
    }
    return null;
  }

  /** Frees slots still held by ended jobs (a process died between the end and the retire); true if any. */
  private async reclaimSlots(owner: string, max: number): Promise<boolean> {
    let freed = false;
    for (let k = 0; k < max; k++) {
      const slot = await this.slots.findOne({ _id: `${owner}/${k}` });
      if (!slot) {
        freed = true; // freed meanwhile
        continue;
      }
      const record = await this.jobs.findOne({ _id: slot.jobId }, { projection: { _id: 1 } });
      const state = record ? ((await this.last(slot.jobId, JOB))?.to as JobState | undefined) : undefined;
      const ended = record ? state !== undefined && isTerminalJob(state) : Date.now() - +slot.at > ORPHAN_SLOT_MS;
      if (ended && (await this.slots.deleteOne({ _id: slot._id, jobId: slot.jobId })).deletedCount) freed = true;
    }
    return freed;
  }

  /** Ids of active jobs with no event since `before` (to within TOUCH_EVERY_MS). */
  async idle(before: Date): Promise<string[]> {
    const idle = await this.active.find({ touchedAt: { $lt: before } }, { projection: { _id: 1 } }).toArray();
    return idle.map((r) => r._id);
  }

  /** Moves the job to `to` if its current state allows it; false when the move was refused. */
  async moveJob(id: string, to: JobState, reason: string, data: { error?: string } = {}): Promise<boolean> {
    const moved = await this.append(id, JOB, to, reason, data, (from) => JOB_MOVES[to].includes(from as JobState));
    if (moved && isTerminalJob(to)) await this.retire(id);
    return moved;
  }

  /**
   * Moves one stage to `to` if its state allows it (and, for work-starting moves, the job is
   * active). A stage asked to stop may only be cancelled.
   */
  async moveStage(id: string, stage: StageName, to: StageState, reason: string, data: Record<string, unknown> = {}): Promise<boolean> {
    if (WORK_STARTING.includes(to)) {
      const job = await this.last(id, JOB);
      if (!job || !ACTIVE_JOB_STATES.includes(job.to as JobState)) return false;
    }
    return this.append(id, stage, to, reason, data, (from, last) => STAGE_MOVES[to].includes(from as StageState) && (to === 'cancelled' || !last || !isStopRequest(last)));
  }

  /**
   * Cancels an active job: its stages first, then the job, so that no stage succeeds after the
   * job's end. Waiting stages are cancelled; a running stage is asked to stop (it can no longer
   * succeed; its worker, or the bridge that stops its program, records it cancelled, ended with
   * the job). Not cancelled: the state that refused it, 'finishing' when every stage had already
   * succeeded (only the job's own success is left: too late to cancel).
   */
  async cancel(id: string, reason: string): Promise<{ cancelled: true } | { cancelled: false; state: JobState | 'finishing' | null }> {
    const entry = await this.cached(id);
    const job = entry && ((await this.last(id, JOB))?.to as JobState | undefined);
    if (!entry || !job || !ACTIVE_JOB_STATES.includes(job)) return { cancelled: false, state: job ?? null };
    const left: StageState[] = [];
    for (const name of entry.record.stageOrder) left.push(await this.stopStage(id, name, reason));
    if (left.every((state) => state === 'succeeded')) return { cancelled: false, state: 'finishing' };
    if (await this.moveJob(id, 'cancelled', reason)) return { cancelled: true };
    return { cancelled: false, state: ((await this.last(id, JOB))?.to as JobState | undefined) ?? null };
  }

  /**
   * Fails an active job, then its stages that have not ended: waiting ones are cancelled; running
   * ones are failed too with `endRunning` (nothing runs them any more: a job whose message was
   * dead-lettered), else their worker or the bridge stops them, seeing the job failed.
   * False when the job had already ended.
   */
  async fail(id: string, error: string, { endRunning = false } = {}): Promise<boolean> {
    if (!(await this.moveJob(id, 'failed', error.slice(0, 500), { error }))) return false;
    const entry = await this.cached(id);
    const endedAt = (await this.last(id, JOB))?.at ?? new Date();
    for (const name of entry?.record.stageOrder ?? []) {
      const state = ((await this.last(id, name))?.to as StageState | undefined) ?? 'pending';
      if (state === 'pending' || state === 'queued') await this.moveStage(id, name, 'cancelled', 'job failed', { endedAt });
      else if (state === 'running' && endRunning) await this.moveStage(id, name, 'failed', `job failed: ${error}`.slice(0, 500), { endedAt, error });
    }
    return true;
  }

  /** Cancels a waiting stage or asks a running one to stop; returns the state it was left in. */
  private async stopStage(id: string, stage: StageName, reason: string): Promise<StageState> {
    for (let race = 0; race < MAX_RACES; race++) {
      const last = await this.last(id, stage);
      const state = (last?.to as StageState | undefined) ?? 'pending';
      const unchanged = (from: string, now: JobEvent | null) => from === state && now?._id === last?._id;
      if (state === 'pending' || state === 'queued') {
        if (await this.append(id, stage, 'cancelled', reason, { endedAt: new Date() }, unchanged)) return 'cancelled';
      } else if (state === 'running' && !isStopRequest(last!)) {
        if (await this.append(id, stage, 'running', `stopping: ${reason}`, {}, unchanged)) return state;
      } else {
        return state;
      }
    }
    throw new Error(`job ${id}: ${stage} kept changing under ${MAX_RACES} attempts to stop it`);
  }

  /** The bridge's record of a stage it is about to submit (open) or has stopped following (closed). */
  async track(id: string, stage: StageName, fields: Partial<Pick<StageTrack, 'open' | 'backend' | 'launchedAt'>>): Promise<void> {
    const set: Record<string, unknown> = { ...fields, at: new Date() };
    if (fields.open) Object.assign(set, { progress: null, series: [], backend: null, launchedAt: null }); // a new attempt starts blank
    await this.tracks.updateOne(
      { _id: `${id}/${stage}` },
      { $set: set, $setOnInsert: { jobId: id, stage, version: 0 } as Partial<StageTrack> } as never,
      { upsert: true },
    );
  }

  async setProgress(id: string, stage: StageName, progress: Record<string, unknown>, series: SeriesPoint[]): Promise<void> {
    await this.tracks.updateOne({ _id: `${id}/${stage}` }, { $set: { progress, series, at: new Date() }, $inc: { version: 1 } });
  }

  /** Stages the bridge had open: it re-attaches to them at start-up (a scan, once). */
  openTracks(): Promise<StageTrack[]> {
    return this.tracks.find({ open: true }).toArray();
  }

  private async last(id: string, entity: string): Promise<JobEvent | null> {
    return (await this.eventsOf(id, entity)).at(-1) ?? null;
  }

  private async cached(id: string) {
    let entry = this.cache.get(id);
    if (entry) {
      this.cache.delete(id); // re-inserted below: most recently used last
    } else {
      const record = await this.jobs.findOne({ _id: id });
      if (!record) return null;
      entry = { record, events: new Map(), touchedAt: 0 };
    }
    this.cache.set(id, entry);
    if (this.cache.size > CACHED_JOBS) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  /** All events of one entity: the cached ones plus any written since, probed by sequence number. */
  private async eventsOf(id: string, entity: string): Promise<JobEvent[]> {
    const entry = await this.cached(id);
    if (!entry) return [];
    const known = entry.events.get(entity) ?? [];
    let next = (known.at(-1)?.seq ?? (entity === JOB ? -1 : 0)) + 1;
    for (;;) {
      const found = await this.events.findOne({ _id: `${id}/${entity}/${next}` });
      if (!found) break;
      known.push(found);
      next++;
    }
    entry.events.set(entity, known);
    return known;
  }

  private async append(
    id: string,
    entity: string,
    to: string,
    reason: string,
    data: Record<string, unknown>,
    allowed: (from: string, last: JobEvent | null) => boolean,
  ): Promise<boolean> {
    for (let race = 0; race < MAX_RACES; race++) {
      const last = await this.last(id, entity);
      const from = last?.to ?? (entity === JOB ? '' : 'pending');
      if (!allowed(from, last)) return false;
      const next = event(id, entity, (last?.seq ?? 0) + 1, from, to, reason, data);
      try {
        await this.events.insertOne(next);
        const entry = this.cache.get(id);
        entry?.events.get(entity)?.push(next);
        if (entry && +next.at - entry.touchedAt >= TOUCH_EVERY_MS) {
          entry.touchedAt = +next.at;
          await this.active.updateOne({ _id: id }, { $set: { touchedAt: next.at } }); // no upsert: an ended job stays out
        }
        return true;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        // Another writer moved this entity first: look again.
      }
    }
    throw new Error(`job ${id}: ${entity} kept changing under ${MAX_RACES} attempts to move it to ${to}`);
  }
}

function event(jobId: string, entity: string, seq: number, from: string, to: string, reason: string, data: Record<string, unknown>): JobEvent {
  return { _id: `${jobId}/${entity}/${seq}`, jobId, entity, seq, at: new Date(), from, to, reason, data };
}

function fold(record: JobRecord, events: JobEvent[], tracks: StageTrack[]): JobDoc {
  events.sort((a, b) => +a.at - +b.at || a.seq - b.seq);
  const { stages } = newStages(record.type, record.input);
  const job: JobDoc = {
    ...record,
    state: 'queued',
    stages,
    plotId: null,
    error: null,
    warnings: [],
    history: [],
    revision: events.length,
    updatedAt: record.createdAt,
    startedAt: null,
    endedAt: null,
  };
  const endedWithProgress = new Set<string>();
  for (const e of events) {
    job.history.push({ at: e.at, stage: e.entity === JOB ? null : (e.entity as StageName), from: e.from, to: e.to, reason: e.reason });
    job.updatedAt = e.at;
    if (e.entity === JOB) {
      job.state = e.to as JobState;
      if (e.to === 'running') job.startedAt = e.at;
      if (isTerminalJob(job.state)) job.endedAt = e.at;
      if (typeof e.data.error === 'string') job.error = e.data.error;
      continue;
    }
    const stage = stages[e.entity];
    if (!stage) continue;
    Object.assign(stage, e.data, { state: e.to });
    if (e.data.progress) endedWithProgress.add(e.entity);
    if (typeof e.data.plotId === 'string') job.plotId = e.data.plotId;
    if (Array.isArray(e.data.warnings)) job.warnings.push(...e.data.warnings);
  }
  for (const t of tracks) {
    const stage = stages[t.stage];
    if (!stage) continue;
    stage.backend = t.backend;
    stage.launchedAt = t.launchedAt ?? null;
    // A stage's end event carries its last progress line; the track may hold an older one.
    if (t.progress && !endedWithProgress.has(t.stage)) {
      stage.progress = t.progress;
      stage.series = t.series;
    }
    job.revision += t.version + (t.backend?.jobId ? 1 : 0) + (t.launchedAt ? 1 : 0);
    if (t.at > job.updatedAt) job.updatedAt = t.at;
  }
  return job;
}
