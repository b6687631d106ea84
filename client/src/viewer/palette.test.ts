import { describe, expect, it } from 'vitest';
import { categoricalColor, hexToRgba, rgbaToHex, schemeColor } from '@wpv/schema';

const dist = (a: { r: number; g: number; b: number }, b: typeof a) => Math.hypot(a.r - b.r, a.g - b.g, a.b - b.b);

describe('palette', () => {
  it('keeps 100 categorical colours pairwise distinct', () => {
    const colours = Array.from({ length: 100 }, (_, i) => categoricalColor(i));
    let min = Infinity;
    for (let i = 0; i < colours.length; i++) for (let j = i + 1; j < colours.length; j++) min = Math.min(min, dist(colours[i], colours[j]));
    expect(min).toBeGreaterThan(25);
    for (const c of colours) for (const v of [c.r, c.g, c.b]) expect(v).toBeGreaterThanOrEqual(0), expect(v).toBeLessThanOrEqual(255);
  });
  it('round-trips hex with alpha', () => {
    expect(rgbaToHex({ r: 255, g: 0, b: 16, a: 128 })).toBe('#ff001080');
    expect(hexToRgba('#ff001080')).toEqual({ r: 255, g: 0, b: 16, a: 128 });
    expect(hexToRgba('00ff00')).toEqual({ r: 0, g: 255, b: 0, a: 255 });
    expect(() => hexToRgba('red')).toThrow(/not a colour/);
  });
  it('spreads the rainbow scheme from red to magenta', () => {
    expect(schemeColor('rainbow', 0, 5)).toMatchObject({ r: 236, g: 19, b: 19 });
    expect(dist(schemeColor('rainbow', 0, 5), schemeColor('rainbow', 4, 5))).toBeGreaterThan(100);
  });
});
