// Categorical colours that stay distinguishable beyond 20 clusters: a hand-picked
// first dozen, then hues spaced by the golden angle in OKLCH with alternating
// lightness, so neighbouring keys never get near-identical colours.
import type { Rgba } from './index.ts';

const FIRST: ReadonlyArray<[number, number, number]> = [
  [31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75],
  [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207], [0, 0, 142], [255, 187, 120],
];

export function categoricalColor(index: number): Rgba {
  if (index < FIRST.length) {
    const [r, g, b] = FIRST[index]!;
    return { r, g, b, a: 255 };
  }
  const n = index - FIRST.length;
  const hue = (n * 137.50776405) % 360;
  const lightness = [0.62, 0.78, 0.5][n % 3]!;
  const chroma = [0.15, 0.12, 0.13][n % 3]!;
  return { ...oklchToSrgb(lightness, chroma, hue), a: 255 };
}

function oklchToSrgb(l: number, c: number, hDeg: number): { r: number; g: number; b: number } {
  const h = (hDeg * Math.PI) / 180;
  const a = c * Math.cos(h);
  const b = c * Math.sin(h);
  const l_ = (l + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m_ = (l - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s_ = (l - 0.0894841775 * a - 1.291485548 * b) ** 3;
  const linear = [
    4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
    -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
    -0.0041960863 * l_ - 0.7034186147 * m_ + 1.707614701 * s_,
  ];
  const [r, g, bl] = linear.map((v) => {
    const x = Math.min(1, Math.max(0, v));
    const srgb = x <= 0.0031308 ? 12.92 * x : 1.055 * x ** (1 / 2.4) - 0.055;
    return Math.round(srgb * 255);
  });
  return { r: r!, g: g!, b: bl! };
}
