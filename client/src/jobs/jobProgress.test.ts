import { describe, expect, test } from 'vitest';
import { elapsedSeconds, formatSeconds, isActiveJob, progressFigures, stressChart } from './jobProgress';

const point = (iteration: number, stress: number | null) => ({ iteration, stress, temperature: null });

describe('stressChart', () => {
  test('maps the first iteration to the left edge and the largest stress to the top', () => {
    const c = stressChart([point(0, 10), point(5, 4), point(10, 2)], 100, 50, 5);
    expect(c.path).toBe('M5.0,5.0 L50.0,35.0 L95.0,45.0');
    expect(c.iterations).toEqual([0, 10]);
    expect(c.stress).toEqual([2, 10]);
    expect([c.firstStress, c.lastStress]).toEqual([10, 2]);
  });

  test('skips points without stress and centres a single value', () => {
    const single = stressChart([point(0, null), point(3, 1), point(4, null)], 100, 50);
    expect(single.path).toBe('M50.0,25.0');
    expect([single.firstStress, single.lastStress]).toEqual([1, 1]);
    expect(stressChart([point(1, 2), point(2, 2)], 100, 50, 0).path).toBe('M0.0,25.0 L100.0,25.0');
    expect(stressChart([point(0, null)], 100, 50).path).toBe('');
  });
});

describe('progress figures', () => {
  test('shows the known keys in order and formats them', () => {
    const figures = progressFigures({ clusters: 4, phase: 'anneal', stress: 0.123456, iteration: 12, other: 'x', temperature: 'hot' });
    expect(figures).toEqual([
      { label: 'phase', value: 'anneal' }, { label: 'iteration', value: '12' },
      { label: 'stress', value: '0.1235' }, { label: 'clusters', value: '4' },
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
