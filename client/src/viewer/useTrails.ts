// The trails an analyst follows through a time series: which labels, their paths loaded from
// every frame through playback's frame store (the plot's one gate to its frames: a frame in
// memory or in flight is not asked for again, and after a final failure none is), and drawing them
// at the frame on screen. The page calls `drawAt` on every frame switch, and on every step of
// playback's glide between frames (the heads follow the points).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PlotRenderer } from './renderer';
import type { FrameStore } from './timeSeries';
import {
  DEFAULT_TRAIL_SETTINGS, addFrameToPaths, emptyPaths, missingLabels, trailLabels, trailScene,
  type Rgb, type TrailBlend, type TrailHead, type TrailSettings,
} from './trails';

/** The canvas's clear colour, which old trail steps fade towards. */
export const TRAIL_BACKGROUND: Rgb = [0x11, 0x14, 0x18];
/** Frames fetched at once while loading paths. */
const CONCURRENCY = 4;

/**
 * Where the followed labels are in the frame shown, for their name tags: a store the tags
 * subscribe to, so that a frame switch re-renders the tags and not the page.
 */
export class TrailHeads {
  private value: TrailHead[] = [];
  private readonly listeners = new Set<() => void>();
  readonly get = (): TrailHead[] => this.value;
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  set(value: TrailHead[]): void {
    if (!value.length && !this.value.length) return;
    this.value = value;
    for (const l of this.listeners) l();
  }
}

export interface TrailsController {
  /** the labels followed (empty: no trails) */
  labels: string[];
  settings: TrailSettings;
  /** "loading frames for trails: 12/570" while loading, else '' */
  progress: string;
  /** followed labels that no frame has */
  missing: string[];
  /** labels asked for beyond MAX_TRAILS, not followed */
  leftOut: number;
  heads: TrailHeads;
  follow(labels: string[]): void;
  clear(): void;
  configure(patch: Partial<TrailSettings>): void;
  /** Draws the trails as they are at `frame` (called on every frame switch), `blend` of the way to the next. */
  drawAt(frame: number, blend?: TrailBlend): void;
}

export function useTrails({ frameCount, store, renderer, currentFrame, onFollow, onError }: {
  frameCount: number;
  /** the time series' frames, shared with playback (trails are followed once it is ready) */
  store: FrameStore | null;
  renderer: () => PlotRenderer | null;
  currentFrame: () => number;
  /** the labels followed changed (the link follows) */
  onFollow: (labels: string[]) => void;
  onError: (e: unknown) => void;
}): TrailsController {
  const [labels, setLabels] = useState<string[]>([]);
  const [settings, setSettings] = useState<TrailSettings>(DEFAULT_TRAIL_SETTINGS);
  const [progress, setProgress] = useState('');
  const [missing, setMissing] = useState<string[]>([]);
  const [leftOut, setLeftOut] = useState(0);
  const [heads] = useState(() => new TrailHeads());
  // Read on frame switches, outside React's render.
  const loaded = useRef<{ labels: string[]; paths: Float32Array[] } | null>(null);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const loading = useRef<AbortController | null>(null);
  const latest = useRef({ store, renderer, currentFrame, onFollow, onError });
  latest.current = { store, renderer, currentFrame, onFollow, onError };

  const drawAt = useCallback((frame: number, blend?: TrailBlend) => {
    const t = loaded.current;
    if (!t && blend) return; // nothing to glide: no work on each animation frame
    const scene = t ? trailScene(t.paths, t.labels, frame, settingsRef.current, TRAIL_BACKGROUND, blend) : null;
    latest.current.renderer()?.setTrails(scene);
    heads.set(scene?.heads ?? []);
  }, [heads]);

  const clear = useCallback(() => {
    loading.current?.abort();
    loaded.current = null;
    setLabels([]);
    latest.current.onFollow([]);
    setMissing([]);
    setLeftOut(0);
    setProgress('');
    drawAt(latest.current.currentFrame());
  }, [drawAt]);

  const follow = useCallback((wanted: string[]) => {
    const { labels: unique, leftOut: over } = trailLabels(wanted);
    const frames = latest.current.store;
    if (!unique.length || !frames) return clear();
    loading.current?.abort();
    const controller = new AbortController();
    loading.current = controller;
    setLabels(unique);
    latest.current.onFollow(unique);
    setMissing([]);
    setLeftOut(over);
    setProgress(`loading frames for trails: 0/${frameCount}`); // not "following" all of them before it is known which exist
    const paths = emptyPaths(unique, frameCount);
    // Every frame, not only those played so far: a trail shows the whole history.
    let next = 0, done = 0;
    const worker = async () => {
      for (let f = next++; f < frameCount && !controller.signal.aborted; f = next++) {
        addFrameToPaths(paths, unique, f, frames.peek(f) ?? (await frames.get(f)));
        setProgress(`loading frames for trails: ${++done}/${frameCount}`);
      }
    };
    Promise.all(Array.from({ length: CONCURRENCY }, worker)).then(() => {
      if (controller.signal.aborted) return;
      loaded.current = { labels: unique, paths };
      setMissing(missingLabels(paths, unique));
      setProgress('');
      drawAt(latest.current.currentFrame());
    }, (e: unknown) => {
      if (controller.signal.aborted) return;
      clear(); // stops the other workers: no trail is claimed that cannot be drawn
      latest.current.onError(e);
    });
  }, [frameCount, clear, drawAt]);

  const configure = useCallback((patch: Partial<TrailSettings>) => setSettings((s) => ({ ...s, ...patch })), []);

  // Settings apply at once, also while paused.
  useEffect(() => {
    latest.current.renderer()?.setTrailWidth(settings.width);
    drawAt(latest.current.currentFrame());
  }, [settings, drawAt]);
  useEffect(() => () => loading.current?.abort(), []);

  return useMemo(() => ({ labels, settings, progress, missing, leftOut, heads, follow, clear, configure, drawAt }),
    [labels, settings, progress, missing, leftOut, heads, follow, clear, configure, drawAt]);
}
