import { JOB_TYPES, type JobTypeContract } from '@wpv/schema';
import { describe, expect, test } from 'vitest';
import {
  countdown, elapsedSeconds, etaSeconds, formatSeconds, isActiveJob, isStopping, jobEtaSeconds, jobOverview, listProgressText, pointsText, progressFigures, runFigures, stageEtaSeconds, stageFraction, stageTime, stageTitle, stressChart, stressSeries, stressTick, timeLeftText,
} from './jobProgress';

const point = (iteration: number, stress: number | null, temperature: number | null = null) => ({ iteration, stress, temperature });
const box = { width: 100, height: 50, left: 10, bottom: 10, pad: 5 };

const xy = (series: ReturnType<typeof point>[]) => stressSeries(series, null).annealing;

describe('stressChart', () => {
  test('maps the first iteration to the axis and the largest stress to the top of the plot area', () => {
    const c = stressChart(xy([point(0, 10, 1), point(5, 4, 1), point(10, 2, 1)]), box);
    // x from left=10 to width-pad=95, y from base=40 up to pad=5
    expect(c.path).toBe('M10.0,5.0 L52.5,31.3 L95.0,40.0');
    expect(c.xRange).toEqual([0, 10]);
    expect(c.stress).toEqual([2, 10]);
    expect(c.lastStress).toBe(2);
    expect(c.marks).toHaveLength(3);
    expect(c.finalX).toBeNull();
  });

  test('marks the final loop from where the last temperature step ended', () => {
    const c = stressChart(xy([point(40, 0.3, 0.2), point(120, 0.1, 0.1), point(573, 0.04, 0)]), box);
    expect(c.xRange).toEqual([40, 573]);
    expect(c.marks.map((m) => m.final)).toEqual([false, false, true]);
    expect(c.finalX).toBeCloseTo(10 + ((120 - 40) / (573 - 40)) * 85, 6);
  });

  test('skips points without stress and centres a single value', () => {
    const single = stressChart(xy([point(0, null, 1), point(3, 1, 1), point(4, null, 1)]), box);
    expect(single.path).toBe('M52.5,22.5');
    expect(single.lastStress).toBe(1);
    expect(stressChart(xy([point(0, null, 1)]), box).path).toBe('');
  });
});

test('stress ticks stay short enough for the axis margin', () => {
  expect([stressTick(0.0168), stressTick(3.2e-6), stressTick(0), stressTick(1.25)]).toEqual(['0.017', '3.2e-6', '0.0', '1.3']);
});

