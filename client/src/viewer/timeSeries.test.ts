import { ApiError } from '@wpv/schema';
import { describe, expect, it } from 'vitest';
import { FrameStore, blendTargets, matchByLabel, type FrameData } from './timeSeries';

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
  it('stops at a final failure (a deleted plot\'s 404): no frame is asked for again, in memory ones still serve', async () => {
    const asked: number[] = [];
    const gone = new ApiError(404, 'not_found', 'plot not found');
    const s = new FrameStore(40, async (f) => {
      asked.push(f);
      if (f >= 2) throw gone;
      return frame(['a'], [f]);
    }, 64, 16, 4);
    await s.prefetchFrom(0, true);
    await s.prefetchFrom(1, true);
    await expect(s.get(5)).rejects.toBe(gone);
    await expect(s.get(30)).rejects.toBe(gone);
    expect(asked.filter((f) => f >= 2).length).toBeLessThanOrEqual(4); // the first failures in flight together
    expect(new Set(asked).size).toBe(asked.length);
    expect(s.peek(1)?.positions[0]).toBe(1);
  });
  it('asks again for a frame that failed transiently (network, 5xx)', async () => {
    let failures = 2;
    const s = new FrameStore(3, async (f) => {
      if (failures-- > 0) throw new ApiError(failures ? 0 : 503, failures ? 'network' : 'unavailable', 'try later');
      return frame(['a'], [f]);
    });
    await expect(s.get(1)).rejects.toThrow('try later');
    await expect(s.get(1)).rejects.toThrow('try later');
    expect((await s.get(1)).positions[0]).toBe(1);
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
