// Job submission and the user's view of jobs: validate the input, stage it in the
// job's directory, store the job and hand it to the pipeline; list, read, cancel,
// retry, logs. The workers and the hpc-bridge do the rest.
import { copyFile, link, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { JobFileParts, JobParams, JobSubmitFields, nameFrom, stageTitle, type Job, type JobStage, type JobType } from '@wpv/schema';
import { ZodError } from 'zod';
import { ApiError, notFound } from '../http/errors.ts';
import { newId } from '../storage/ids.ts';
import type { Upload } from '../http/upload.ts';
import type { Config } from '../config.ts';
import type { Store } from '../storage/db.ts';
import type { StorageQuota } from './storage-quota.ts';
import { JobReads, type ShownJobDoc } from '../storage/job-reads.ts';
import { JobBroker } from '@wpv/jobs/broker';
import { loadJobConfig, type JobConfig } from '@wpv/jobs/config';
import { JOB_MODULES } from '../jobtypes/index.ts';
import { newStages, stageGraph, type JobDoc, type JobState, type JobInput, type JobRecord, type StageDoc, type StageName } from '@wpv/jobs/model';
import { StageTimings, expectedSeconds, secondsToShow, timingsKey, type TimingSample } from '@wpv/jobs/timings';
import { STAGE_FILES, partName, stageDir, tailOf } from '@wpv/jobs/workdir';

const LOG_TAIL_BYTES = 64 * 1024;
/** Below about this many points per thread a program's start outweighs a second thread (bench/RESULTS.md, "Default layout"). */
const POINTS_PER_THREAD = 1000;
const TIMINGS_TTL_MS = 10_000;

export class Jobs {
  /** Recent jobs' stage times per type and graph, read once per TIMINGS_TTL_MS (a list shows many jobs of one graph). */
  private readonly timingCache = new Map<string, { at: number; samples: Promise<TimingSample[]> }>();

  constructor(
    readonly repo: JobReads,
    private readonly broker: JobBroker,
    readonly config: JobConfig,
    private readonly timings: StageTimings,
    /** Frames a job's plot may have (MAX_FRAMES), as an upload's. */
    private readonly maxFrames: number,
    /** The owners' storage quota, which a job's kept matrix counts against. */
    private readonly quota: StorageQuota,
  ) {}

  /** The gateway of `store`, publishing through its own broker link (opened on first use). */
  static open(store: Store, config: Config, quota: StorageQuota): Jobs {
    const jobConfig = loadJobConfig(config.dataDir);
    return new Jobs(new JobReads(store), new JobBroker(config.amqpUrl, jobConfig.queuePrefix), jobConfig,
      new StageTimings(store.jobTimings), config.limits.frames, quota);
  }

  /** A job as the API shows it. */
  async present(doc: JobDoc): Promise<Job> {
    return toJob(doc, await this.expectations(doc));
  }

  /** What recent succeeded jobs of its type and graph say of this job's stages (scaled to its size); null without any. */
  async expectations(doc: JobDoc): Promise<Expectations | null> {
    const key = timingsKey(doc);
    let cached = this.timingCache.get(key);
    if (!cached || Date.now() - cached.at > TIMINGS_TTL_MS) {
      cached = { at: Date.now(), samples: this.timings.samples(doc) };
      cached.samples.catch(() => this.timingCache.delete(key)); // the store was away: ask again next time
      this.timingCache.set(key, cached);
    }
    const [samples, graph] = [await cached.samples, stageGraph(doc.type, doc.input)];
    const weights = expectedSeconds(samples, doc.input, graph);
    return weights && { weights, seconds: secondsToShow(samples, doc.input, graph) };
  }

  /**
   * Validates and queues a job from a multipart upload; the upload's temp file is moved into the job directory.
   * `signal`: when it aborts before the job is stored (untilClientGone), nothing is queued and the job directory goes.
   */
  async submit(owner: string, upload: Upload, signal?: AbortSignal): Promise<{ id: string }> {
    const fields = JobSubmitFields.parse(upload.fields);
    const requested = parseParams(fields.type, fields.params);
    const file = upload.files.file;
    if (!file) throw new ApiError(400, 'bad_request', 'a "file" part is required', 'file');
    if (file.bytes === 0) throw new ApiError(400, 'empty_file', 'the file is empty', 'file');
    const module = JOB_MODULES[fields.type];
    for (const part of Object.keys(upload.files)) {
      if (!(part in module.contract.files)) {
        throw new ApiError(400, 'bad_request', `only ${JobFileParts[part]!.join(', ')} jobs take a "${part}" file`, part);
      }
    }
    const weights = upload.files.weights ?? null;
    // One limit for all of a job's input files, as the route's Content-Length check has it.
    if (file.bytes + (weights?.bytes ?? 0) > this.config.maxInputBytes) {
      throw new ApiError(413, 'too_large', `job inputs (file and weights together) are limited to ${this.config.maxInputBytes} bytes`, weights ? 'weights' : 'file');
    }
    // A cheap early answer; the binding check is the slot taken when the job is stored.
    const active = await this.repo.countActive(owner);
    if (active >= this.config.maxActivePerUser) throw this.tooManyJobs();
    this.checkLayout(requested);
    const parts = Object.fromEntries(Object.entries(upload.files).map(([part, f]) => [part, f!.path]));
    const id = newId(12);
    const workdir = path.join(this.config.jobsDir, id);
    await mkdir(workdir, { recursive: true });
    const points = await module.checkInput({ file: file.path, parts, params: requested, config: this.config, maxFrames: this.maxFrames, workdir }).catch(async (err) => {
      await rm(workdir, { recursive: true, force: true });
      throw err;
    });

    const inputName = module.inputName;
    await moveFile(file.path, path.join(workdir, inputName));
    const input: JobInput = { originalName: file.originalName, bytes: file.bytes, file: inputName, points };
    const params = this.withThreads(requested, points);
    // Beyond sampleSize points only a sample gets the full pipeline (the type's interpolatedStages).
    if (module.contract.interpolatedStages && points > params.sampleSize) input.sample = params.sampleSize;
    await this.checkKeptMatrix(owner, fields.type, input, workdir);
    if (weights) {
      await moveFile(weights.path, path.join(workdir, partName('weights')));
      input.weights = { originalName: weights.originalName, bytes: weights.bytes, file: partName('weights') };
    }
    return this.enqueue(this.newRecord(id, owner, fields.type, fields.name ?? (nameFrom(file.originalName) || 'untitled'), params, input, workdir, null), signal);
  }

  /**
   * Queues a job whose input the server writes itself (a type with its own route, `startedBy`):
   * `stage` writes it into the new job directory and describes it.
   */
  async start(owner: string, type: JobType, name: string, params: Record<string, unknown>, stage: (workdir: string) => Promise<JobInput>): Promise<{ id: string }> {
    if ((await this.repo.countActive(owner)) >= this.config.maxActivePerUser) throw this.tooManyJobs();
    this.checkLayout(params);
    const id = newId(12);
    const workdir = path.join(this.config.jobsDir, id);
    await mkdir(workdir, { recursive: true });
    const input = await stage(workdir).catch(async (err) => {
      await rm(workdir, { recursive: true, force: true });
      throw err;
    });
    await this.checkKeptMatrix(owner, type, input, workdir);
    return this.enqueue(this.newRecord(id, owner, type, name, this.withThreads(params, input.points), input, workdir, null));
  }

  /** Closes the broker link (opened by the first submission). */
  close(): Promise<void> {
    return this.broker.close();
  }

  async list(owner: string): Promise<JobDoc[]> {
    return this.repo.listOwned(owner);
  }

  async owned(id: string, owner: string): Promise<JobDoc> {
    const job = await this.repo.get(id);
    if (!job || job.owner !== owner) throw notFound('job');
    return job;
  }

  /**
   * Cancels a queued or running job (JobRepo.cancel): running programs are killed by the bridge on
   * its next poll, a running worker stage is stopped by its worker; neither can succeed after this.
   */
  async cancel(id: string, owner: string): Promise<JobDoc> {
    await this.owned(id, owner);
    const outcome = await this.repo.cancel(id, `cancelled by ${owner}`);
    if (!outcome.cancelled) {
      throw new ApiError(409, 'not_active', `the job ${notActive(outcome.state)}`);
    }
    return this.owned(id, owner);
  }

  /** A failed or cancelled job runs again as a new job with the same input and parameters. */
  async retry(id: string, owner: string): Promise<{ id: string }> {
    const old = await this.owned(id, owner);
    if (old.state !== 'failed' && old.state !== 'cancelled') {
      throw new ApiError(409, 'not_retryable', `only failed or cancelled jobs can be retried; this one is ${old.state}`);
    }
    const retryId = newId(12);
    const workdir = path.join(this.config.jobsDir, retryId);
    await mkdir(workdir, { recursive: true });
    const files = [old.input.file, old.input.weights?.file, ...(JOB_MODULES[old.type].checkOutputs ?? [])];
    for (const file of files.filter((f) => f !== undefined)) {
      await link(path.join(old.workdir, file), path.join(workdir, file)).catch(() => copyFile(path.join(old.workdir, file), path.join(workdir, file)));
    }
    return this.enqueue(this.newRecord(retryId, owner, old.type, old.name, old.params, old.input, workdir, old._id));
  }

  async logs(id: string, owner: string, stage?: string): Promise<{ stage: StageName; stdout: string; stderr: string }> {
    const job = await this.owned(id, owner);
    const name = (stage ?? lastStarted(job)) as StageName;
    // stageOrder, not `name in stages`: "constructor" and other built-ins are no stage.
    if (!job.stageOrder.includes(name)) throw new ApiError(400, 'bad_request', `stage must be one of ${job.stageOrder.join(', ')}`, 'stage');
    const dir = stageDir(job.workdir, name);
    const [stdout, stderr] = await Promise.all([
      tailOf(path.join(dir, STAGE_FILES.stdout), LOG_TAIL_BYTES),
      tailOf(path.join(dir, STAGE_FILES.stderr), LOG_TAIL_BYTES),
    ]);
    return { stage: name, stdout, stderr };
  }

  /**
   * Refuses a job whose distance matrix, kept with its plot for re-clustering (2·N² bytes; none
   * when only a sample is aligned all-pairs), is over the room left in the owner's storage quota;
   * else records it in the input (input.keptBytes), which the quota holds until the job ends.
   */
  private async checkKeptMatrix(owner: string, type: JobType, input: JobInput, workdir: string): Promise<void> {
    if (!JOB_MODULES[type].matrix || input.sample !== undefined) return;
    const needed = 2 * input.points ** 2;
    const room = await this.quota.room(owner);
    if (needed > room) {
      await rm(workdir, { recursive: true, force: true });
      throw this.quota.exceeded(keptMatrix(input.points), room, needed);
    }
    input.keptBytes = needed;
  }

  /** One program's ranks × threads (threads named or not) must fit the backend: more would only oversubscribe it. */
  private checkLayout(params: Record<string, any>): void {
    const ranks: number = params.ranks ?? 1;
    const cpus = ranks * (params.threads ?? 1);
    if (cpus > this.config.maxCpus) {
      throw new ApiError(422, 'too_many_cpus',
        `ranks × threads = ${cpus}; the ${this.config.backend} backend runs a program on at most ${this.config.maxCpus} CPUs (HPC_MAX_CPUS)`, 'params.ranks');
    }
    const nodes = params.nodes ?? 1;
    if (nodes > this.config.maxNodes) {
      throw new ApiError(422, 'too_many_nodes',
        `nodes = ${nodes}; the ${this.config.backend} backend runs a program on at most ${this.config.maxNodes} node${this.config.maxNodes === 1 ? '' : 's'} (HPC_MAX_NODES)`, 'params.nodes');
    }
    if (nodes > ranks) {
      throw new ApiError(422, 'nodes_without_ranks', `nodes = ${nodes} but ranks = ${ranks}: every node needs at least one rank`, 'params.nodes');
    }
  }

  /**
   * A job with an MPI layout (`ranks`) that names no threads: its programs get the backend's
   * default CPUs (HPC_DEFAULT_CPUS) split among the ranks, but no more than a thread per
   * POINTS_PER_THREAD points, so small jobs, whose programs take seconds, still run side by side.
   */
  private withThreads<P extends Record<string, any>>(params: P, points: number): P {
    if (!('ranks' in params) || params.threads !== undefined) return params;
    const cpus = Math.min(this.config.defaultCpus, this.config.maxCpus, Math.floor(points / POINTS_PER_THREAD));
    return { ...params, threads: Math.max(1, Math.floor(cpus / params.ranks)) };
  }

  private tooManyJobs(): ApiError {
    return new ApiError(429, 'too_many_jobs', `you have ${this.config.maxActivePerUser} jobs queued or running, the limit (JOB_MAX_ACTIVE); wait for one to end`);
  }

  private newRecord(
    id: string,
    owner: string,
    type: JobType,
    name: string,
    params: Record<string, unknown>,
    input: JobDoc['input'],
    workdir: string,
    retryOf: string | null,
  ): JobRecord {
    const { order } = newStages(type, input);
    const now = new Date();
    return { _id: id, owner, name, type, params, input, workdir, stageOrder: order, retryOf, createdAt: now };
  }

  /** Stores the job, then publishes it; if the broker cannot take it, nothing is left behind. */
  private async enqueue(doc: JobRecord, signal?: AbortSignal): Promise<{ id: string }> {
    // Approximate under a burst (a count, then an insert): a bound on the queue's size, not an exact one.
    if ((await this.repo.countAllActive()) >= this.config.maxActiveTotal) {
      await rm(doc.workdir, { recursive: true, force: true });
      throw new ApiError(503, 'queue_full', `the job queue is full (${this.config.maxActiveTotal} jobs, JOB_MAX_QUEUED); try again later`);
    }
    // The last moment to abandon: once stored the job is listed, and the pipeline will pick it up.
    if (signal?.aborted) {
      await rm(doc.workdir, { recursive: true, force: true });
      throw signal.reason;
    }
    if (!(await this.repo.create(doc, doc.retryOf ? `retry of ${doc.retryOf}` : 'submitted', this.config.maxActivePerUser))) {
      await rm(doc.workdir, { recursive: true, force: true });
      throw this.tooManyJobs();
    }
    try {
      // Counted now (its active entry), a kept matrix is checked again: of jobs submitted together
      // that each fit alone, those over the quota together are refused (as uploads are).
      if (doc.input.keptBytes) await this.quota.holds(doc.owner, doc.input.keptBytes, keptMatrix(doc.input.points));
      await this.broker.publish('pipeline', { jobId: doc._id });
    } catch (err) {
      await this.repo.remove(doc._id);
      await rm(doc.workdir, { recursive: true, force: true });
      if (err instanceof ApiError) throw err;
      throw new ApiError(503, 'queue_unavailable', `the job queue is unavailable: ${(err as Error).message}`);
    }
    return { id: doc._id };
  }
}

function keptMatrix(points: number): string {
  return `the ${points} × ${points} distance matrix this job keeps for re-clustering`;
}

function parseParams(type: JobType, raw: string): Record<string, any> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError(400, 'bad_params', 'params: not valid JSON', 'params');
  }
  const schema = JobParams[type];
  try {
    return schema.parse(json);
  } catch (err) {
    if (!(err instanceof ZodError)) throw err;
    const issue = err.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const unknown = issue.keys.map((k) => `"${k.slice(0, 40)}"`).join(', ');
      throw new ApiError(400, 'bad_params', `params: unknown ${issue.keys.length > 1 ? 'keys' : 'key'} ${unknown}; a ${type} job takes ${Object.keys(schema.shape).join(', ')}`, 'params');
    }
    const field = ['params', ...issue.path].join('.');
    throw new ApiError(400, 'bad_params', `${field}: ${issue.message}`, field);
  }
}

