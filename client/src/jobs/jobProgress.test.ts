import { describe, expect, test } from 'vitest';
import {
  elapsedSeconds, etaSeconds, formatSeconds, isActiveJob, jobOverview, progressFigures, stageFraction, stageTitle, stressChart,
} from './jobProgress';

const point = (iteration: number, stress: number | null, temperature: number | null = null) => ({ iteration, stress, temperature });
const box = { width: 100, height: 50, left: 10, bottom: 10, pad: 5 };

describe('stressChart', () => {
  test('maps the first iteration to the axis and the largest stress to the top of the plot area', () => {
    const c = stressChart([point(0, 10), point(5, 4), point(10, 2)], box);
    // x from left=10 to width-pad=95, y from base=40 up to pad=5
    expect(c.path).toBe('M10.0,5.0 L52.5,31.3 L95.0,40.0');
    expect(c.iterations).toEqual([0, 10]);
    expect(c.stress).toEqual([2, 10]);
    expect([c.firstStress, c.lastStress]).toEqual([10, 2]);
    expect(c.marks).toHaveLength(3);
    expect(c.finalX).toBeNull();
  });

  test('marks the final loop from where the last temperature step ended', () => {
    const c = stressChart([point(40, 0.3, 0.2), point(120, 0.1, 0.1), point(573, 0.04, 0)], box);
    expect(c.iterations).toEqual([40, 573]);
    expect(c.marks.map((m) => m.final)).toEqual([false, false, true]);
    expect(c.finalX).toBeCloseTo(10 + ((120 - 40) / (573 - 40)) * 85, 6);
  });

  test('skips points without stress and centres a single value', () => {
    const single = stressChart([point(0, null), point(3, 1), point(4, null)], box);
    expect(single.path).toBe('M52.5,22.5');
    expect([single.firstStress, single.lastStress]).toEqual([1, 1]);
    expect(stressChart([point(0, null)], box).path).toBe('');
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
  });

  test('job overview: stage i of n, what runs, the whole job\'s share', () => {
    const o = jobOverview([
      { name: 'swg', state: 'succeeded', progress: null },
      { name: 'mds', state: 'running', progress: { fraction: 0.5 } },
      { name: 'pwc', state: 'running', progress: {} },
      { name: 'assemble', state: 'pending', progress: null },
    ]);
    expect(o).toEqual({ current: 2, total: 4, running: ['Mapping to 3D', 'Clustering'], fraction: (1 + 0.5 + 0.5) / 4 });
    expect(jobOverview([{ name: 'swg', state: 'succeeded', progress: null }]).current).toBe(1);
  });
});

describe('progress figures', () => {
  test('shows the known keys in order and formats them', () => {
    const figures = progressFigures({ clusters: 4, phase: 'anneal', stress: 0.123456, iteration: 12, other: 'x', temperature: 'hot' });
    expect(figures).toEqual([
      { label: 'iteration', value: '12' }, { label: 'stress', value: '0.1235' }, { label: 'clusters', value: '4' },
    ]);
    expect(progressFigures(null)).toEqual([]);
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
