// Pure helpers for the job pages: which states are live, what a stage is called and how far
// it has got, what its progress line says, and the stress chart's scaling.
import { stageTitle, type Job, type JobStage, type JobSummary } from '@wpv/schema';
import { formatBytes } from '../app/format';

const ACTIVE_JOB_STATES: ReadonlySet<string> = new Set(['queued', 'running']);

export const isActiveJob = (state: Job['state']) => ACTIVE_JOB_STATES.has(state);

/** What a stage is called on the page (one table, in @wpv/schema's job types; the API serves it too). */
export { stageTitle };

/** Share of a stage's work done, 0–1, or null when its programs do not say. */
export function stageFraction(stage: Pick<JobStage, 'state' | 'progress'>): number | null {
  if (stage.state === 'succeeded') return 1;
  if (stage.state === 'pending' || stage.state === 'queued') return 0;
  const f = stage.progress?.fraction;
  return typeof f === 'number' && Number.isFinite(f) ? Math.min(1, Math.max(0, f)) : null;
}

/**
 * Seconds left at the rate so far; null until `minFraction` is done (before that, a program's
 * start-up dominates the rate).
 */
export function etaSeconds(fraction: number | null, elapsed: number | null, minFraction = 0.02): number | null {
  if (fraction === null || elapsed === null || fraction < minFraction || fraction >= 1) return null;
  return (elapsed * (1 - fraction)) / fraction;
}

/**
 * The job's own pace counts towards its time left from this share done: from 2 %, the first
 * program's start-up made it up to 43 s off on 2- and 3-second jobs (bench/results/job-eta.md).
 */
export const JOB_ETA_FROM = 0.1;

/**
 * A program that has not started: the backend waits for CPUs (local slots, a Slurm allocation),
 * or the bridge is submitting it (before it names a backend id: shown as running, the line
 * "Clustering; Mapping to 3D waiting" flickered to "Mapping to 3D; Clustering waiting").
 */
export const waitsForCpus = (stage: Pick<JobStage, 'state' | 'runner' | 'launchedAt'>) =>
  stage.state === 'running' && stage.runner === 'hpc' && stage.launchedAt === null;
/** A running stage whose work is under way (a worker stage, or a program its backend started). */
export const isWorking = (stage: Pick<JobStage, 'state' | 'runner' | 'launchedAt'>) => stage.state === 'running' && !waitsForCpus(stage);

export interface JobOverview {
  /** 1-based position of the first unfinished stage, or the stage count when all are done. */
  current: number;
  total: number;
  /** Titles of the stages running now (stages without dependencies between them run together). */
  running: string[];
  /** Titles of the submitted stages whose programs wait for CPUs. */
  waiting: string[];
  /**
   * Whole job, 0–1: each stage weighs its share of the time (the API's, from recent jobs like
   * this one), so that the time left extrapolates evenly. A stage counts nothing until its
   * program reports a fraction (crediting half before then made the total fall back when the
   * first report came, and the time left jump from 4 s to 13 s).
   */
  fraction: number;
  /** Seconds the unfinished work took in recent jobs like this one (expectedSeconds × share not done); null without them. */
  expectedLeft: number | null;
}

export function jobOverview(stages: Pick<JobStage, 'name' | 'runner' | 'share' | 'expectedSeconds' | 'state' | 'progress' | 'launchedAt'>[]): JobOverview {
  const total = stages.length;
  const unfinished = stages.findIndex((s) => s.state !== 'succeeded');
  const weight = stages.reduce((sum, s) => sum + s.share, 0);
  const done = stages.reduce((sum, s) => sum + s.share * (stageFraction(s) ?? 0), 0);
  return {
    current: unfinished < 0 ? total : unfinished + 1,
    total,
    running: stages.filter(isWorking).map((s) => stageTitle(s.name)),
    waiting: stages.filter(waitsForCpus).map((s) => stageTitle(s.name)),
    fraction: weight > 0 ? done / weight : 0,
    expectedLeft: stages.every((s) => s.expectedSeconds !== null)
      ? stages.reduce((sum, s) => sum + s.expectedSeconds! * (1 - (stageFraction(s) ?? 0)), 0)
      : null,
  };
}

/**
 * The whole job's seconds left: what the remembered jobs took for the work left, blended with
 * the rate so far (from JOB_ETA_FROM done) by the share done, so the job's own pace takes over
 * as it goes; the rate alone without history.
 */
export function jobEtaSeconds({ fraction, expectedLeft }: Pick<JobOverview, 'fraction' | 'expectedLeft'>, elapsed: number | null): number | null {
  if (fraction >= 1) return null;
  const rate = etaSeconds(fraction, elapsed, JOB_ETA_FROM);
  if (expectedLeft === null) return rate;
  return rate === null ? expectedLeft : fraction * rate + (1 - fraction) * expectedLeft;
}