async function moveFile(from: string, to: string): Promise<void> {
  await rename(from, to).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await rm(from, { force: true });
  });
}

function lastStarted(job: JobDoc): string {
  const started = job.stageOrder.filter((name) => job.stages[name]!.startedAt);
  return started.at(-1) ?? job.stageOrder[0]!;
}

/** Why a job cannot be cancelled, after "the job ". */
function notActive(state: JobState | 'finishing' | null): string {
  if (state === 'finishing') return 'is finishing: every stage has succeeded';
  if (state === 'cancelled') return 'has already been cancelled';
  return state ? `has already ${state}` : 'is no longer active';
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * A program's progress line names its files by absolute path (`output`, `options.input`, ...);
 * users see no server path: a file in the job's directory by its path there, any other by its name.
 */
function withoutServerPaths(value: unknown, workdir: string): unknown {
  if (typeof value === 'string' && path.isAbsolute(value)) {
    const inJob = path.relative(workdir, value);
    return inJob.startsWith('..') || path.isAbsolute(inJob) ? path.basename(value) : inJob;
  }
  if (Array.isArray(value)) return value.map((v) => withoutServerPaths(v, workdir));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutServerPaths(v, workdir)]));
  return value;
}

function toStage(stage: StageDoc, stages: number, workdir: string, expected: Pick<JobStage, 'share' | 'expectedSeconds'> | null): JobStage {
  return {
    name: stage.name,
    title: stageTitle(stage.name),
    runner: stage.runner,
    share: expected?.share ?? 1 / stages,
    expectedSeconds: expected?.expectedSeconds ?? null,
    state: stage.state,
    progress: stage.progress && (withoutServerPaths(stage.progress, workdir) as Record<string, unknown>),
    series: stage.series,
    startedAt: iso(stage.startedAt),
    endedAt: iso(stage.endedAt),
    backendJobId: stage.backend?.jobId ?? null,
    launchedAt: iso(stage.launchedAt),
    attempts: stage.attempts,
    exitCode: stage.exitCode,
    metrics: stage.metrics,
    error: stage.error,
  };
}

