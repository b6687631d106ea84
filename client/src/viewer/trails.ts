// Trails: where each followed label is in every frame, and what of that is drawn at the frame
// on screen (the last `length` steps, older steps fading, optional marks at each frame's
// position, and the head where the label is now).
import { matchByLabel } from '@wpv/schema';

/** The positions and labels of one frame: all a trail needs of it. */
export interface TrailFrame {
  positions: Float32Array;
  labels: readonly string[];
}

export interface TrailSettings {
  /** frames drawn behind the head */
  length: number;
  /** line width in screen pixels */
  width: number;
  /** a dot at each frame's position along the path */
  marks: boolean;
}

export const DEFAULT_TRAIL_SETTINGS: TrailSettings = { length: 20, width: 3, marks: true };

export type Rgb = [number, number, number];

/**
 * Trail colours: saturated and light, so that they stand out from the dark background and
 * from the (usually mid-tone) cluster colours; trail t takes colour t modulo the list.
 */
export const TRAIL_COLORS: readonly Rgb[] = [
  [255, 230, 0], [255, 64, 255], [0, 255, 255], [255, 140, 0], [160, 255, 60], [255, 255, 255], [255, 90, 90], [120, 160, 255],
];

export const trailColor = (t: number): Rgb => TRAIL_COLORS[t % TRAIL_COLORS.length]!;

/** A trail's share of its colour at the oldest frame drawn (1 at the head). */
const OLDEST_WEIGHT = 0.2;

/** The most labels followed at once: more would not be told apart on screen, and would slow every frame switch. */
export const MAX_TRAILS = 100;

/** The labels to follow from a request (trimmed, without blanks or repeats, at most MAX_TRAILS) and how many were left out. */
export function trailLabels(wanted: readonly string[]): { labels: string[]; leftOut: number } {
  const unique = [...new Set(wanted.map((l) => l.trim()).filter(Boolean))];
  return { labels: unique.slice(0, MAX_TRAILS), leftOut: Math.max(0, unique.length - MAX_TRAILS) };
}

/** Empty paths (xyz per frame, NaN until filled) for `labels` over `frameCount` frames. */
export function emptyPaths(labels: readonly string[], frameCount: number): Float32Array[] {
  return labels.map(() => new Float32Array(frameCount * 3).fill(NaN));
}

/** Writes frame `f`'s positions of the labels into their paths. */
export function addFrameToPaths(paths: Float32Array[], labels: readonly string[], f: number, frame: TrailFrame): void {
  matchByLabel(labels, frame.labels).forEach((j, t) => {
    if (j >= 0) paths[t]!.set(frame.positions.subarray(3 * j, 3 * j + 3), 3 * f);
  });
}

/** One path per label over all frames, NaN where the label is absent from a frame. */
export function computePaths(frames: readonly TrailFrame[], labels: readonly string[]): Float32Array[] {
  const paths = emptyPaths(labels, frames.length);
  frames.forEach((frame, f) => addFrameToPaths(paths, labels, f, frame));
  return paths;
}

/** The labels that no frame has (their paths stayed empty). */
export function missingLabels(paths: readonly Float32Array[], labels: readonly string[]): string[] {
  return labels.filter((_, t) => paths[t]!.every(Number.isNaN));
}

export interface TrailHead {
  trail: number;
  label: string;
  xyz: [number, number, number];
  color: Rgb;
}

/** What the renderer draws of the trails at one frame; colours are rgb in 0..1. */
export interface TrailScene {
  /** two xyz end points per segment */
  segments: Float32Array;
  /** rgb per segment end point, faded towards the background with the frame's age */
  segmentColors: Float32Array;
  /** xyz per frame mark (empty when marks are off) */
  marks: Float32Array;
  markColors: Float32Array;
  /** where each trail's label is in the frame shown (absent labels have no head) */
  heads: TrailHead[];
}

