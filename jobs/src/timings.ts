// How long each stage of recent succeeded jobs took, so that a running job's overall
// progress can weigh its stages by the time they usually take: with equal weights, a
// sequence job whose quick first stages were done said "23 s left" 5.6 s before it ended.
//
// Each job type and stage graph keeps its last KEPT jobs as documents "<key>/<n>", written
// by insertOne, whose unique _id is the only guard FerretDB (SQLite) gives concurrent
// writers: it applies neither an update's filter nor $push atomically (concurrent
// replaceOne with one version filter all succeed; 8 concurrent $push keep one). The
// document "<key>" holds a hint of the next n; readers and writers probe upward from it.
import { MongoServerError, type Collection } from 'mongodb';
import type { StageSpec, StageWork } from '@wpv/schema';
import type { JobDoc, StageName } from './model.ts';

/** Jobs remembered per type and graph. */
const KEPT = 50;
/** Of those, the ones nearest in size to the job at hand give its expected seconds (their seconds per unit of work). */
const NEAREST = 10;
/** Jobs within this factor of the points count as of a similar size: their stages' shares of the time are this job's. */
const SIMILAR_SIZE = 4;
/** Jobs within this factor count as of the same size: their seconds are this job's (start-up costs, which do not scale, weigh alike). */
const SAME_SIZE = 1.25;
const MAX_RACES = 5;

export interface TimingSample {
  points: number;
  /** Points in the sample, when the job interpolated the others. */
  sample?: number;
  /** Seconds of work per stage: from its program's start (or the worker's) to its end. */
  seconds: Record<StageName, number>;
}

/** A remembered job ("<key>/<n>"), or a graph's hint of its next n ("<key>"). */
export type TimingsDoc = { _id: string } & ((TimingSample & { jobId: string }) | { next: number });

/** The history a job's shares come from: its type and its stage graph (an interpolating job has its own). */
export const timingsKey = (job: Pick<JobDoc, 'type' | 'stageOrder'>) => `${job.type}/${job.stageOrder.join('+')}`;

/** A succeeded job's seconds per stage; null when a stage lacks its times (a job from before they were kept). */
export function timingSample(job: Pick<JobDoc, 'input' | 'stageOrder' | 'stages'>): TimingSample | null {
  const { points, sample } = job.input;
  const seconds: Record<StageName, number> = {};
  for (const name of job.stageOrder) {
    const stage = job.stages[name]!;
    const start = stage.launchedAt ?? stage.startedAt;
    if (!start || !stage.endedAt) return null;
    seconds[name] = Math.max(0, (stage.endedAt.getTime() - start.getTime()) / 1000);
  }
  return { points, ...(sample !== undefined && { sample }), seconds };
}

/** A stage's units of work in a job of `points` points, `sample` of them a sample (StageWork). */
export function workUnits(work: StageWork, { points, sample = points }: Pick<TimingSample, 'points' | 'sample'>): number {
  switch (work) {
    case 'points': return points;
    case 'pairs': return points * points;
    case 'sample pairs': return sample * sample;
    case 'rest × sample': return Math.max(1, points - sample) * sample;
  }
}

/**
 * Each stage's expected seconds in a job: the median seconds per unit of its work in the NEAREST
 * remembered jobs closest in size (by ratio of points), times the job's own units; null without
 * history. By default those of a similar size if any are, else the nearest (good for shares:
 * start-up costs do not scale, and over 4× they distort the absolute seconds, not the stages'
 * proportions much); `sameSize`: only those of the same size, for seconds to show.
 */
export function expectedSeconds(
  samples: readonly TimingSample[],
  job: Pick<TimingSample, 'points' | 'sample'>,
  stages: readonly Pick<StageSpec, 'name' | 'work'>[],
  { sameSize = false } = {},
): Record<StageName, number> | null {
  const ranked = samples
    .filter((s) => stages.every(({ name }) => Number.isFinite(s.seconds[name])))
    .map((s) => ({ s, d: Math.abs(Math.log(s.points / job.points)) }))
    .sort((a, b) => a.d - b.d);
  const within = (factor: number) => ranked.filter(({ d }) => d <= Math.log(factor));
  const similar = within(SIMILAR_SIZE);
  const nearest = (sameSize ? within(SAME_SIZE) : similar.length ? similar : ranked).slice(0, NEAREST).map(({ s }) => s);
  if (nearest.length === 0) return null;
  const seconds = stages.map(({ name, work }) => median(nearest.map((s) => s.seconds[name]! / workUnits(work, s))) * workUnits(work, job));
  if (!(seconds.reduce((a, b) => a + b, 0) > 0)) return null;
  return Object.fromEntries(stages.map(({ name }, k) => [name, seconds[k]!]));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export class StageTimings {
  constructor(private readonly docs: Collection<TimingsDoc>) {}

  /** Adds a succeeded job to its graph's history; the job KEPT places older leaves it. */
  async record(job: JobDoc): Promise<void> {
    const sample = timingSample(job);
    if (!sample) return;
    const key = timingsKey(job);
    let n = await this.next(key);
    for (let race = 0; ; race++, n++) {
      try {
        await this.docs.insertOne({ _id: `${key}/${n}`, jobId: job._id, ...sample });
        break;
      } catch (err) {
        // Another worker took n: the next one, a few times (the sample is only statistics).
        if (!(err instanceof MongoServerError && err.code === 11000) || race === MAX_RACES) throw err;
      }
    }
    // A hint: a lost update leaves it a little lower (by as many writers as raced), and probes find the rest.
    await this.docs.replaceOne({ _id: key }, { next: n + 1 }, { upsert: true });
    if (n >= KEPT) await this.docs.deleteOne({ _id: `${key}/${n - KEPT}` });
  }

  /** The remembered jobs of this job's type and graph, oldest first. */
  async samples(job: Pick<JobDoc, 'type' | 'stageOrder'>): Promise<TimingSample[]> {
    const key = timingsKey(job);
    const next = await this.next(key);
    const first = Math.max(0, next - KEPT);
    const docs = await Promise.all(Array.from({ length: next - first }, (_, i) => this.docs.findOne({ _id: `${key}/${first + i}` })));
    return docs.flatMap((doc) => (doc && 'points' in doc ? [{ points: doc.points, ...(doc.sample !== undefined && { sample: doc.sample }), seconds: doc.seconds }] : []));
  }

  /** The first free n of a graph: its hint, then probes. */
  private async next(key: string): Promise<number> {
    const hint = await this.docs.findOne({ _id: key });
    let n = hint && 'next' in hint ? hint.next : 0;
    while (await this.docs.findOne({ _id: `${key}/${n}` }, { projection: { _id: 1 } })) n++;
    return n;
  }
}
