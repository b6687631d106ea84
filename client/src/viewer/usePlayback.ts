// Time-series playback: each frame switch puts the frame on screen, moves the selection and the
// search hits onto the same labelled points, redraws the trails and recounts the clusters.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Plot } from '@wpv/schema';
import { countByCluster } from './clusterStyles';
import { Playback } from './playback';
import type { Scene } from './scene';
import { followLabels } from './selection';
import { blendTargets, type FrameData, type FrameStore } from './timeSeries';
import type { TrailBlend } from './trails';

export interface FrameFollowers {
  selection: readonly number[];
  matches: readonly number[];
  /** the selection and the hits moved onto the frame about to be shown (its look is updated already) */
  followed(selection: number[], matches: number[]): void;
  /** the trails, drawn up to a frame, `blend` of the way to the next while playback glides */
  drawTrails(frame: number, blend?: TrailBlend): void;
  /** the frame changed (the link follows) */
  moved(): void;
  /** a frame could not be fetched (playback has paused) */
  failed(error: unknown): void;
}

export interface FramePlayback {
  playback: Playback | null;
  /** cluster sizes in the frame on screen (a time series' cluster table sums all frames) */
  frameCounts: Map<number, number> | null;
}

export const highlightSet = (selection: readonly number[], matches: readonly number[]): Set<number> =>
  new Set([...selection, ...matches]);

export function usePlayback(scene: Scene, plot: Plot | null, store: FrameStore | null, followers: FrameFollowers): FramePlayback {
  const [playback, setPlayback] = useState<Playback | null>(null);
  const [frameCounts, setFrameCounts] = useState<Map<number, number> | null>(null);
  const countsTimer = useRef<number | undefined>(undefined);
  /** the frames playback glides between (null: it does not) */
  const glide = useRef<{ from: number; to: number } | null>(null);
  const on = useRef(followers);
  useEffect(() => { on.current = followers; });

  /** Moves the selection and search hits onto the same labelled points of the frame about to be shown. */
  const follow = useCallback((index: number, labels: string[]) => {
    const from = scene.frame;
    if (!from?.labels || from.index === index) return;
    const { selection: current, matches } = on.current;
    const onFrame = scene.selectionFrame === from.index;
    const selection = onFrame ? followLabels(current, from.labels, labels) : current;
    if (onFrame) scene.selectionFrame = index;
    const found = followLabels(matches, from.labels, labels);
    if (selection === current && found === matches) return;
    // This frame's attributes are built with them, before React renders the new state.
    scene.wanted = { ...scene.wanted, highlighted: highlightSet(selection, found) };
    on.current.followed([...selection], [...found]);
  }, [scene]);

  /** Puts a time-series frame on screen: the work timed as "main-thread ms per frame switch". */
  const show = useCallback((index: number, data: FrameData, next?: { frame: number; data: FrameData }) => {
    const start = performance.now();
    if (!scene.renderer || !plot) return;
    follow(index, data.labels);
    glide.current = next ? { from: index, to: next.frame } : null;
    scene.show({ index, positions: data.positions, clusters: data.clusters, labels: data.labels }, plot.bbox,
      next && (() => blendTargets(data, next.data)));
    scene.renderer.setEdges(data.edges);
    // Counted once playback rests on a frame, not on every frame it passes.
    clearTimeout(countsTimer.current);
    countsTimer.current = window.setTimeout(() => setFrameCounts(countByCluster(data.clusters)), 150);
    on.current.drawTrails(index);
    on.current.moved();
    performance.measure('wpv:frame-switch', { start, end: performance.now() });
  }, [scene, plot, follow]);
  const showLatest = useRef(show);
  useEffect(() => { showLatest.current = show; });

  useEffect(() => {
    if (!store) return;
    const setBlend = (t: number) => {
      scene.renderer?.setBlend(t);
      // The trails' heads glide with the points (t = 0 is the frame itself, drawn on the switch).
      if (glide.current && t > 0) on.current.drawTrails(glide.current.from, { to: glide.current.to, t });
    };
    const p = new Playback(store, { show: (f, d, n) => showLatest.current(f, d, n), setBlend, failed: (e) => on.current.failed(e) }, scene.frame?.index ?? 0);
    setPlayback(p);
    if (scene.frame) setFrameCounts(countByCluster(scene.frame.clusters));
    return () => {
      p.dispose();
      clearTimeout(countsTimer.current);
    };
  }, [store, scene]);

  return { playback, frameCounts };
}