/** A running stage's seconds left, as the whole job's are reckoned: its expected seconds for the work left, blended with its pace. */
export function stageEtaSeconds(stage: Pick<JobStage, 'state' | 'progress' | 'expectedSeconds'>, elapsed: number | null): number | null {
  const fraction = stageFraction(stage);
  if (fraction === null) return null;
  return jobEtaSeconds({ fraction, expectedLeft: stage.expectedSeconds === null ? null : stage.expectedSeconds * (1 - fraction) }, elapsed);
}

/**
 * Time left that counts down between reports: the estimate as of the job's last change (its
 * updatedAt, reckoned on the server's clock like its start times, so the two clocks need not
 * agree), less the seconds since the page received it. Progress reaches the store every 2 s;
 * reckoned on the page's clock between reports, the figure stood still or climbed. It stops at
 * 0 until the next report.
 */
export const countdown = (leftAtReport: number | null, sinceReport: number): number | null =>
  leftAtReport === null ? null : Math.max(0, leftAtReport - Math.max(0, sinceReport));

/** " · about 8.4 s left" after a percent; " · finishing" once the countdown has run out (until the next report). */
export const timeLeftText = (left: number | null) =>
  left === null ? '' : left < 0.5 ? ' · finishing' : ` · about ${formatSeconds(left)} left`;

/** A running job in the jobs list: "45 % · stage 2 of 4", and whether it waits for CPUs (the job page's figures, in short). */
export function listProgressText(stages: Parameters<typeof jobOverview>[0]): string {
  const { fraction, current, total, running, waiting } = jobOverview(stages);
  return `${formatPercent(fraction)} · stage ${current} of ${total}${running.length === 0 && waiting.length > 0 ? ' · waiting for CPUs' : ''}`;
}

/** The figures of a stage's latest progress line worth showing, in a fixed order. */
export function progressFigures(progress: JobStage['progress']): { label: string; value: string }[] {
  if (!progress) return [];
  const figures: { label: string; value: string }[] = [];
  const add = (key: string, label: string, format: (n: number) => string) => {
    const v = progress[key];
    if (typeof v === 'number' && Number.isFinite(v)) figures.push({ label, value: format(v) });
  };
  add('iteration', 'iteration', (n) => String(n));
  add('temperature', 'temperature', (n) => n.toPrecision(4));
  add('stress', 'stress', (n) => n.toPrecision(4));
  add('clusters', 'clusters', (n) => String(n));
  add('mean_silhouette', 'mean silhouette', (n) => n.toFixed(2));
  return figures;
}

/** A job's input size: "300", or "100,000 (sample 4,000)" when the job interpolates. */
export function pointsText(input: Pick<JobSummary['input'], 'points' | 'sample'>): string {
  const points = input.points.toLocaleString('en-US');
  return input.sample === undefined ? points : `${points} (sample ${input.sample.toLocaleString('en-US')})`;
}

/**
 * A stage still running once its job has ended (cancelled, or failed by another stage): the bridge
 * is stopping its program, and records it ended with the job (at the job's endedAt).
 */
export const isStopping = (stage: Pick<JobStage, 'state'>, jobEndedAt: string | null) => stage.state === 'running' && jobEndedAt !== null;

type TimedStage = Pick<JobStage, 'state' | 'runner' | 'metrics' | 'launchedAt' | 'startedAt' | 'endedAt'>;

/**
 * A stage's time and what it counts: its program's wait for CPUs or its run (from its launch),
 * live until the stage ends; once it has, its run time, or the wait of a program stopped before
 * it got its CPUs ('waited for'). A stage being stopped (isStopping) counts to its job's end, as
 * its end will be recorded, so no stage outlasts its job. Null for a stage that never started.
 */
export function stageTime(stage: TimedStage, jobEndedAt: string | null, now = Date.now()): { label: string; seconds: number | null } | null {
  if (stage.startedAt === null) return null;
  const end = stage.endedAt ?? jobEndedAt;
  const launchedAt = stage.runner === 'hpc' ? stage.launchedAt : stage.startedAt;
  // A launch after the end (CPUs found while the bridge was stopping the program) came too late to count.
  const launched = launchedAt !== null && (end === null || Date.parse(launchedAt) <= Date.parse(end));
  if (end === null) {
    return launched ? { label: 'running for', seconds: elapsedSeconds(launchedAt, null, now) } : { label: 'waiting for', seconds: elapsedSeconds(stage.startedAt, null, now) };
  }
  if (stage.metrics?.runSeconds != null) return { label: 'run time', seconds: stage.metrics.runSeconds };
  if (launched || stage.state === 'succeeded') return { label: 'run time', seconds: elapsedSeconds(launched ? launchedAt : stage.startedAt, end) };
  return { label: 'waited for', seconds: elapsedSeconds(stage.startedAt, end) };
}

/**
 * A stage's run figures: its time (stageTime), then what its backend measured. CPU, peak memory
 * and ranks × threads are a program's; a stage the worker runs itself (sample, assemble) has none of them.
 */