/** Playback gliding from the frame shown towards frame `to`: `t` of the way (0–1). */
export interface TrailBlend {
  to: number;
  t: number;
}

/**
 * The trails as drawn at frame `upTo`: segments between consecutive frames of the last
 * `length` steps (a frame without the label breaks the line), the colour of frame g mixed
 * with the background by its age, so the oldest steps fade out. While playback glides towards
 * the next frame (`blend`), each head sits where its point is drawn, `t` of the way there, and
 * the line grows to it from the frame shown (a loop back to the first frame moves the head
 * without a line across the plot).
 */
export function trailScene(paths: readonly Float32Array[], labels: readonly string[], upTo: number, settings: TrailSettings, background: Rgb,
  blend?: TrailBlend): TrailScene {
  const first = Math.max(0, upTo - settings.length);
  const frames = paths.length ? Math.min(upTo, paths[0]!.length / 3 - 1) : -1; // the last frame drawn
  const present = (path: Float32Array, g: number) => g >= 0 && 3 * g < path.length && !Number.isNaN(path[3 * g]!);
  // The shader mixes a point's two positions when the label is in both frames (else it stays put): so do the heads.
  const gliding = (path: Float32Array) => !!blend && blend.t > 0 && frames === upTo && present(path, upTo) && present(path, blend.to);
  const growing = (path: Float32Array) => gliding(path) && blend!.to === upTo + 1;
  // Counted first, then written: this runs on every frame switch.
  let segmentCount = 0, markCount = 0;
  for (const path of paths)
    for (let g = first; g <= frames; g++) {
      if (!present(path, g)) continue;
      markCount++;
      if (g < upTo && g + 1 <= frames && present(path, g + 1)) segmentCount++;
    }
  for (const path of paths) if (growing(path)) segmentCount++;
  const segments = new Float32Array(6 * segmentCount), segmentColors = new Float32Array(6 * segmentCount);
  const marks = new Float32Array(settings.marks ? 3 * markCount : 0), markColors = new Float32Array(marks.length);
  const heads: TrailHead[] = [];
  const bg = background.map((c) => c / 255);
  let s = 0, m = 0;
  paths.forEach((path, t) => {
    const color = trailColor(t);
    /** frame g's colour, mixed with the background by its age, into `out` at `at` */
    const shade = (g: number, out: Float32Array, at: number) => {
      const w = settings.length > 0 ? 1 - (1 - OLDEST_WEIGHT) * ((upTo - g) / settings.length) : 1;
      for (let k = 0; k < 3; k++) out[at + k] = bg[k]! + (color[k]! / 255 - bg[k]!) * w;
    };
    for (let g = first; g <= frames; g++) {
      if (!present(path, g)) continue;
      if (settings.marks) {
        marks.set(path.subarray(3 * g, 3 * g + 3), 3 * m);
        shade(g, markColors, 3 * m++);
      }
      if (g < upTo && g + 1 <= frames && present(path, g + 1)) {
        segments.set(path.subarray(3 * g, 3 * g + 6), 6 * s);
        shade(g, segmentColors, 6 * s);
        shade(g + 1, segmentColors, 6 * s++ + 3);
      }
    }
    if (frames !== upTo || !present(path, upTo)) return;
    const at = (k: number) => path[3 * upTo + k]!;
    const xyz: [number, number, number] = gliding(path)
      ? [0, 1, 2].map((k) => at(k) + (path[3 * blend!.to + k]! - at(k)) * blend!.t) as [number, number, number]
      : [at(0), at(1), at(2)];
    if (growing(path)) {
      segments.set([at(0), at(1), at(2), ...xyz], 6 * s);
      shade(upTo, segmentColors, 6 * s);
      shade(upTo, segmentColors, 6 * s++ + 3);
    }
    heads.push({ trail: t, label: labels[t]!, xyz, color });
  });
  return { segments, segmentColors, marks, markColors, heads };
}