/**
 * Each stage's expected seconds: `weights` from jobs of a similar size (the stages' shares),
 * `seconds` from jobs of the same size (shown), null without them.
 */
export interface Expectations {
  weights: Record<StageName, number>;
  seconds: Record<StageName, number> | null;
}

/** `expected`: Jobs.expectations; equal shares and no seconds when null. */
export function toJob(doc: ShownJobDoc, expected: Expectations | null): Job {
  const total = expected ? doc.stageOrder.reduce((sum, name) => sum + expected.weights[name]!, 0) : 0;
  const firstStart = doc.stageOrder.map((n) => doc.stages[n]!.startedAt).filter((d): d is Date => d !== null).sort((a, b) => +a - +b)[0];
  return {
    id: doc._id,
    name: doc.name,
    type: doc.type,
    state: doc.state,
    owner: doc.owner,
    params: doc.params,
    input: {
      originalName: doc.input.originalName,
      bytes: doc.input.bytes,
      points: doc.input.points,
      ...(doc.input.weights && { weights: { originalName: doc.input.weights.originalName, bytes: doc.input.weights.bytes } }),
      ...(doc.input.sample !== undefined && { sample: doc.input.sample }),
      ...(doc.input.keptBytes !== undefined && { keptBytes: doc.input.keptBytes }),
    },
    stages: doc.stageOrder.map((name) => toStage(doc.stages[name]!, doc.stageOrder.length, doc.workdir, expected && {
      share: expected.weights[name]! / total,
      expectedSeconds: expected.seconds?.[name] ?? null,
    })),
    ...(doc.plotId && { plotId: doc.plotId }),
    plotDeleted: doc.plotDeleted === true,
    ...(doc.error && { error: doc.error }),
    warnings: doc.warnings,
    ...(doc.retryOf && { retryOf: doc.retryOf }),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    startedAt: iso(doc.startedAt),
    endedAt: iso(doc.endedAt),
    queueWaitSeconds: firstStart ? (+firstStart - +doc.createdAt) / 1000 : null,
    history: (doc.history ?? []).map((h) => ({ ...h, at: h.at.toISOString() })),
    revision: doc.revision,
  };
}
