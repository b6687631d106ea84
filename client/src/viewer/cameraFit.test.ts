import { describe, expect, test } from 'vitest';
import { orthographicFitZoom, perspectiveFitDistance } from './cameraFit';

/** Largest of |x|, |y| in normalised device units for a camera at distance d on +z looking at the origin. */
function extent(points: number[][], d: number, fov: number, aspect: number) {
  const t = Math.tan((fov * Math.PI) / 360);
  return Math.max(...points.map((p) => Math.max(Math.abs(p[0]!) / (d - p[2]!) / (t * aspect), Math.abs(p[1]!) / (d - p[2]!) / t)));
}
const flat = (points: number[][]) => new Float32Array(points.flat());

/** A seeded cloud: points on a sphere of radius r stretched by `scale`. */
function cloud(n: number, scale: number[]) {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: n }, () => {
    const v = [random(), random(), random()];
    const l = Math.hypot(...v) || 1;
    return v.map((c, k) => (c / l) * scale[k]!);
  });
}

describe('fitting the plot to the canvas', () => {
  test('perspective: the outermost point touches the margin, none falls outside', () => {
    for (const [scale, aspect] of [[[10, 1, 0.1], 1.6], [[1, 10, 0.1], 1.6], [[3, 3, 3], 0.7], [[5, 0.01, 0], 2]] as [number[], number][]) {
      const points = cloud(500, scale);
      const d = perspectiveFitDistance(flat(points), [0, 0, 0], 45, aspect, 0.9);
      const e = extent(points, d, 45, aspect);
      expect(e).toBeLessThanOrEqual(0.9 + 1e-6);
      expect(e).toBeGreaterThan(0.89);
    }
  });

  test('a round cloud on a wide canvas fills its height, where the box\'s bounding sphere left half of it', () => {
    const points = cloud(2000, [1, 1, 1]);
    const sphereDistance = Math.sqrt(3) / Math.sin((45 * Math.PI) / 360); // the box [-1, 1]³
    expect(extent(points, sphereDistance, 45, 1.6)).toBeLessThan(0.6);
    expect(extent(points, perspectiveFitDistance(flat(points), [0, 0, 0], 45, 1.6), 45, 1.6)).toBeGreaterThan(0.89);
  });

  test('one point: the camera stands off it', () => {
    expect(perspectiveFitDistance(new Float32Array([1, 2, 3]), [1, 2, 3], 45, 1)).toBeGreaterThan(0);
  });

  test('orthographic: zoom fits the limiting axis', () => {
    const points = flat([[-4, -1, 0], [4, 1, 0]]);
    const radius = Math.hypot(8, 2) / 2;
    expect(orthographicFitZoom(points, [0, 0, 0], radius, 1, 0.9)).toBeCloseTo((radius / 4) * 0.9, 6);
    expect(orthographicFitZoom(flat([[0, 0, 0]]), [0, 0, 0], 1, 1)).toBe(1);
  });
});
