import { describe, expect, it } from 'vitest';
import { FrameStore, blendTargets, computeTrails, matchByLabel, missingTrailLabels, trailSegments, type FrameData } from './timeSeries';

const frame = (labels: string[], xs: number[]): FrameData => ({
  labels,
  clusters: new Uint32Array(labels.length),
  edges: [],
  positions: new Float32Array(xs.flatMap((x) => [x, 0, 0])),
});

describe('FrameStore', () => {
  function store(count: number, capacity = 8, ahead = 4) {
    const fetched: number[] = [];
    const s = new FrameStore(count, async (f) => { fetched.push(f); return frame(['a'], [f]); }, capacity, ahead, 2);
    return { s, fetched };
  }
  it('prefetches the frames ahead of the playhead and serves them synchronously', async () => {
    const { s, fetched } = store(10);
    expect(s.peek(0)).toBeUndefined();
    await s.prefetchFrom(0, false);
    expect(fetched.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(s.peek(3)?.positions[0]).toBe(3);
    expect(s.peek(5)).toBeUndefined();
  });
  it('wraps around when looping and fetches each frame once', async () => {
    const { s, fetched } = store(6);
    await s.prefetchFrom(4, true);
    await s.prefetchFrom(5, true);
    expect(fetched.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });
  it('evicts frames behind the playhead beyond capacity', async () => {
    const { s } = store(20, 6, 3);
    await s.prefetchFrom(0, false);
    await s.prefetchFrom(4, false);
    await s.prefetchFrom(8, false);
    for (let f = 8; f <= 11; f++) expect(s.peek(f)).toBeDefined();
    expect(s.peek(7)).toBeUndefined(); // just behind the playhead: needed last when looping
    expect(Array.from({ length: 20 }, (_, f) => s.peek(f)).filter(Boolean).length).toBe(6);
  });
  it('rejects frames out of range and shares in-flight fetches', async () => {
    const { s, fetched } = store(3);
    await expect(s.get(3)).rejects.toThrow(RangeError);
    await Promise.all([s.get(1), s.get(1)]);
    expect(fetched).toEqual([1]);
  });
});

describe('matching across frames', () => {
  it('matches by label regardless of order', () => {
    expect([...matchByLabel(['a', 'b', 'c'], ['c', 'x', 'a'])]).toEqual([2, -1, 0]);
  });
  it('blends towards the same label in the next frame; unmatched points stay', () => {
    const t = blendTargets(frame(['a', 'b'], [1, 2]), frame(['b', 'z'], [20, 99]));
    expect([...t]).toEqual([1, 0, 0, 20, 0, 0]);
  });
});

describe('trails', () => {
  const frames = [frame(['a', 'b'], [0, 10]), frame(['b', 'a'], [11, 1]), frame(['b'], [12]), frame(['a', 'b'], [3, 13])];
  it('follow a label through all frames, NaN where absent', () => {
    const [a, b] = computeTrails(frames, ['a', 'b']);
    expect([a[0], a[3], a[6], a[9]]).toEqual([0, 1, NaN, 3]);
    expect([b[0], b[3], b[6], b[9]]).toEqual([10, 11, 12, 13]);
  });
  it('name the labels no frame has (AAPL in a plot without it)', () => {
    const labels = ['a', 'AAPL', 'b'];
    expect(missingTrailLabels(computeTrails(frames, labels), labels)).toEqual(['AAPL']);
  });
  it('draw only the last `length` steps and break at gaps', () => {
    const trails = computeTrails(frames, ['a', 'b']);
    const all = trailSegments(trails, 3, 10);
    expect([...all.trail]).toEqual([0, 1, 1, 1]);
    const last = trailSegments(trails, 3, 1);
    expect([...last.trail]).toEqual([1]);
    expect([...last.vertices]).toEqual([12, 0, 0, 13, 0, 0]);
  });
});