export function runFigures(stage: TimedStage & Pick<JobStage, 'backendJobId'>, jobEndedAt: string | null, now = Date.now()): { label: string; value: string }[] {
  const time = stageTime(stage, jobEndedAt, now);
  const figures = time === null ? [] : [{ label: time.label, value: formatSeconds(time.seconds) }];
  const metrics = stage.metrics;
  if (!metrics) return figures;
  figures.push({ label: 'queue wait', value: formatSeconds(metrics.queueWaitSeconds) });
  if (metrics.cpuSeconds !== null) figures.push({ label: 'CPU', value: formatSeconds(metrics.cpuSeconds) });
  if (metrics.peakMemoryKb !== null) figures.push({ label: 'peak memory', value: formatBytes(metrics.peakMemoryKb * 1024) });
  if (stage.backendJobId !== null) figures.push({ label: 'ranks × threads', value: `${metrics.ranks} × ${metrics.threads}` });
  return figures;
}

export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

export const formatPercent = (f: number) => `${Math.floor(f * 100)} %`;

/** Seconds between two ISO times; `end` null means still running (measured against `now`). */
export function elapsedSeconds(start: string | null, end: string | null, now = Date.now()): number | null {
  if (!start) return null;
  return ((end ? Date.parse(end) : now) - Date.parse(start)) / 1000;
}

export interface ChartBox {
  width: number;
  height: number;
  /** Room for the axes' labels, in pixels. */
  left: number;
  bottom: number;
  pad: number;
}

export interface ChartGeometry {
  /** SVG path of the values ('' with no finite point). */
  path: string;
  /** First and last x (iteration or frame). */
  xRange: [number, number];
  /** Lowest and highest stress (the chart's vertical range). */
  stress: [number, number];
  lastStress: number;
  /** One dot per point; `final` marks DA-MDS's plain SMACOF loop (temperature 0). */
  marks: { x: number; y: number; final: boolean }[];
  /** Where the final (temperature 0) loop starts, in pixels; null while annealing. */
  finalX: number | null;
}

type StressPoint = JobStage['series'][number] & { stress: number };

/**
 * A stage's stress series split by what its x counts. DA-MDS's lines (they carry a temperature)
 * count iterations. A series program's per-frame lines (mdsseries: no temperature, no
 * iteration) are numbered by the bridge, which counts every stress line, the first window's
 * annealing lines included: drawn on one axis, the frames' numbers would restart below the
 * annealing's iterations and the line would jump back across the chart. They are charted
 * apart, against the frame: the latest progress line names the frame of the last point
 * (`frame` while running, `frames` once done), which fixes the offset even after the bridge
 * has thinned the series.
 */
export function stressSeries(series: JobStage['series'], progress: JobStage['progress']): {
  annealing: { x: number; stress: number; temperature: number | null }[];
  frames: { x: number; stress: number; temperature: null }[];
} {
  const points = series.filter((p): p is StressPoint => p.stress !== null && Number.isFinite(p.stress) && Number.isFinite(p.iteration));
  const annealing = points.filter((p) => p.temperature !== null).map((p) => ({ x: p.iteration, stress: p.stress, temperature: p.temperature }));
  const perFrame = points.filter((p) => p.temperature === null);
  if (!perFrame.length) return { annealing, frames: [] };
  const lastFrame = [progress?.frame, progress?.frames].find((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const last = points[points.length - 1]!;
  const offset = last.temperature === null && lastFrame !== undefined ? last.iteration - lastFrame : perFrame[0]!.iteration - 1;
  return { annealing, frames: perFrame.map((p) => ({ x: p.iteration - offset, stress: p.stress, temperature: null })) };
}

/** A stress axis label that fits left of the axis: 0.017, 3.2e-6 (not 0.0000032). */
export const stressTick = (v: number) => (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(1) : v.toPrecision(2));

/** Scales (x, stress) points, in order of x, into the plot area of `box`, left of and above the axes. */
export function stressChart(points: readonly { x: number; stress: number; temperature: number | null }[], box: ChartBox): ChartGeometry {
  if (points.length === 0) return { path: '', xRange: [0, 0], stress: [0, 0], lastStress: 0, marks: [], finalX: null };
  const { width, height, left, bottom, pad } = box;
  const xs = points.map((p) => p.x), ys = points.map((p) => p.stress);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const right = width - pad, top = pad, base = height - bottom;
  // A single value (one point or a flat line) sits in the middle instead of dividing by zero.
  const sx = (x: number) => (x1 === x0 ? (left + right) / 2 : left + ((x - x0) / (x1 - x0)) * (right - left));
  const sy = (y: number) => (y1 === y0 ? (top + base) / 2 : base - ((y - y0) / (y1 - y0)) * (base - top));
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.x).toFixed(1)},${sy(p.stress).toFixed(1)}`).join(' ');
  const marks = points.map((p) => ({ x: sx(p.x), y: sy(p.stress), final: p.temperature === 0 }));
  const firstFinal = points.findIndex((p) => p.temperature === 0);
  // The final loop starts where the last annealing step ended.
  const finalX = firstFinal < 0 ? null : sx(firstFinal > 0 ? points[firstFinal - 1]!.x : x0);
  return { path, xRange: [x0, x1], stress: [y0, y1], lastStress: ys[ys.length - 1]!, marks, finalX };
}
