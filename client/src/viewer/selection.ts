// What the selection does across time-series frames: it stays on the same labelled points
// when the frame changes, and it can become a cluster of its own, in every frame.
import { matchByLabel } from '@wpv/schema';

/** A frame's cluster keys and labels, with its index in the time series. */
export interface FrameKeys {
  index: number;
  clusters: Uint32Array;
  labels: readonly string[];
}

/**
 * The selected points of a frame labelled `from`, as indices in a frame labelled `to`, in the
 * same order; points absent there drop out. The array itself when every point keeps its index.
 */
export function followLabels(selection: readonly number[], from: readonly string[], to: readonly string[]): readonly number[] {
  // Frames usually list their points in one order: then the frame switch costs O(selection), not O(points).
  if (from === to || selection.every((i) => i < to.length && to[i] === from[i])) return selection;
  const match = matchByLabel(from, to);
  const next = [...new Set(selection.map((i) => match[i]).filter((j) => j >= 0))];
  return next.length === selection.length && next.every((j, k) => j === selection[k]) ? selection : next;
}

/**
 * Puts cluster `key` on the chosen points of frame `source`, as the server does: on those
 * indices in copies of that frame, and on the points with the same labels in other frames.
 */
export function assignCluster(key: number, points: readonly number[], source: FrameKeys, frames: readonly FrameKeys[]): void {
  for (const frame of frames) {
    const moved = frame.index === source.index ? points : followLabels(points, source.labels, frame.labels);
    for (const j of moved) frame.clusters[j] = key;
  }
}

/** "Selection 1", or the first "Selection n" no cluster is called yet. */
export function nextSelectionName(labels: readonly string[]): string {
  const taken = new Set(labels);
  let n = 1;
  while (taken.has(`Selection ${n}`)) n++;
  return `Selection ${n}`;
}
