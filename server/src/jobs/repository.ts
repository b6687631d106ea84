// Job storage as an append-only event log with guarded transitions. A move reads
// the entity's last event, checks the state machine, and inserts the next event
// under the id "<job>/<entity>/<seq+1>": a concurrent writer (a redelivered
// message, a stage finishing while the user cancels) collides on that id and
// re-checks, so late and duplicate updates are refused. A job as the API shows it
// is folded from its record, its events (which are also its history) and the
// progress the bridge records.
//
// Every read of a job is by _id: FerretDB (SQLite) pushes only _id equality down
// to SQL; anything else is filtered document by document (~0.1 ms each). Even an
// _id lookup scans its table, though, ~5 µs a row: FerretDB 1.24's _id index is on
// `sjson->"_id"` while its queries say `sjson->'$._id'`, so SQLite never uses it
// (measured: findOne by _id 1.7 ms CPU at 100 documents, 8.6 ms at 1,500; 15 ms for
// a miss). So the collections a job reads are split into SHARDS tables by a hash of
// the job id (of the owner for user lists): a lookup scans 1/SHARDS of the data.
// Events and records never change, so each process caches them and only probes
// for the next sequence number of each entity. What must be found by other fields
// (a user's active jobs, idle jobs) is kept in job_active, which holds only the
// jobs not yet ended. A user's list is numbered "<owner>/<n>", read newest first.
import { createHash } from 'node:crypto';
import { MongoServerError, type Collection, type Db, type Document } from 'mongodb';
import {
  ACTIVE_JOB_STATES,
  JOB_MOVES,
  type ActiveJob,
  type OwnedJob,
  STAGE_MOVES,
  isTerminalJob,
  newStages,
  type JobDoc,
  type JobEvent,
  type JobRecord,
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

const SHARDS = 32;

/** One logical collection stored as SHARDS collections "<name>.<k>", k from a hash of the key. */
class Sharded<T extends Document> {
  constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  of(key: string): Collection<T> {
    return this.db.collection<T>(`${this.name}.${createHash('sha1').update(key).digest().readUInt32BE(0) % SHARDS}`);
  }

  all(): Collection<T>[] {
    return Array.from({ length: SHARDS }, (_, k) => this.db.collection<T>(`${this.name}.${k}`));
  }
}

export interface JobCollections {
  db: Db;
  jobActive: Collection<ActiveJob>;
}

export class JobRepo {
  private readonly jobs: Sharded<JobRecord>;
  private readonly events: Sharded<JobEvent>;
  private readonly tracks: Sharded<StageTrack>;
  private readonly active: Collection<ActiveJob>;
  private readonly owned: Sharded<OwnedJob>;
  /** Per user, a lower bound of the number of jobs submitted (the next free list number). */
  private readonly ownedCount = new Map<string, number>();
  /** Immutable records and events by job id, least recently used first; when this process last touched the job. */
  private readonly cache = new Map<string, { record: JobRecord; events: Map<string, JobEvent[]>; touchedAt: number }>();

  constructor(store: JobCollections) {
    this.jobs = new Sharded(store.db, 'jobs');
    this.events = new Sharded(store.db, 'job_events');
    this.tracks = new Sharded(store.db, 'job_tracks');
    this.active = store.jobActive;
    this.owned = new Sharded(store.db, 'job_owners');
  }

  async create(record: JobRecord, reason: string): Promise<void> {
    await this.jobs.of(record._id).insertOne(record);
    await this.events.of(record._id).insertOne(event(record._id, JOB, 0, '', 'queued', reason, {}));
    await this.active.insertOne({ _id: record._id, owner: record.owner, touchedAt: record.createdAt });
    for (let race = 0; race < MAX_RACES; race++) {
      const n = await this.countOwned(record.owner);
      try {
        await this.owned.of(record.owner).insertOne({ _id: `${record.owner}/${n}`, jobId: record._id });
        this.ownedCount.set(record.owner, n + 1);
        return;
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
    await this.active.deleteOne({ _id: id });
    await this.events.of(id).deleteOne({ _id: `${id}/${JOB}/0` });
    await this.jobs.of(id).deleteOne({ _id: id });
  }

  async get(id: string): Promise<JobDoc | null> {
    const cached = await this.cached(id);
    if (!cached) return null;
    const entities = [JOB, ...cached.record.stageOrder];
    const hpcStages = cached.record.stageOrder.filter((name) => newStages(cached.record.type).stages[name]!.runner === 'hpc');
    const [events, tracks] = await Promise.all([
      Promise.all(entities.map((entity) => this.eventsOf(id, entity))),
      Promise.all(hpcStages.map((stage) => this.tracks.of(id).findOne({ _id: `${id}/${stage}` }))),
    ]);
    return fold(cached.record, events.flat(), tracks.filter((t): t is StageTrack => t !== null));
  }

  async getMany(ids: string[]): Promise<JobDoc[]> {
    return (await Promise.all(ids.map((id) => this.get(id)))).filter((job): job is JobDoc => job !== null);
  }

  /** The current state of a job and of one of its stages (two probes, for the bridge's polls). */
  async states(id: string, stage: StageName): Promise<{ job: JobState | null; stage: StageState }> {
    const [job, last] = await Promise.all([this.last(id, JOB), this.last(id, stage)]);
    return { job: (job?.to as JobState) ?? null, stage: (last?.to as StageState) ?? 'pending' };
  }

  /** A user's jobs, newest first (a removed job leaves a gap in the numbering, skipped here). */
  async listOwned(owner: string, limit = 200): Promise<JobDoc[]> {
    const n = await this.countOwned(owner);
    const numbers = Array.from({ length: Math.min(n, limit) }, (_, i) => n - 1 - i);
    const entries = await Promise.all(numbers.map((k) => this.owned.of(owner).findOne({ _id: `${owner}/${k}` })));
    return this.getMany(entries.filter((e): e is OwnedJob => e !== null).map((e) => e.jobId));
  }

  /** How many jobs the user submitted: the cached count, then probes for any added since. */
  private async countOwned(owner: string): Promise<number> {
    let n = this.ownedCount.get(owner) ?? 0;
    while (await this.owned.of(owner).findOne({ _id: `${owner}/${n}` }, { projection: { _id: 1 } })) n++;
    this.ownedCount.set(owner, n);
    return n;
  }

  /** Queued or running jobs of a user (for the per-user limit): a scan of the active jobs only. */
  countActive(owner: string): Promise<number> {
    return this.active.countDocuments({ owner });
  }

  /** Drops an ended job from the active ones (after its final event; again by whoever finds it ended, after a crash). */
  async retire(id: string): Promise<void> {
    await this.active.deleteOne({ _id: id });
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

  /** Moves one stage to `to` if its state allows it (and, for work-starting moves, the job is active). */
  async moveStage(id: string, stage: StageName, to: StageState, reason: string, data: Record<string, unknown> = {}): Promise<boolean> {
    if (WORK_STARTING.includes(to)) {
      const job = await this.last(id, JOB);
      if (!job || !ACTIVE_JOB_STATES.includes(job.to as JobState)) return false;
    }
    return this.append(id, stage, to, reason, data, (from) => STAGE_MOVES[to].includes(from as StageState));
  }

  /** The bridge's record of a stage it is about to submit (open) or has stopped following (closed). */
  async track(id: string, stage: StageName, fields: Partial<Pick<StageTrack, 'open' | 'backend'>>): Promise<void> {
    const set: Record<string, unknown> = { ...fields, at: new Date() };
    if (fields.open) Object.assign(set, { progress: null, series: [], backend: null }); // a new attempt starts blank
    await this.tracks.of(id).updateOne(
      { _id: `${id}/${stage}` },
      { $set: set, $setOnInsert: { jobId: id, stage, version: 0 } as Partial<StageTrack> } as never,
      { upsert: true },
    );
  }

  async setProgress(id: string, stage: StageName, progress: Record<string, unknown>, series: SeriesPoint[]): Promise<void> {
    await this.tracks.of(id).updateOne({ _id: `${id}/${stage}` }, { $set: { progress, series, at: new Date() }, $inc: { version: 1 } });
  }

  /** Stages the bridge had open: it re-attaches to them at start-up (a scan, once). */
  async openTracks(): Promise<StageTrack[]> {
    return (await Promise.all(this.tracks.all().map((shard) => shard.find({ open: true }).toArray()))).flat();
  }

  /** Every job record (tests: what a refused submission left behind). */
  async countJobs(): Promise<number> {
    return (await Promise.all(this.jobs.all().map((shard) => shard.countDocuments()))).reduce((a, b) => a + b, 0);
  }

  private async last(id: string, entity: string): Promise<JobEvent | null> {
    return (await this.eventsOf(id, entity)).at(-1) ?? null;
  }

  private async cached(id: string) {
    let entry = this.cache.get(id);
    if (entry) {
      this.cache.delete(id); // re-inserted below: most recently used last
    } else {
      const record = await this.jobs.of(id).findOne({ _id: id });
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
      const found = await this.events.of(id).findOne({ _id: `${id}/${entity}/${next}` });
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
    allowed: (from: string) => boolean,
  ): Promise<boolean> {
    for (let race = 0; race < MAX_RACES; race++) {
      const last = await this.last(id, entity);
      const from = last?.to ?? (entity === JOB ? '' : 'pending');
      if (!allowed(from)) return false;
      const next = event(id, entity, (last?.seq ?? 0) + 1, from, to, reason, data);
      try {
        await this.events.of(id).insertOne(next);
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
  const { stages } = newStages(record.type);
  const job: JobDoc = {
    ...record,
    state: 'queued',
    stages,
    plotId: null,
    error: null,
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
  }
  for (const t of tracks) {
    const stage = stages[t.stage];
    if (!stage) continue;
    stage.backend = t.backend;
    // A stage's end event carries its last progress line; the track may hold an older one.
    if (t.progress && !endedWithProgress.has(t.stage)) {
      stage.progress = t.progress;
      stage.series = t.series;
    }
    job.revision += t.version + (t.backend?.jobId ? 1 : 0);
    if (t.at > job.updatedAt) job.updatedAt = t.at;
  }
  return job;
}
