import { ApiError } from '@wpv/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Playback } from './playback';
import { FrameStore, type FrameData } from './timeSeries';

const frameData = (f: number): FrameData => ({
  positions: new Float32Array([f, 0, 0]), clusters: new Uint32Array(1), labels: ['a'], edges: [],
});

// A manual animation-frame clock.
let pending: ((t: number) => void) | null = null;
beforeEach(() => {
  globalThis.requestAnimationFrame = ((cb: (t: number) => void) => { pending = cb; return 1; }) as typeof requestAnimationFrame;
  globalThis.cancelAnimationFrame = () => { pending = null; };
});
afterEach(() => { pending = null; });
const tickAt = (t: number) => { const cb = pending; pending = null; cb?.(t); };
// The ticks are timed from a clock read after play(), which reads its own: on a busy machine a
// millisecond can pass between the two, and a tick timed from before play() would come too early.

function setup(count: number, fetch = async (f: number) => frameData(f)) {
  const shown: number[] = [];
  const blends: number[] = [];
  const failures: unknown[] = [];
  const store = new FrameStore(count, fetch, 16, 4, 2);
  const playback = new Playback(store, { show: (f) => shown.push(f), setBlend: (t) => blends.push(t), failed: (e) => failures.push(e) }, 0);
  return { store, playback, shown, blends, failures };
}

describe('Playback', () => {
  it('advances one frame per 1/fps seconds from prefetched frames and loops', async () => {
    const { store, playback, shown } = setup(3);
    await store.prefetchFrom(0, true);
    playback.fps = 10;
    playback.play();
    const start = performance.now();
    tickAt(start + 50);
    expect(shown).toEqual([]);
    tickAt(start + 101);
    tickAt(start + 202);
    tickAt(start + 303);
    expect(shown).toEqual([1, 2, 0]);
    expect(playback.frame).toBe(0);
  });
  it('stops at the end without loop', async () => {
    const { store, playback, shown } = setup(2);
    await store.prefetchFrom(0, false);
    playback.loop = false;
    playback.fps = 10;
    playback.play();
    const start = performance.now();
    tickAt(start + 101);
    tickAt(start + 202);
    expect(shown).toEqual([1]);
    expect(playback.playing).toBe(false);
  });
  it('waits for a frame that is not in memory instead of skipping it', () => {
    const { playback, shown } = setup(5);
    const states: boolean[] = [];
    playback.subscribe((s) => states.push(s.waiting));
    playback.fps = 10;
    playback.play();
    const start = performance.now();
    tickAt(start + 101);
    expect(shown).toEqual([]);
    expect(states.at(-1)).toBe(true);
  });
  it('blends between frames when interpolating', async () => {
    const { store, playback, blends } = setup(3);
    await store.prefetchFrom(0, true);
    playback.interpolate = true;
    playback.fps = 10;
    playback.play();
    const start = performance.now();
    tickAt(start + 50);
    expect(blends.at(-1)).toBeCloseTo(0.5, 1);
  });
  it('steps and seeks, wrapping around', async () => {
    const { playback, shown } = setup(4);
    await playback.step(-1);
    expect(shown).toEqual([3]);
    await playback.seek(99);
    expect(shown).toEqual([3, 3]);
    await playback.step(1);
    expect(shown.at(-1)).toBe(0);
  });
  it('pauses and reports a frame that cannot be fetched, playing or seeking', async () => {
    const gone = new ApiError(404, 'not_found', 'plot not found');
    const { store, playback, shown, failures } = setup(4, async (f) => { if (f > 0) throw gone; return frameData(f); });
    await store.get(0);
    playback.fps = 10;
    playback.play();
    tickAt(performance.now() + 101);
    await Promise.resolve(); await Promise.resolve();
    expect(playback.playing).toBe(false);
    expect(failures).toEqual([gone]);
    await playback.seek(2);
    expect(failures).toEqual([gone, gone]);
    expect(shown).toEqual([]);
  });
});