describe('stressSeries: a stock series stage (first window annealed, then one line per frame)', () => {
  // mdsseries's lines as the bridge records them: 3 annealing steps carry the DA-MDS iteration
  // and temperature; frame lines carry neither and are numbered by the bridge's count of stress
  // lines (4, 5, … for frames 1, 2, …), far below the annealing's iterations.
  const annealing = [point(30, 0.001, 2), point(180, 0.004, 1), point(413, 0.02, 0)];
  const frames = [point(4, 0.05), point(5, 0.06), point(6, 0.055), point(7, 0.07)];

  test('charts the frames apart, against the frame number, so neither line jumps back', () => {
    const split = stressSeries([...annealing, ...frames], { phase: 'frame', frame: 4, frames: 10 });
    expect(split.annealing.map((p) => p.x)).toEqual([30, 180, 413]);
    expect(split.frames.map((p) => p.x)).toEqual([1, 2, 3, 4]);
    expect(split.frames.map((p) => p.stress)).toEqual([0.05, 0.06, 0.055, 0.07]);
    for (const part of [split.annealing, split.frames]) {
      const xs = [...stressChart(part, box).path.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
    }
  });

  test('numbers frames from the last progress line even after the bridge thinned the series', () => {
    // The bridge keeps every other point when the series fills: the first frame line went.
    const thinned = [annealing[1]!, frames[1]!, frames[3]!];
    expect(stressSeries(thinned, { phase: 'done', frames: 4 }).frames.map((p) => p.x)).toEqual([2, 4]);
  });

  test('a DA-MDS stage has no frame chart', () => {
    expect(stressSeries(annealing, { phase: 'final' }).frames).toEqual([]);
  });
});

describe('stage progress', () => {
  test('stages get plain names, unknown ones keep theirs', () => {
    expect(stageTitle('swg')).toBe('Aligning sequences');
    expect(stageTitle('mds')).toBe('Mapping to 3D');
    expect(stageTitle('pwc')).toBe('Clustering');
    expect(stageTitle('interp')).toBe('Placing the rest');
    expect(stageTitle('assemble')).toBe('Building the plot');
    expect(stageTitle('frames')).toBe('frames');
  });
  test('every stage of every job type has a plain name', () => {
    const stages = (Object.values(JOB_TYPES) as JobTypeContract[]).flatMap((type) => [...type.stages, ...(type.interpolatedStages ?? [])]);
    expect(stages.filter((s) => stageTitle(s.name) === s.name).map((s) => s.name)).toEqual([]);
  });

  test('fraction from the progress line, clamped; none when the program does not say', () => {
    expect(stageFraction({ state: 'running', progress: { fraction: 0.25 } })).toBe(0.25);
    expect(stageFraction({ state: 'running', progress: { fraction: 1.2 } })).toBe(1);
    expect(stageFraction({ state: 'running', progress: { phase: 'anneal' } })).toBeNull();
    expect(stageFraction({ state: 'succeeded', progress: null })).toBe(1);
    expect(stageFraction({ state: 'queued', progress: null })).toBe(0);
  });

  test('ETA extrapolates the rate so far, and waits for enough progress', () => {
    expect(etaSeconds(0.25, 30)).toBe(90);
    expect(etaSeconds(0.01, 30)).toBeNull();
    expect(etaSeconds(null, 30)).toBeNull();
    expect(etaSeconds(1, 30)).toBeNull();
    expect(etaSeconds(0.05, 30, 0.1)).toBeNull();
    expect(etaSeconds(0.1, 30, 0.1)).toBeCloseTo(270, 9);
  });

  test('job overview: stage i of n, what runs, what waits for CPUs, the whole job\'s share', () => {
    const o = jobOverview([
      { name: 'swg', runner: 'hpc', share: 0.25, expectedSeconds: null, state: 'succeeded', progress: null, launchedAt: '2026-11-26T10:00:00Z' },
      { name: 'mds', runner: 'hpc', share: 0.25, expectedSeconds: null, state: 'running', progress: { fraction: 0.5 }, launchedAt: '2026-11-26T10:00:09Z' },
      { name: 'pwc', runner: 'hpc', share: 0.25, expectedSeconds: null, state: 'running', progress: {}, launchedAt: '2026-11-26T10:00:09Z' },
      { name: 'assemble', runner: 'worker', share: 0.25, expectedSeconds: null, state: 'pending', progress: null, launchedAt: null },
    ]);
    expect(o).toEqual({ current: 2, total: 4, running: ['Mapping to 3D', 'Clustering'], waiting: [], fraction: (1 + 0.5 + 0) / 4, expectedLeft: null });
    const stage = (name: string, runner: 'hpc' | 'worker', launchedAt: string | null) =>
      ({ name, runner, share: 1 / 3, expectedSeconds: null, state: 'running' as const, progress: null, launchedAt });
    // A program not launched yet waits for CPUs (submitted or being submitted); a worker stage runs at once.
    const waiting = jobOverview([stage('mds', 'hpc', '2026-11-26T10:00:09Z'), stage('pwc', 'hpc', null), stage('assemble', 'worker', null)]);
    expect(waiting.running).toEqual(['Mapping to 3D', 'Building the plot']);
    expect(waiting.waiting).toEqual(['Clustering']);
    expect(waiting.fraction).toBe(0); // nothing has reported a fraction: a waiting program has done nothing yet
    expect(jobOverview([{ name: 'swg', runner: 'hpc', share: 1, expectedSeconds: null, state: 'succeeded', progress: null, launchedAt: null }]).current).toBe(1);
  });

  test('job overview: stages weigh their share of the time, so the time left extrapolates evenly', () => {
    // Alignment usually takes 70 % of such a job: done with it, the job is 70 % done, not a quarter.
    const shares = { swg: 0.7, mds: 0.15, pwc: 0.1, assemble: 0.05 };
    // Such jobs took 10 s: 7 s aligning.
    const job = (states: [string, 'succeeded' | 'running' | 'pending', number | null][]) => jobOverview(states.map(([name, state, fraction]) => {
      const share = shares[name as keyof typeof shares];
      return { name, runner: 'hpc' as const, share, expectedSeconds: 10 * share, state, progress: fraction === null ? null : { fraction }, launchedAt: '2026-11-26T10:00:00Z' };
    }));
    const afterAlignment = job([['swg', 'succeeded', null], ['mds', 'running', 0], ['pwc', 'pending', null], ['assemble', 'pending', null]]);
    expect(afterAlignment.fraction).toBeCloseTo(0.7, 12);
    // 7 s in, 70 % done: 3 s left (equal weights said a quarter done and 21 s left).
    expect(etaSeconds(afterAlignment.fraction, 7)).toBeCloseTo(3, 9);
    const halfAligned = job([['swg', 'running', 0.5], ['mds', 'pending', null], ['pwc', 'pending', null], ['assemble', 'pending', null]]);
    expect(halfAligned.fraction).toBeCloseTo(0.35, 12);
    expect(halfAligned.expectedLeft).toBeCloseTo(6.5, 9);
  });

  test('the whole job\'s time left: the remembered jobs\' seconds at first, the job\'s own pace as it goes', () => {
    const overview = (fraction: number, expectedLeft: number | null) => ({ fraction, expectedLeft });
    // Just started (5 % done, its start-up slow): such jobs took 9.5 s for what is left.
    expect(jobEtaSeconds(overview(0.05, 9.5), 2)).toBe(9.5);
    // Half done in 8 s where such jobs took 5 s: the pace says 8 s left, history 5: half of each.
    expect(jobEtaSeconds(overview(0.5, 5), 8)).toBeCloseTo(6.5, 9);
    // 90 % done: mostly its own pace.
    expect(jobEtaSeconds(overview(0.9, 1), 18)).toBeCloseTo(0.9 * 2 + 0.1 * 1, 9);
    // No history: the pace alone, from 10 % done; done: nothing.
    expect(jobEtaSeconds(overview(0.05, null), 2)).toBeNull();
    expect(jobEtaSeconds(overview(0.5, null), 8)).toBeCloseTo(8, 9);
    expect(jobEtaSeconds(overview(1, 0), 8)).toBeNull();
  });

  test('a stage\'s time left is reckoned as the job\'s: its expected seconds for the work left, blended with its pace', () => {
    const stage = (fraction: number | null, expectedSeconds: number | null) =>
      ({ state: 'running' as const, progress: fraction === null ? {} : { fraction }, expectedSeconds });
    // 10 % done in 1 s of a stage such jobs finished in 10 s: history 9 s, pace 9 s.
    expect(stageEtaSeconds(stage(0.1, 10), 1)).toBeCloseTo(9, 9);
    // Half done in 2 s where such stages took 8 s: half of 2 (pace) and half of 4 (history).
    expect(stageEtaSeconds(stage(0.5, 8), 2)).toBeCloseTo(3, 9);
    // Early on, history alone; without it, the pace from 10 %; a program that reports no fraction: nothing.
    expect(stageEtaSeconds(stage(0.02, 10), 0.5)).toBeCloseTo(9.8, 9);
    expect(stageEtaSeconds(stage(0.02, null), 0.5)).toBeNull();
    expect(stageEtaSeconds(stage(null, 10), 0.5)).toBeNull();
  });

  test('the time left counts down between reports, and stops at "finishing"', () => {
    expect(countdown(8.4, 0)).toBe(8.4);
    expect(countdown(8.4, 1.5)).toBeCloseTo(6.9, 9);
    expect(countdown(8.4, 9)).toBe(0);
    expect(countdown(8.4, -0.3)).toBe(8.4); // the page's timer read before the report arrived
    expect(countdown(null, 1)).toBeNull();
    expect(timeLeftText(6.9)).toBe(' · about 6.9 s left');
    expect(timeLeftText(0.2)).toBe(' · finishing');
    expect(timeLeftText(null)).toBe('');
  });
});

describe('jobs list', () => {
  test('a running job shows its weighed share done, its stage, and whether it waits for CPUs', () => {
    const stage = (name: string, share: number, state: 'succeeded' | 'running' | 'pending', fraction: number | null) =>
      ({ name, runner: 'hpc' as const, share, expectedSeconds: null, state, progress: fraction === null ? null : { fraction }, launchedAt: '2026-11-26T10:00:00Z' });
    expect(listProgressText([stage('swg', 0.6, 'succeeded', null), stage('mds', 0.2, 'running', 0.5), stage('pwc', 0.15, 'pending', null), stage('assemble', 0.05, 'pending', null)]))
      .toBe('70 % · stage 2 of 4');
    // Its first program submitted, behind another job's on the CPUs.
    expect(listProgressText([{ ...stage('swg', 0.6, 'running', null), launchedAt: null }, stage('mds', 0.4, 'pending', null)]))
      .toBe('0 % · stage 1 of 2 · waiting for CPUs');
  });
});

describe('progress figures', () => {
  test('shows the known keys in order and formats them', () => {
    const figures = progressFigures({ clusters: 4, phase: 'anneal', stress: 0.123456, iteration: 12, other: 'x', temperature: 'hot' });
    expect(figures).toEqual([
      { label: 'iteration', value: '12' }, { label: 'stress', value: '0.1235' }, { label: 'clusters', value: '4' },
    ]);
    expect(progressFigures(null)).toEqual([]);
    // DA-PWC's done line: how well its clusters stand apart.
    expect(progressFigures({ clusters: 12, mean_silhouette: 0.51587 })).toEqual([
      { label: 'clusters', value: '12' }, { label: 'mean silhouette', value: '0.52' },
    ]);
  });

  test('run figures: a program\'s CPU, memory and layout; a worker stage has only its times', () => {
    const metrics = { queueWaitSeconds: 0.25, runSeconds: 3, cpuSeconds: 5.5, peakMemoryKb: 181_000, ranks: 2, threads: 1 };
    const t0 = '2026-11-26T10:00:00Z';
    const now = Date.parse('2026-11-26T10:00:12Z');
    expect(runFigures({ state: 'succeeded', runner: 'hpc', metrics, backendJobId: '16693', launchedAt: t0, startedAt: t0, endedAt: '2026-11-26T10:00:03Z' }, null)).toEqual([
      { label: 'run time', value: '3.0 s' }, { label: 'queue wait', value: '0.3 s' }, { label: 'CPU', value: '5.5 s' },
      { label: 'peak memory', value: '177 MB' }, { label: 'ranks × threads', value: '2 × 1' },
    ]);
    const worker = { ...metrics, runSeconds: 0.1, queueWaitSeconds: 0, cpuSeconds: null, peakMemoryKb: null, ranks: 1, threads: 1 };
    expect(runFigures({ state: 'succeeded', runner: 'worker', metrics: worker, backendJobId: null, launchedAt: null, startedAt: t0, endedAt: '2026-11-26T10:00:00.1Z' }, null)).toEqual([
      { label: 'run time', value: '0.1 s' }, { label: 'queue wait', value: '0.0 s' },
    ]);
    expect(runFigures({ state: 'running', runner: 'hpc', metrics: null, backendJobId: '7', launchedAt: t0, startedAt: t0, endedAt: null }, null, now)).toEqual([{ label: 'running for', value: '12.0 s' }]);
    expect(runFigures({ state: 'running', runner: 'hpc', metrics: null, backendJobId: '7', launchedAt: null, startedAt: t0, endedAt: null }, null, now)).toEqual([{ label: 'waiting for', value: '12.0 s' }]);
  });

  test('run figures of a cancelled job: a program stopped while it waited for CPUs, or a stage never started, has no run time', () => {
    const startedAt = '2026-11-26T10:00:00Z';
    const cancelled = { state: 'cancelled' as const, runner: 'hpc' as const, metrics: null, backendJobId: '7', startedAt };
    expect(runFigures({ ...cancelled, launchedAt: null, endedAt: '2026-11-26T10:00:25.3Z' }, '2026-11-26T10:00:25.3Z')).toEqual([{ label: 'waited for', value: '25.3 s' }]);
    expect(runFigures({ ...cancelled, backendJobId: null, launchedAt: null, startedAt: null, endedAt: '2026-11-26T10:00:25Z' }, '2026-11-26T10:00:25Z')).toEqual([]);
    expect(runFigures({ ...cancelled, runner: 'worker', backendJobId: null, launchedAt: null, startedAt: null, endedAt: '2026-11-26T10:00:25Z' }, '2026-11-26T10:00:25Z')).toEqual([]);
    // A program's run time counts from its launch, not from its submission.
    expect(runFigures({ ...cancelled, launchedAt: '2026-11-26T10:00:01Z', endedAt: '2026-11-26T10:00:10Z' }, '2026-11-26T10:00:10Z')).toEqual([{ label: 'run time', value: '9.0 s' }]);
  });

  test('a stage being stopped after its job was cancelled counts to the job\'s end, never past it', () => {
    // The QA pass: job from 10:00:00 to 10:00:05.1 (cancelled); the bridge stopped the
    // programs seconds later, and the page said run time 8.7 s and 'waited for 6.6 s'.
    const jobEndedAt = '2026-11-26T10:00:05.1Z';
    const later = Date.parse('2026-11-26T10:00:09Z');
    const align = { state: 'running' as const, runner: 'hpc' as const, metrics: null, startedAt: '2026-11-26T10:00:00.5Z', launchedAt: '2026-11-26T10:00:01Z', endedAt: null };
    const rest = { ...align, launchedAt: null };
    expect(isStopping(align, jobEndedAt)).toBe(true);
    expect(isStopping(align, null)).toBe(false);
    expect(isStopping({ state: 'cancelled' }, jobEndedAt)).toBe(false);
    expect(stageTime(align, jobEndedAt, later)).toEqual({ label: 'run time', seconds: 4.1 });
    expect(stageTime(rest, jobEndedAt, later)).toEqual({ label: 'waited for', seconds: 4.6 });
    // Its end as the bridge records it: the job's.
    expect(stageTime({ ...align, state: 'cancelled', endedAt: jobEndedAt }, jobEndedAt)).toEqual({ label: 'run time', seconds: 4.1 });
    // CPUs found while the bridge was stopping it: still a wait.
    expect(stageTime({ ...align, launchedAt: '2026-11-26T10:00:06Z' }, jobEndedAt, later)).toEqual({ label: 'waited for', seconds: 4.6 });
  });

  test('points of a job, and its sample when it interpolates', () => {
    expect(pointsText({ points: 300 })).toBe('300');
    expect(pointsText({ points: 100_000, sample: 4_000 })).toBe('100,000 (sample 4,000)');
  });

  test('job states and durations', () => {
    expect(isActiveJob('queued') && isActiveJob('running')).toBe(true);
    expect(isActiveJob('succeeded') || isActiveJob('failed') || isActiveJob('cancelled')).toBe(false);
    expect(formatSeconds(2.25)).toBe('2.3 s');
    expect(formatSeconds(125)).toBe('2 min 5 s');
    expect(formatSeconds(null)).toBe('–');
    expect(elapsedSeconds('2026-01-01T00:00:00Z', '2026-01-01T00:00:03.5Z')).toBe(3.5);
    expect(elapsedSeconds('2026-01-01T00:00:00Z', null, Date.parse('2026-01-01T00:01:00Z'))).toBe(60);
    expect(elapsedSeconds(null, null)).toBeNull();
  });
});
