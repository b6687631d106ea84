// Points of a time series are the same entities from frame to frame when they share a label.
// One rule for the server (a new cluster spans the frames) and the viewer (interpolation,
// trails, a selection that follows its points).

/**
 * For each point of `from`, its index in `to`, or -1: the same index when the label there is
 * the same (an unlabelled point, "", matches only so), else the first point with its label.
 */
export function matchByLabel(from: readonly string[], to: readonly string[]): Int32Array {
  let firstOf: Map<string, number> | undefined; // built only once some point has moved
  const out = new Int32Array(from.length);
  for (let i = 0; i < from.length; i++) {
    const label = from[i];
    if (i < to.length && to[i] === label) out[i] = i;
    else if (label === '') out[i] = -1;
    else out[i] = (firstOf ??= firstIndex(to)).get(label) ?? -1;
  }
  return out;
}

function firstIndex(labels: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let j = labels.length - 1; j >= 0; j--) index.set(labels[j], j);
  return index;
}
