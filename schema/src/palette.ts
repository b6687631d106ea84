// Colours: a categorical palette that stays distinct past 20 clusters, and RGBA helpers.
// Shared: the server colours undeclared clusters with it, the viewer recolours with it.
import type { Rgba } from './index.ts';

// Tableau-20 style base: the most distinguishable first colours.
const BASE: readonly number[] = [
  0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf,
  0xaec7e8, 0xffbb78, 0x98df8a, 0xff9896, 0xc5b0d5, 0xc49c94, 0xf7b6d2, 0xc7c7c7, 0xdbdb8d, 0x9edae5,
];

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

// Past the base, colours come from farthest-point sampling over an HSL grid: each new
// colour is the candidate furthest (in RGB) from all colours already handed out.
const CANDIDATES: [number, number, number][] = [];
for (let h = 0; h < 360; h += 10)
  for (const s of [0.45, 0.7, 0.95]) for (const l of [0.3, 0.45, 0.6, 0.75]) CANDIDATES.push(hslToRgb(h, s, l));

const chosen: [number, number, number][] = BASE.map((c) => [c >> 16, (c >> 8) & 255, c & 255]);
const nearestChosen = CANDIDATES.map((c) => Math.min(...chosen.map((d) => rgbDistance(c, d))));

function rgbDistance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

function extendPalette(upTo: number): void {
  while (chosen.length <= upTo && chosen.length < BASE.length + CANDIDATES.length) {
    let best = 0;
    for (let k = 1; k < CANDIDATES.length; k++) if (nearestChosen[k] > nearestChosen[best]) best = k;
    const pick = CANDIDATES[best];
    chosen.push(pick);
    for (let k = 0; k < CANDIDATES.length; k++) nearestChosen[k] = Math.min(nearestChosen[k], rgbDistance(CANDIDATES[k], pick));
  }
}

/** Colour i of the categorical scheme; beyond the sampled set (over 450 clusters) colours repeat. */
export function categoricalColor(i: number): Rgba {
  extendPalette(i);
  const [r, g, b] = chosen[i % chosen.length];
  return { r, g, b, a: 255 };
}

export type SchemeName = 'file' | 'categorical' | 'rainbow';

/** Colour for cluster number i of n under a scheme; 'file' keeps the colours from the plot file. */
export function schemeColor(scheme: Exclude<SchemeName, 'file'>, i: number, n: number): Rgba {
  if (scheme === 'categorical') return categoricalColor(i);
  const [r, g, b] = hslToRgb((300 * i) / Math.max(1, n - 1), 0.85, 0.5);
  return { r, g, b, a: 255 };
}

export function rgbaToHex(c: Rgba): string {
  return '#' + [c.r, c.g, c.b, c.a].map((v) => v.toString(16).padStart(2, '0')).join('');
}

export function hexToRgba(hex: string): Rgba {
  const m = /^#?([0-9a-f]{6})([0-9a-f]{2})?$/i.exec(hex.trim());
  if (!m) throw new Error(`not a colour: ${hex}`);
  const v = parseInt(m[1], 16);
  return { r: v >> 16, g: (v >> 8) & 255, b: v & 255, a: m[2] ? parseInt(m[2], 16) : 255 };
}
