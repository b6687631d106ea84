// Time-series frames: a bounded cache that prefetches ahead of the playhead, and matching of
// points across frames by label (for interpolation). Trails are in trails.ts.
import { ApiError, matchByLabel } from '@wpv/schema';

export { matchByLabel }; // the rule the server follows too

export interface FrameData {
  positions: Float32Array;
  clusters: Uint32Array;
  labels: string[];
  /** polylines through point indices */
  edges: number[][];
}

export type FrameFetcher = (frame: number, signal: AbortSignal) => Promise<FrameData>;

/**
 * A failure worth asking again later: the network, or the server busy or failing. Anything else
 * is final (a 404: the plot was deleted or made private since the page opened).
 */
export function isTransient(e: unknown): boolean {
  return e instanceof ApiError && (e.code === 'network' || e.status >= 500 || e.status === 408 || e.status === 429);
}

export class FrameStore {
  private readonly ready = new Map<number, FrameData>();
  private readonly pending = new Map<number, Promise<FrameData>>();
  private readonly abort = new AbortController();
  private playhead = 0;
  /** the final failure that stopped the store: every frame not in memory fails with it, unfetched */
  private failure: unknown = null;

  constructor(
    readonly count: number,
    private readonly fetchFrame: FrameFetcher,
    /** frames kept in memory; at least `ahead` + 2 */
    private readonly capacity = 64,
    /** frames fetched ahead of the playhead */
    readonly ahead = 16,
    private readonly concurrency = 4,
  ) {}

  /** The frame if it is already in memory (playback never waits when this is set). */
  peek(frame: number): FrameData | undefined {
    return this.ready.get(frame);
  }

  get(frame: number): Promise<FrameData> {
    if (frame < 0 || frame >= this.count) return Promise.reject(new RangeError(`no frame ${frame}`));
    const have = this.ready.get(frame);
    if (have) return Promise.resolve(have);
    if (this.failure) return Promise.reject(this.failure);
    let p = this.pending.get(frame);
    if (!p) {
      p = this.fetchFrame(frame, this.abort.signal).then(
        (data) => {
          this.pending.delete(frame);
          this.ready.set(frame, data);
          this.evict();
          return data;
        },
        (e: unknown) => {
          this.pending.delete(frame);
          if (!this.failure && !isTransient(e)) {
            this.failure = e;
            this.abort.abort(); // the frames in flight fail with it too
          }
          throw this.failure ?? e;
        },
      );
      this.pending.set(frame, p);
    }
    return p;
  }

  /** Moves the playhead and fetches the next `ahead` frames (wrapping when looping), a few at a time. */
  async prefetchFrom(frame: number, loop: boolean): Promise<void> {
    this.playhead = frame;
    const wanted: number[] = [];
    for (let k = 0; k <= this.ahead; k++) {
      const f = loop ? (frame + k) % this.count : frame + k;
      if (f < this.count && !this.ready.has(f) && !wanted.includes(f)) wanted.push(f);
    }
    const workers = Array.from({ length: this.concurrency }, async () => {
      for (let f = wanted.shift(); f !== undefined; f = wanted.shift()) {
        if (this.playhead !== frame) return; // the playhead moved: a newer prefetch took over
        await this.get(f).catch(() => undefined); // errors surface when the frame is shown
      }
    });
    await Promise.all(workers);
  }

  private distanceAhead(frame: number): number {
    return (frame - this.playhead + this.count) % this.count;
  }

  /** Drops the frames furthest behind the playhead once over capacity. */
  private evict(): void {
    if (this.ready.size <= this.capacity) return;
    const byDistance = [...this.ready.keys()].sort((a, b) => this.distanceAhead(b) - this.distanceAhead(a));
    for (const f of byDistance.slice(0, this.ready.size - this.capacity)) this.ready.delete(f);
  }

  dispose(): void {
    this.abort.abort();
  }
}

/** Where each point of frame A goes in frame B (matched by label); unmatched points stay put. */
export function blendTargets(a: FrameData, b: FrameData): Float32Array {
  const match = matchByLabel(a.labels, b.labels);
  const out = new Float32Array(a.positions.length);
  for (let i = 0; i < match.length; i++) {
    const src = match[i] >= 0 ? b.positions : a.positions;
    const j = match[i] >= 0 ? match[i] : i;
    out[3 * i] = src[3 * j];
    out[3 * i + 1] = src[3 * j + 1];
    out[3 * i + 2] = src[3 * j + 2];
  }
  return out;
}
