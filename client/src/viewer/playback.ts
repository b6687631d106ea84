// Time-series playback: a requestAnimationFrame clock that switches frames at the chosen
// speed from the prefetched store (never waiting on the network when the store keeps up),
// optionally blending positions between consecutive frames.
import type { FrameData, FrameStore } from './timeSeries';

export interface PlaybackTarget {
  /** Shows `frame`; `next` (the frame after it) is given when interpolation wants a blend target. */
  show(frame: number, data: FrameData, next?: { frame: number; data: FrameData }): void;
  setBlend(t: number): void;
  /** a frame could not be fetched: playback has paused */
  failed(error: unknown): void;
}

export interface PlaybackState {
  frame: number;
  playing: boolean;
  waiting: boolean;
}

export class Playback {
  fps = 5;
  loop = true;
  interpolate = false;
  private state: PlaybackState;
  private raf: number | null = null;
  private frameStart = 0;
  private readonly listeners = new Set<(s: PlaybackState) => void>();

  constructor(private readonly store: FrameStore, private readonly target: PlaybackTarget, frame: number) {
    this.state = { frame, playing: false, waiting: false };
  }

  subscribe(listener: (s: PlaybackState) => void): () => void {
    this.listeners.add(listener);
    listener(this.state);
    return () => this.listeners.delete(listener);
  }

  private emit(patch: Partial<PlaybackState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }

  get frame(): number {
    return this.state.frame;
  }

  get playing(): boolean {
    return this.state.playing;
  }

  private following(frame: number): number | null {
    if (frame + 1 < this.store.count) return frame + 1;
    return this.loop ? 0 : null;
  }

  /** Shows a frame, fetching it first when it is not in memory. */
  async seek(frame: number): Promise<void> {
    const f = Math.max(0, Math.min(this.store.count - 1, frame));
    this.emit({ frame: f });
    void this.store.prefetchFrom(f, this.loop);
    const data = this.store.peek(f) ?? (await this.store.get(f).catch((e: unknown) => this.fail(e)));
    if (!data || this.state.frame !== f) return; // a later seek won
    this.present(f, data);
  }

  private fail(error: unknown): undefined {
    this.pause();
    this.target.failed(error);
  }

  private present(frame: number, data: FrameData): void {
    const nextFrame = this.interpolate ? this.following(frame) : null;
    const next = nextFrame === null ? undefined : this.store.peek(nextFrame);
    this.target.show(frame, data, next && { frame: nextFrame!, data: next });
    this.target.setBlend(0);
  }

  step(delta: number): Promise<void> {
    this.pause();
    return this.seek((this.state.frame + delta + this.store.count) % this.store.count);
  }

  play(): void {
    if (this.state.playing) return;
    this.emit({ playing: true });
    this.frameStart = performance.now();
    void this.store.prefetchFrom(this.state.frame, this.loop);
    this.raf = requestAnimationFrame(this.tick);
  }

  pause(): void {
    if (this.raf !== null) cancelAnimationFrame(this.raf);
    this.raf = null;
    this.emit({ playing: false, waiting: false });
  }

  private readonly tick = (now: number): void => {
    this.raf = requestAnimationFrame(this.tick);
    const duration = 1000 / this.fps;
    const elapsed = now - this.frameStart;
    if (this.interpolate) this.target.setBlend(Math.min(1, elapsed / duration));
    if (elapsed < duration) return;
    const nextFrame = this.following(this.state.frame);
    if (nextFrame === null) return this.pause();
    const data = this.store.peek(nextFrame);
    if (!data) {
      if (!this.state.waiting) {
        this.emit({ waiting: true });
        void this.store.get(nextFrame).catch((e: unknown) => this.fail(e));
      }
      return;
    }
    this.frameStart = now;
    this.emit({ frame: nextFrame, waiting: false });
    this.present(nextFrame, data);
    void this.store.prefetchFrom(nextFrame, this.loop);
  };

  dispose(): void {
    this.pause();
    this.listeners.clear();
  }
}
