// Metadata columns in the viewer: a column's values in a frame (a typed array from the API),
// the colours and legend of colouring by it, and a point's values for the tooltip.
import { categoricalColor, columnText, type PlotColumn, type Rgba } from '@wpv/schema';
import type { ClusterStyle } from './clusterStyles';

export type ColumnData = Uint16Array | Uint32Array | Float32Array;

/** A colour scale's legend rows, in the shape of the cluster legend's (screenshots draw both alike). */
export type LegendRow = ClusterStyle;

export const MISSING: Rgba = { r: 150, g: 150, b: 150, a: 255 };
/** Viridis at five stops (from its 10 % point: the darkest purple vanishes on the dark canvas): perceptually even, readable in grey and by most colour-blind readers. */
const VIRIDIS: readonly [number, number, number][] = [[72, 40, 120], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
/** Bins of a number column's legend. */
export const NUMBER_BINS = 5;

/** What the viewer says of columns a link asks for that the plot lacks: each name once, quoted (a link's colorby and labelby may name the same one). */
export function missingColumnsText(names: readonly string[]): string {
  const quoted = [...new Set(names)].map((n) => `“${n}”`);
  const list = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}` : quoted[0];
  return `This plot has no column${quoted.length > 1 ? 's' : ''} ${list}: the points keep their own colours and labels.`;
}

/** The continuous scale at t in [0, 1]. */
export function numberColor(t: number): Rgba {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [VIRIDIS[i]!, VIRIDIS[i + 1]!];
  const mix = (k: number) => Math.round(a[k]! + (b[k]! - a[k]!) * f);
  return { r: mix(0), g: mix(1), b: mix(2), a: 255 };
}

/** Where a number sits on the column's range, 0–1 (the middle when the range is one value). */
const position = (column: PlotColumn, v: number) =>
  column.max === undefined || column.min === undefined || column.max === column.min ? 0.5 : (v - column.min) / (column.max - column.min);

/** RGBA per point (4 bytes each): a category's palette colour, or the number's place on the scale; grey when missing. */
export function columnColors(column: PlotColumn, data: ColumnData): Uint8Array {
  const out = new Uint8Array(4 * data.length);
  const palette = column.kind === 'category' ? (column.categories ?? []).map((_, code) => categoricalColor(code)) : [];
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    const c = column.kind === 'category' ? palette[v] ?? MISSING : Number.isNaN(v) ? MISSING : numberColor(position(column, v));
    out.set([c.r, c.g, c.b, c.a], 4 * i);
  }
  return out;
}

const row = (key: number, label: string, color: Rgba, count: number): LegendRow =>
  ({ key, label, color, count, visible: true, shape: 0, size: 1, plain: true });

/**
 * The legend of colouring by a column in this frame: a category per row with its point count
 * (largest first; '' reads "(none)"), or a number column's range in NUMBER_BINS equal bins
 * coloured at their middles, plus "(none)" for missing values.
 */
export function columnLegend(column: PlotColumn, data: ColumnData): LegendRow[] {
  if (column.kind === 'category') {
    const counts = new Uint32Array(column.categories?.length ?? 0);
    for (let i = 0; i < data.length; i++) counts[data[i]!]!++;
    return (column.categories ?? [])
      .map((text, code) => row(code, text === '' ? '(none)' : text, categoricalColor(code), counts[code]!))
      .filter((r) => r.count > 0)
      .sort((a, b) => b.count - a.count || a.key - b.key);
  }
  const { min = 0, max = 0 } = column;
  const counts = new Uint32Array(NUMBER_BINS);
  let missing = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (Number.isNaN(v)) missing++;
    else counts[Math.min(NUMBER_BINS - 1, Math.floor(position(column, v) * NUMBER_BINS))]!++;
  }
  const width = (max - min) / NUMBER_BINS;
  const rows = Array.from({ length: max === min ? 1 : NUMBER_BINS }, (_, b) =>
    row(b, max === min ? format(min) : `${format(min + b * width)} – ${format(min + (b + 1) * width)}`, numberColor((b + 0.5) / NUMBER_BINS), max === min ? counts[2]! : counts[b]!),
  );
  return [...rows, ...(missing ? [row(NUMBER_BINS, '(none)', MISSING, missing)] : [])];
}

const format = (v: number) => Number(v.toPrecision(3)).toLocaleString('en');

/** A point's value of every column, for the tooltip and the selection list. */
export function pointValues(columns: readonly PlotColumn[], data: readonly (ColumnData | undefined)[], i: number): [string, string][] {
  return columns.flatMap((c, k) => {
    const d = data[k];
    return d && i < d.length ? [[c.name, columnText(c, d, i)] as [string, string]] : [];
  });
}
