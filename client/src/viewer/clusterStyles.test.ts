import { describe, expect, it } from 'vitest';
import type { Cluster } from '@wpv/schema';
import { buildPointAttributes, CENTRE_SCALE, CENTRE_SHAPE, countByCluster, resolveStyles, shownPoints, withCounts } from './clusterStyles';
import { PLAIN_POINT } from './shaders';

const clusters: Cluster[] = [
  { key: 0, label: 'zero', color: { r: 10, g: 20, b: 30, a: 255 }, shape: 0, size: 1, visible: true, count: 2 },
  { key: 5, label: 'five', color: { r: 200, g: 0, b: 0, a: 128 }, shape: 3, size: 2, visible: true, count: 1 },
];

describe('cluster styles', () => {
  it('applies overrides and hidden clusters', () => {
    const s = resolveStyles(clusters, { hidden: [5], overrides: { 0: { color: { r: 1, g: 2, b: 3, a: 4 }, shape: 6 } }, glyphs: true });
    expect(s[0]).toMatchObject({ color: { r: 1, g: 2, b: 3, a: 4 }, shape: 6, size: 1, visible: true });
    expect(s[1]).toMatchObject({ color: clusters[1].color, visible: false });
  });
  it('expands styles per point, highlights only visible points, greys unknown keys', () => {
    const styles = resolveStyles(clusters, { hidden: [5], overrides: {}, glyphs: true });
    const a = buildPointAttributes(new Uint32Array([0, 5, 0, 77]), styles, new Set([0, 1]));
    expect([...a.rgba.subarray(0, 8)]).toEqual([10, 20, 30, 255, 200, 0, 0, 128]);
    expect([...a.size]).toEqual([1, 2, 1, 1]);
    // Cluster 5 has one point: a plain point, as in PlotViz; unknown keys too.
    expect([...a.shape]).toEqual([0, PLAIN_POINT, 0, PLAIN_POINT]);
    expect([...a.visibility]).toEqual([2, 0, 1, 1]);
    expect([...a.rgba.subarray(12, 16)]).toEqual([160, 160, 160, 255]);
  });
  it('draws every cluster as plain points when glyphs are off', () => {
    const a = buildPointAttributes(new Uint32Array([0, 5]), resolveStyles(clusters, { hidden: [], overrides: {}, glyphs: false }), new Set());
    expect([...a.shape]).toEqual([PLAIN_POINT, PLAIN_POINT]);
  });
  it('handles sparse large keys through a map', () => {
    const big: Cluster[] = [{ ...clusters[0], key: 4_000_000_000 }];
    const a = buildPointAttributes(new Uint32Array([4_000_000_000]), resolveStyles(big, { hidden: [], overrides: {}, glyphs: true }), new Set());
    expect([...a.rgba]).toEqual([10, 20, 30, 255]);
  });
  it('draws a cluster as plain points in a frame where it has one point (the table counts all frames)', () => {
    // "zero" counts 2 in the table (say, one point in each of two frames); "five" 1
    const styles = resolveStyles(clusters, { hidden: [], overrides: {}, glyphs: true });
    const oneEach = buildPointAttributes(new Uint32Array([0, 5]), styles, new Set());
    expect([...oneEach.shape]).toEqual([PLAIN_POINT, PLAIN_POINT]);
    const many = buildPointAttributes(new Uint32Array([5, 0, 5, 0, 0]), styles, new Set());
    expect([...many.shape]).toEqual([3, 0, 3, 0, 0]);
  });
});

describe('cluster centres', () => {
  it("marks each cluster's medoid as a large star, even with glyphs off, only while it is in that cluster", () => {
    const withCentres: Cluster[] = [{ ...clusters[0]!, centre: 1 }, { ...clusters[1]!, size: 2, centre: 0 }];
    for (const glyphs of [true, false]) {
      const a = buildPointAttributes(Uint32Array.from([0, 0, 5]), resolveStyles(withCentres, { hidden: [], overrides: {}, glyphs }), new Set());
      expect([...a.shape]).toEqual([glyphs ? 0 : PLAIN_POINT, CENTRE_SHAPE, PLAIN_POINT]); // point 0 is no longer in cluster 5
      expect([...a.size]).toEqual([1, CENTRE_SCALE, 2]);
    }
  });
});

describe('cluster silhouettes', () => {
  it("carries a clustering job's silhouette to the cluster list, and none where the plot has none", () => {
    const s = resolveStyles([{ ...clusters[0]!, silhouette: 0.03 }, clusters[1]!], { hidden: [], overrides: {}, glyphs: true });
    expect(s[0]!.silhouette).toBe(0.03);
    expect('silhouette' in s[1]!).toBe(false);
  });
});

describe('per-frame counts', () => {
  it('counts the keys of one frame; clusters absent from it count 0', () => {
    const counts = countByCluster(new Uint32Array([3, 3, 1, 3]));
    expect([...counts.entries()].sort()).toEqual([[1, 1], [3, 3]]);
    const style = { label: '', color: { r: 0, g: 0, b: 0, a: 255 }, shape: 0, size: 1, visible: true, plain: false };
    const styles = [{ ...style, key: 1, count: 10 }, { ...style, key: 2, count: 5 }, { ...style, key: 3, count: 30 }];
    expect(withCounts(styles, counts).map((s) => s.count)).toEqual([1, 0, 3]);
  });
});

describe('shownPoints', () => {
  it('keeps the points outside hidden clusters, in order', () => {
    const keys = new Uint32Array([0, 5, 0, 7]);
    expect(shownPoints([3, 1, 0], keys, [5])).toEqual([3, 0]);
    expect(shownPoints([1], keys, [5])).toEqual([]);
    expect(shownPoints([1, 2], keys, [])).toEqual([1, 2]);
  });
});
