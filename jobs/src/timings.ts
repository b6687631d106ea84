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
/** A start-up + rate line is fitted only to jobs whose sizes differ at least this much. */
const FIT_SPREAD = 1.5;
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
 * Each stage's expected seconds in a job, for its share of the job's time: the median seconds
 * per unit of its work in the NEAREST remembered jobs closest in size (by ratio of points),
 * times the job's own units; those of a similar size (within 4×) if any are, else the nearest
 * (start-up costs do not scale, and over 4× they distort the absolute seconds, not the
 * stages' proportions much). Null without history.
 */
export function expectedSeconds(samples: readonly TimingSample[], job: Pick<TimingSample, 'points' | 'sample'>, stages: readonly Pick<StageSpec, 'name' | 'work'>[]): Record<StageName, number> | null {
  const ranked = rankedBySize(samples, job, stages);
  const similar = ranked.filter(({ d }) => d <= Math.log(SIMILAR_SIZE));
  return perStage(stages, (similar.length ? similar : ranked).slice(0, NEAREST).map(({ s }) => s), (nearest, { name, work }) =>
    median(nearest.map((s) => s.seconds[name]! / workUnits(work, s))) * workUnits(work, job));
}

/**
 * Each stage's expected seconds to show as time left. Jobs of the same size (within 1.25×)
 * give theirs, as above. Without them, a line start-up + rate × units fitted per stage to
 * the NEAREST jobs, when their sizes differ (by FIT_SPREAD) and this job is within 4× of
 * them: per-unit seconds scaled from smaller jobs, which are mostly start-up, made estimates
 * worse than the job's pace alone, and the pace alone was 20 s off early in the first job of
 * a new size (bench/results/job-eta.md). Null otherwise.
 */
export function secondsToShow(samples: readonly TimingSample[], job: Pick<TimingSample, 'points' | 'sample'>, stages: readonly Pick<StageSpec, 'name' | 'work'>[]): Record<StageName, number> | null {
  const ranked = rankedBySize(samples, job, stages);
  const sameSize = ranked.filter(({ d }) => d <= Math.log(SAME_SIZE)).slice(0, NEAREST).map(({ s }) => s);
  if (sameSize.length) return expectedSeconds(sameSize, job, stages);
  const nearest = ranked.slice(0, NEAREST).map(({ s }) => s);
  const sizes = nearest.map((s) => s.points);
  const [smallest, largest] = [Math.min(...sizes), Math.max(...sizes)];
  if (!(largest >= FIT_SPREAD * smallest) || job.points > SIMILAR_SIZE * largest || job.points * SIMILAR_SIZE < smallest) return null;
  return perStage(stages, nearest, (fitted, { name, work }) => {
    const { startUp, rate } = fitLine(fitted.map((s) => workUnits(work, s)), fitted.map((s) => s.seconds[name]!));
    return startUp + rate * workUnits(work, job);
  });
}

/**
 * Remembered jobs that timed every stage of this graph, nearest in size first (d: the larger of |log of the
 * points' ratio| and |log of the samples' ratio|). A graph with stages that scale with the sample
 * takes only jobs that recorded theirs: one from before samples were kept counted 4,640 reads
 * with no rest, 1 × 4,640 units of aligning the rest for 2.3 s, which made a 640 × 4,000 rest
 * "1266 s" where it took 7.5.
 */
function rankedBySize(samples: readonly TimingSample[], job: Pick<TimingSample, 'points' | 'sample'>, stages: readonly Pick<StageSpec, 'name' | 'work'>[]) {
  const bySample = stages.some(({ work }) => work === 'sample pairs' || work === 'rest × sample');
  const ratio = (a: number, b: number) => Math.abs(Math.log(a / b));
  return samples
    .filter((s) => stages.every(({ name }) => Number.isFinite(s.seconds[name])) && (!bySample || s.sample !== undefined))
    .map((s) => ({ s, d: Math.max(ratio(s.points, job.points), ratio(s.sample ?? s.points, job.sample ?? job.points)) }))
    .sort((a, b) => a.d - b.d);
}

/** Each stage's seconds from `basis` by `estimate`; null without basis or when they sum to nothing. */
function perStage<S extends Pick<StageSpec, 'name' | 'work'>>(stages: readonly S[], basis: TimingSample[], estimate: (basis: TimingSample[], stage: S) => number): Record<StageName, number> | null {
  if (basis.length === 0) return null;
  const seconds = stages.map((stage) => estimate(basis, stage));
  if (!(seconds.reduce((a, b) => a + b, 0) > 0)) return null;
  return Object.fromEntries(stages.map(({ name }, k) => [name, seconds[k]!]));
}

/**
 * Least squares seconds = startUp + rate × units, neither negative: through the origin when the
 * start-up comes out negative, a flat median when the rate does (noise on a stage that barely
 * grows).
 */
export function fitLine(units: number[], seconds: number[]): { startUp: number; rate: number } {
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const [mx, my] = [mean(units), mean(seconds)];
  const sxx = units.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  const sxy = units.reduce((sum, x, k) => sum + (x - mx) * (seconds[k]! - my), 0);
  const rate = sxx > 0 ? sxy / sxx : 0;
  if (rate < 0 || sxx === 0) return { startUp: median(seconds), rate: 0 };
  if (my - rate * mx >= 0) return { startUp: my - rate * mx, rate };
  return { startUp: 0, rate: units.reduce((sum, x, k) => sum + x * seconds[k]!, 0) / units.reduce((sum, x) => sum + x * x, 0) };
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
    // Two first upserts of the hint can race to insert it (E11000): the loser then replaces it.
    await this.docs.replaceOne({ _id: key }, { next: n + 1 }, { upsert: true }).catch((err) => {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      return this.docs.replaceOne({ _id: key }, { next: n + 1 });
    });
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
