// How far the camera stands so that the plot's points fill the canvas when it opens. The
// bounding sphere of the box, used before, left a flat or round cloud on ~40 % of the canvas;
// fitting the points themselves is one O(N) pass, done only on a reset.

/**
 * Distance from `center`, looking down -z, at which every point projects inside `margin` of a
 * perspective view with vertical field of view `fovDegrees`: a point at depth offset z and
 * offsets x, y needs d ≥ z + max(|x| / tanH, |y| / tanV).
 */
export function perspectiveFitDistance(positions: Float32Array, center: readonly number[], fovDegrees: number, aspect: number, margin = 0.9): number {
  const tanV = Math.tan((fovDegrees * Math.PI) / 360) * margin;
  const tanH = tanV * aspect;
  const [cx, cy, cz] = center as [number, number, number];
  let distance = 0, nearest = 0;
  for (let i = 0; i < positions.length; i += 3) {
    const x = Math.abs(positions[i]! - cx), y = Math.abs(positions[i + 1]! - cy), z = positions[i + 2]! - cz;
    const needed = z + Math.max(x / tanH, y / tanV);
    if (needed > distance) distance = needed;
    if (z > nearest) nearest = z;
  }
  // Stand in front of the nearest point, and never at the centre itself (a single point).
  return Math.max(distance, nearest * 1.01, 1e-6);
}

/** Zoom of an orthographic view whose frustum is ±radius·aspect by ±radius, fitting the points' x–y extent. */
export function orthographicFitZoom(positions: Float32Array, center: readonly number[], radius: number, aspect: number, margin = 0.9): number {
  let hx = 0, hy = 0;
  for (let i = 0; i < positions.length; i += 3) {
    hx = Math.max(hx, Math.abs(positions[i]! - center[0]!));
    hy = Math.max(hy, Math.abs(positions[i + 1]! - center[1]!));
  }
  const zoom = Math.min(hx > 0 ? (radius * aspect) / hx : Infinity, hy > 0 ? radius / hy : Infinity) * margin;
  return Number.isFinite(zoom) ? zoom : 1;
}
