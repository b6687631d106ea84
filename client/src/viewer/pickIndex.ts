// Hover picking without scanning all points per mouse move: points are projected once per
// camera pose into a uniform screen-space grid (counting sort into flat typed arrays); a
// query then looks only at the cells within the pick radius of the cursor.
import type { ScreenPoints } from './projection';

export class ScreenGrid {
  private readonly cols: number;
  private readonly rows: number;
  /** cellStart[c]..cellStart[c+1] index into items */
  private readonly cellStart: Uint32Array;
  private readonly items: Uint32Array;

  constructor(
    private readonly screen: ScreenPoints,
    readonly width: number,
    readonly height: number,
    private readonly cellSize = 16,
  ) {
    this.cols = Math.max(1, Math.ceil(width / cellSize));
    this.rows = Math.max(1, Math.ceil(height / cellSize));
    const { xy } = screen;
    const n = xy.length / 2;
    const cellOf = new Int32Array(n);
    const counts = new Uint32Array(this.cols * this.rows + 1);
    for (let i = 0; i < n; i++) {
      const c = this.cellAt(xy[2 * i], xy[2 * i + 1]);
      cellOf[i] = c;
      if (c >= 0) counts[c + 1]++;
    }
    for (let c = 1; c < counts.length; c++) counts[c] += counts[c - 1];
    this.cellStart = counts;
    this.items = new Uint32Array(counts[counts.length - 1]);
    const fill = counts.slice(0, -1);
    for (let i = 0; i < n; i++) if (cellOf[i] >= 0) this.items[fill[cellOf[i]]++] = i;
  }

  private cellAt(x: number, y: number): number {
    if (!(x >= 0 && x < this.width && y >= 0 && y < this.height)) return -1; // also rejects NaN
    return Math.floor(y / this.cellSize) * this.cols + Math.floor(x / this.cellSize);
  }

  /**
   * The point under (x, y): among points within `radius(i)` pixels (their drawn half-size),
   * the nearest to the camera; -1 when none.
   */
  pick(x: number, y: number, radius: (i: number) => number, maxRadius: number): number {
    const { xy, depth } = this.screen;
    const c0 = Math.max(0, Math.floor((x - maxRadius) / this.cellSize));
    const c1 = Math.min(this.cols - 1, Math.floor((x + maxRadius) / this.cellSize));
    const r0 = Math.max(0, Math.floor((y - maxRadius) / this.cellSize));
    const r1 = Math.min(this.rows - 1, Math.floor((y + maxRadius) / this.cellSize));
    let best = -1;
    let bestDepth = Infinity;
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const cell = r * this.cols + c;
        for (let k = this.cellStart[cell]; k < this.cellStart[cell + 1]; k++) {
          const i = this.items[k];
          const dx = xy[2 * i] - x, dy = xy[2 * i + 1] - y;
          const rad = radius(i);
          if (dx * dx + dy * dy <= rad * rad && depth[i] < bestDepth) {
            best = i;
            bestDepth = depth[i];
          }
        }
      }
    }
    return best;
  }

  /** Indices of all on-screen points inside the rectangle (any corner order). */
  inRect(x0: number, y0: number, x1: number, y1: number): number[] {
    const [ax, bx] = x0 < x1 ? [x0, x1] : [x1, x0];
    const [ay, by] = y0 < y1 ? [y0, y1] : [y1, y0];
    return this.collect(ax, ay, bx, by, (px, py) => px >= ax && px <= bx && py >= ay && py <= by);
  }

  /** Indices of all on-screen points inside a polygon given as [x, y] vertices. */
  inPolygon(polygon: [number, number][]): number[] {
    if (polygon.length < 3) return [];
    const xs = polygon.map((p) => p[0]), ys = polygon.map((p) => p[1]);
    return this.collect(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), (px, py) => pointInPolygon(px, py, polygon));
  }

  private collect(ax: number, ay: number, bx: number, by: number, inside: (x: number, y: number) => boolean): number[] {
    const { xy } = this.screen;
    const out: number[] = [];
    const c0 = Math.max(0, Math.floor(ax / this.cellSize)), c1 = Math.min(this.cols - 1, Math.floor(bx / this.cellSize));
    const r0 = Math.max(0, Math.floor(ay / this.cellSize)), r1 = Math.min(this.rows - 1, Math.floor(by / this.cellSize));
    for (let r = r0; r <= r1; r++)
      for (let c = c0; c <= c1; c++) {
        const cell = r * this.cols + c;
        for (let k = this.cellStart[cell]; k < this.cellStart[cell + 1]; k++) {
          const i = this.items[k];
          if (inside(xy[2 * i], xy[2 * i + 1])) out.push(i);
        }
      }
    return out.sort((a, b) => a - b);
  }
}

/** Even-odd rule. */
export function pointInPolygon(x: number, y: number, polygon: [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i], [xj, yj] = polygon[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
