import { describe, expect, it } from 'vitest';
import { assignCluster, followLabels, nextSelectionName } from './selection';

describe('followLabels', () => {
  it('keeps the selection on the same labels when the next frame lists points in another order', () => {
    expect(followLabels([0, 2], ['a', 'b', 'c'], ['c', 'a', 'b'])).toEqual([1, 0]);
  });
  it('returns the selection itself when no point changes index', () => {
    const selection = [0, 2];
    expect(followLabels(selection, ['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toBe(selection);
  });
  it('keeps a repeated label where it is when it has not moved', () => {
    expect(followLabels([2], ['a', 'b', 'a'], ['a', 'c', 'a'])).toEqual([2]);
    expect(followLabels([2], ['a', 'b', 'a'], ['b', 'a', 'c'])).toEqual([1]);
  });
  it('drops points the next frame lacks, and takes the first of a repeated label', () => {
    expect(followLabels([0, 1, 2], ['a', 'b', 'c'], ['c', 'x', 'a', 'a'])).toEqual([2, 0]);
  });
  it('matches unlabelled points by index', () => {
    expect(followLabels([1, 3], ['', '', '', ''], ['', '', ''])).toEqual([1]);
  });
});

describe('assignCluster', () => {
  it('sets the key on the chosen indices in their frame and on the same labels elsewhere', () => {
    const source = { index: 3, labels: ['a', 'b', 'a'], clusters: new Uint32Array([1, 1, 2]) };
    const copy = { ...source, clusters: source.clusters.slice() }; // the same frame, cached for playback
    const other = { index: 4, labels: ['b', 'c', 'a'], clusters: new Uint32Array([1, 2, 2]) };
    assignCluster(9, [1, 2], source, [source, copy, other]);
    expect([...source.clusters]).toEqual([1, 9, 9]);
    expect([...copy.clusters]).toEqual([1, 9, 9]);
    expect([...other.clusters]).toEqual([9, 2, 9]);
  });
});

describe('nextSelectionName', () => {
  it('numbers selections past the names already used', () => {
    expect(nextSelectionName(['1', '2'])).toBe('Selection 1');
    expect(nextSelectionName(['Selection 1', 'Selection 3'])).toBe('Selection 2');
  });
});
