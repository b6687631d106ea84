import { describe, expect, test } from 'vitest';
import { clusterMatcher, hiddenAfter } from './clusterPattern';
import type { ClusterStyle } from './clusterStyles';

const style = (key: number, label: string, visible = true): ClusterStyle =>
  ({ key, label, visible, count: 1, size: 1, shape: 0, color: { r: 0, g: 0, b: 0, a: 255 }, plain: true });

describe('cluster patterns', () => {
  test('substring, case-insensitive', () => {
    const m = clusterMatcher('Intern');
    expect(['internal 3', 'leaf 2', 'INTERNAL'].filter(m.test)).toEqual(['internal 3', 'INTERNAL']);
  });
  test('glob matches the whole label', () => {
    const m = clusterMatcher('node_?');
    expect(['node_1', 'node_12', 'a node_2'].filter(m.test)).toEqual(['node_1']);
    expect(['clade 1 (x)', 'clade 10'].filter(clusterMatcher('clade 1*').test)).toEqual(['clade 1 (x)', 'clade 10']);
    expect(clusterMatcher('a.b*').test('axb')).toBe(false); // dots are literal
  });
  test('regular expression between slashes; a bad one says why and matches nothing', () => {
    expect(['clade 1', 'clade 2', 'clade 3'].filter(clusterMatcher('/^clade (1|3)$/').test)).toEqual(['clade 1', 'clade 3']);
    const bad = clusterMatcher('/(/');
    expect(bad.error).toMatch(/regular expression/);
    expect(bad.test('(')).toBe(false);
  });
  test('empty pattern matches everything', () => {
    expect(clusterMatcher('  ').test('x')).toBe(true);
  });
});

describe('bulk visibility acts on the targets only', () => {
  const styles = [style(1, 'internal 1'), style(2, 'internal 2', false), style(3, 'leaf 1'), style(4, 'leaf 2', false)];
  const internal = styles.slice(0, 2);
  test('hide, show and invert leave the other clusters as they were', () => {
    expect(hiddenAfter(styles, internal, 'hide').sort()).toEqual([1, 2, 4]);
    expect(hiddenAfter(styles, internal, 'show').sort()).toEqual([4]);
    expect(hiddenAfter(styles, internal, 'invert').sort()).toEqual([1, 4]);
  });
  test('solo shows only the targets', () => {
    expect(hiddenAfter(styles, internal, 'solo').sort()).toEqual([3, 4]);
  });
});
