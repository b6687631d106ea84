// Points of a time series are the same entities from frame to frame when they share a label.
// One rule for the server (a new cluster spans the frames) and the viewer (interpolation,
// trails, a selection that follows its points).

/**
 * For each point of `from`, the index of the point with the same label in `to` (the first
 * one, when a label repeats), or -1. An unlabelled point ("") matches the point at the same
 * index: without a label, the index is the only identity a point has.
 */
export function matchByLabel(from: readonly string[], to: readonly string[]): Int32Array {
  const index = new Map<string, number>();
  for (let j = to.length - 1; j >= 0; j--) index.set(to[j], j);
  const out = new Int32Array(from.length);
  for (let i = 0; i < from.length; i++) {
    const label = from[i];
    out[i] = label === '' ? (i < to.length && to[i] === '' ? i : -1) : (index.get(label) ?? -1);
  }
  return out;
}
