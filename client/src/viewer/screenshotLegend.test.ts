import { describe, expect, it } from 'vitest';
import type { ClusterStyle } from './clusterStyles';
import { legendEntries } from './screenshotLegend';

const style = (key: number, count: number, visible = true): ClusterStyle =>
  ({ key, label: `c${key}`, visible, count, size: 1, shape: 0, color: { r: 0, g: 0, b: 0, a: 255 }, plain: false });

describe('screenshot legend', () => {
  it('lists visible clusters, largest first, and counts those left out', () => {
    const styles = [style(0, 5), style(1, 50, false), style(2, 9), style(3, 9), style(4, 1)];
    const { entries, more } = legendEntries(styles, 3);
    expect(entries.map((s) => s.key)).toEqual([2, 3, 0]);
    expect(more).toBe(1);
    expect(legendEntries(styles).more).toBe(0);
  });
});
