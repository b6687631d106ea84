import { describe, expect, it } from 'vitest';
import { ScreenGrid, pointInPolygon } from './pickIndex';
import { projectToScreen } from './projection';

// Identity view-projection: NDC = world xy, so world (0,0) is the centre of a 200×100 screen.
const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function grid(positions: number[], visible?: Uint8Array) {
  const screen = projectToScreen(new Float32Array(positions), IDENTITY, 200, 100, visible);
  return { screen, grid: new ScreenGrid(screen, 200, 100, 16) };
}

describe('projectToScreen', () => {
  it('maps NDC to pixels with y down and hides points behind the camera', () => {
    const persp = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0]; // w = -z
    const { xy } = projectToScreen(new Float32Array([0, 0, -1, 1, 1, -1, 0, 0, 1]), persp, 200, 100);
    expect([xy[0], xy[1]]).toEqual([100, 50]);
    expect([xy[2], xy[3]]).toEqual([200, 0]);
    expect(Number.isNaN(xy[4])).toBe(true);
  });
});

describe('ScreenGrid.pick', () => {
  it('finds the point under the cursor within its radius and prefers the nearer one', () => {
    const { grid: g } = grid([0, 0, 0.5, 0, 0, -0.5, 0.5, 0.5, 0]);
    expect(g.pick(100, 50, () => 3, 3)).toBe(1); // both at the centre: the smaller depth wins
    expect(g.pick(152, 25, () => 3, 3)).toBe(2);
    expect(g.pick(160, 25, () => 3, 3)).toBe(-1);
    expect(g.pick(158, 25, () => 10, 10)).toBe(2);
  });
  it('ignores hidden points', () => {
    const { grid: g } = grid([0, 0, 0, 0, 0, 0.1], new Uint8Array([0, 1]));
    expect(g.pick(100, 50, () => 2, 2)).toBe(1);
  });
  it('agrees with a brute-force scan on random points', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const pos = Array.from({ length: 3000 }, rnd);
    const { screen, grid: g } = grid(pos);
    for (let q = 0; q < 200; q++) {
      const x = (rnd() + 1) * 100, y = (rnd() + 1) * 50;
      let brute = -1, bd = Infinity;
      for (let i = 0; i < 1000; i++) {
        const dx = screen.xy[2 * i] - x, dy = screen.xy[2 * i + 1] - y;
        if (dx * dx + dy * dy <= 16 && screen.depth[i] < bd) { brute = i; bd = screen.depth[i]; }
      }
      expect(g.pick(x, y, () => 4, 4)).toBe(brute);
    }
  });
});

describe('selection', () => {
  it('selects by rectangle and by lasso', () => {
    const { grid: g } = grid([-0.5, 0, 0, 0, 0, 0, 0.5, 0, 0, 0, 0.9, 0]);
    expect(g.inRect(90, 40, 160, 60)).toEqual([1, 2]);
    expect(g.inRect(160, 60, 40, 40)).toEqual([0, 1, 2]);
    expect(g.inPolygon([[60, 60], [100, 0], [140, 60]])).toEqual([1, 3]);
    expect(g.inPolygon([[0, 0], [200, 0], [200, 100], [0, 100]])).toEqual([0, 1, 2, 3]);
  });
  it('pointInPolygon handles concave shapes', () => {
    const u: [number, number][] = [[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3]];
    expect(pointInPolygon(0.5, 2, u)).toBe(true);
    expect(pointInPolygon(1.5, 2, u)).toBe(false);
    expect(pointInPolygon(1.5, 0.5, u)).toBe(true);
  });
});
