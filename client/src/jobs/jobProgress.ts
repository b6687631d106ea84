// Pure helpers for the job pages: which states are live, what a stage's progress line
// says, and the stress chart's scaling.
import type { Job, JobStage } from '@wpv/schema';

const ACTIVE_JOB_STATES: ReadonlySet<string> = new Set(['queued', 'running']);

export const isActiveJob = (state: Job['state']) => ACTIVE_JOB_STATES.has(state);

/** The figures of a stage's latest progress line worth showing, in a fixed order. */
export function progressFigures(progress: JobStage['progress']): { label: string; value: string }[] {
  if (!progress) return [];
  const figures: { label: string; value: string }[] = [];
  const add = (key: string, label: string, format: (n: number) => string) => {
    const v = progress[key];
    if (typeof v === 'number' && Number.isFinite(v)) figures.push({ label, value: format(v) });
  };
  if (typeof progress.phase === 'string') figures.push({ label: 'phase', value: progress.phase });
  add('iteration', 'iteration', (n) => String(n));
  add('temperature', 'temperature', (n) => n.toPrecision(4));
  add('stress', 'stress', (n) => n.toPrecision(4));
  add('clusters', 'clusters', (n) => String(n));
  add('elapsed', 'elapsed', formatSeconds);
  return figures;
}

export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

/** Seconds between two ISO times; `end` null means still running (measured against `now`). */
export function elapsedSeconds(start: string | null, end: string | null, now = Date.now()): number | null {
  if (!start) return null;
  return ((end ? Date.parse(end) : now) - Date.parse(start)) / 1000;
}

export interface ChartGeometry {
  /** SVG path of stress over iterations ('' with fewer than one finite point). */
  path: string;
  iterations: [number, number];
  /** Lowest and highest stress (the chart's vertical range). */
  stress: [number, number];
  /** Stress at the first and the last charted iteration. */
  firstStress: number;
  lastStress: number;
}

/** Scales the (iteration, stress) series into a width×height box with `pad` pixels of margin. */
export function stressChart(series: JobStage['series'], width: number, height: number, pad = 4): ChartGeometry {
  const points = series.filter((p): p is { iteration: number; stress: number; temperature: number | null } =>
    p.stress !== null && Number.isFinite(p.stress) && Number.isFinite(p.iteration));
  if (points.length === 0) return { path: '', iterations: [0, 0], stress: [0, 0], firstStress: 0, lastStress: 0 };
  const xs = points.map((p) => p.iteration), ys = points.map((p) => p.stress);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  // A single value (one point or a flat line) sits in the middle instead of dividing by zero.
  const sx = (x: number) => (x1 === x0 ? width / 2 : pad + ((x - x0) / (x1 - x0)) * (width - 2 * pad));
  const sy = (y: number) => (y1 === y0 ? height / 2 : height - pad - ((y - y0) / (y1 - y0)) * (height - 2 * pad));
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.iteration).toFixed(1)},${sy(p.stress).toFixed(1)}`).join(' ');
  return { path, iterations: [x0, x1], stress: [y0, y1], firstStress: ys[0]!, lastStress: ys[ys.length - 1]! };
}
