// Projects world positions to screen pixels with a column-major view-projection matrix
// (three.js Matrix4.elements). Points behind the camera or hidden get NaN.

export interface ScreenPoints {
  /** x, y in CSS pixels (origin top-left), interleaved; NaN when not on screen */
  xy: Float32Array;
  /** NDC depth in [-1, 1], smaller is nearer */
  depth: Float32Array;
}

export function projectToScreen(
  positions: Float32Array,
  viewProjection: ArrayLike<number>,
  width: number,
  height: number,
  visible?: Uint8Array,
): ScreenPoints {
  const n = positions.length / 3;
  const xy = new Float32Array(n * 2);
  const depth = new Float32Array(n);
  const m = viewProjection;
  const halfW = width / 2;
  const halfH = height / 2;
  for (let i = 0; i < n; i++) {
    const x = positions[3 * i], y = positions[3 * i + 1], z = positions[3 * i + 2];
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    if (w <= 0 || (visible && !visible[i])) {
      xy[2 * i] = NaN;
      xy[2 * i + 1] = NaN;
      depth[i] = NaN;
      continue;
    }
    const nx = (m[0] * x + m[4] * y + m[8] * z + m[12]) / w;
    const ny = (m[1] * x + m[5] * y + m[9] * z + m[13]) / w;
    depth[i] = (m[2] * x + m[6] * y + m[10] * z + m[14]) / w;
    xy[2 * i] = (nx + 1) * halfW;
    xy[2 * i + 1] = (1 - ny) * halfH;
  }
  return { xy, depth };
}
