// The viewer's shareable state and its query-string form (a copied link reopens the view).
import { hexToRgba, rgbaToHex, type DisplaySettings, type Rgba } from '@wpv/schema';
import { MAX_TRAILS, trailLabels } from './trails';

export interface CameraState {
  position: [number, number, number];
  target: [number, number, number];
  up: [number, number, number];
  zoom: number;
}

export interface ClusterOverride {
  color?: Rgba;
  size?: number;
  shape?: number;
}

export interface ViewState {
  camera: CameraState | null;
  mode: '2d' | '3d';
  hidden: number[];
  overrides: Record<number, ClusterOverride>;
  /** screen pixels of a plain point */
  pointSize: number;
  /** screen pixels of a glyph of size 1 */
  glyphSize: number;
  /** false: every cluster draws as plain points */
  glyphs: boolean;
  selection: number[];
  frame: number;
  edges: boolean;
  axes: boolean;
  /** the metadata column colouring the points, by name; null: the clusters' colours */
  colorBy: string | null;
  /** the metadata column labelling the points, by name; null: their labels */
  labelBy: string | null;
  /** a time series' labels whose trails are followed */
  trails: string[];
  /** a time series' playback speed, in frames per second (one of SPEEDS) */
  fps: number;
  /** the plot's tree: its branches drawn */
  tree: boolean;
  /** points coloured by the tree cut into this many clades (treeModel.ts); 0: not, or by `cladeWidth` */
  clades: number;
  /** points coloured by the tree cut so that no clade is wider than this (branch lengths); null: not, or by `clades` */
  cladeWidth: number | null;
  /** clades of that cut drawn collapsed (their points dimmed, a mark for their branches) */
  collapsed: number[];
}

/** the playback speeds offered, in frames per second */
export const SPEEDS = [1, 2, 5, 10, 20, 30];

export const DEFAULT_VIEW: ViewState = {
  camera: null, mode: '3d', hidden: [], overrides: {}, pointSize: 4, glyphSize: 4, glyphs: true, selection: [], frame: 0, edges: true, axes: false,
  colorBy: null, labelBy: null, trails: [], fps: 5, tree: true, clades: 0, cladeWidth: null, collapsed: [],
};

/** Whether the points wear the colours of a cut of the tree, into k clades or at a width. */
export const cladesShown = (s: Pick<ViewState, 'clades' | 'cladeWidth'>): boolean => s.clades > 0 || s.cladeWidth !== null;

/** The most clades a cut may ask for (a palette colour each). */
export const MAX_CLADES = 200;

/** Overrides with `changes` merged in; an undefined field drops that override, an empty one the cluster's entry. */
export function mergeOverrides(overrides: Record<number, ClusterOverride>, changes: Record<number, ClusterOverride>): Record<number, ClusterOverride> {
  const out = { ...overrides };
  for (const [key, change] of Object.entries(changes)) {
    const merged: ClusterOverride = { ...out[Number(key)], ...change };
    for (const k of Object.keys(merged) as (keyof ClusterOverride)[]) if (merged[k] === undefined) delete merged[k];
    if (Object.keys(merged).length) out[Number(key)] = merged; else delete out[Number(key)];
  }
  return out;
}

/**
 * Size in pixels of points and of size-1 glyphs for a plot of `points` points per frame: a
 * few dozen points at the 100,000-point size were specks in an empty canvas; large plots keep
 * small points so that dense clusters stay readable.
 */
export function pointSizeFor(points: number): number {
  if (points <= 1_000) return 8;
  if (points <= 10_000) return 6;
  return DEFAULT_VIEW.pointSize;
}

/** The defaults for a plot of `points` points whose file may set display settings (PlotViz <pointsize>, <glyph>). */
export function viewDefaults(display: DisplaySettings | undefined, points = Infinity): ViewState {
  return {
    ...DEFAULT_VIEW,
    pointSize: display?.pointSize ?? pointSizeFor(points),
    glyphSize: pointSizeFor(points) * (display?.glyphScale ?? 1),
    glyphs: display?.glyphsVisible ?? DEFAULT_VIEW.glyphs,
  };
}

/** A single-frame plot's view: it has no playback, so a link's trails and speed are dropped (not carried on in its link). */
export function withoutPlayback(s: ViewState, defaults: ViewState): ViewState {
  return { ...s, trails: [], fps: defaults.fps };
}

/** "1-4,7,9-10" for sorted unique integers. */
export function encodeRanges(values: Iterable<number>): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

const MAX_RANGE_VALUES = 5_000_000;

export function decodeRanges(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    if (!part) continue;
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`bad range "${part}"`);
    const a = Number(m[1]), b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || out.length + (b - a) > MAX_RANGE_VALUES) throw new Error(`bad range "${part}"`);
    for (let v = a; v <= b; v++) out.push(v);
  }
  return out;
}

const num = (v: number) => String(Number(v.toPrecision(6)));

function numbers(text: string, count: number): number[] {
  const values = text.split(',').map(Number);
  if (values.length !== count || !values.every(Number.isFinite)) throw new Error(`expected ${count} numbers`);
  return values;
}

function keyed<T>(text: string, parse: (v: string) => T): Record<number, T> {
  const out: Record<number, T> = {};
  for (const entry of text.split(';')) {
    if (!entry) continue;
    const [k, v] = entry.split(':');
    if (!/^\d+$/.test(k) || v === undefined) throw new Error(`bad entry "${entry}"`);
    out[Number(k)] = parse(v);
  }
  return out;
}

/** `defaults`: the plot's (viewDefaults); values equal to them are left out. */
export function encodeViewState(s: ViewState, defaults: ViewState = DEFAULT_VIEW): URLSearchParams {
  const p = new URLSearchParams();
  if (s.camera) {
    const c = s.camera;
    p.set('cam', [...c.position, ...c.target, ...c.up, c.zoom].map(num).join(','));
  }
  if (s.mode !== defaults.mode) p.set('mode', s.mode);
  if (s.hidden.length) p.set('hide', encodeRanges(s.hidden));
  const colors: string[] = [], sizes: string[] = [], shapes: string[] = [];
  for (const [key, o] of Object.entries(s.overrides)) {
    if (o.color) colors.push(`${key}:${rgbaToHex(o.color).slice(1)}`);
    if (o.size !== undefined) sizes.push(`${key}:${num(o.size)}`);
    if (o.shape !== undefined) shapes.push(`${key}:${o.shape}`);
  }
  if (colors.length) p.set('col', colors.join(';'));
  if (sizes.length) p.set('size', sizes.join(';'));
  if (shapes.length) p.set('shape', shapes.join(';'));
  if (s.pointSize !== defaults.pointSize) p.set('ps', num(s.pointSize));
  if (s.glyphSize !== defaults.glyphSize) p.set('gs', num(s.glyphSize));
  if (s.glyphs !== defaults.glyphs) p.set('glyphs', s.glyphs ? '1' : '0');
  if (s.selection.length) p.set('sel', encodeRanges(s.selection));
  if (s.frame !== 0) p.set('f', String(s.frame));
  if (s.edges !== defaults.edges) p.set('edges', s.edges ? '1' : '0');
  if (s.axes !== defaults.axes) p.set('axes', s.axes ? '1' : '0');
  if (s.colorBy !== null) p.set('colorby', s.colorBy);
  if (s.labelBy !== null) p.set('labelby', s.labelBy);
  for (const label of s.trails) p.append('trail', label); // one parameter each: a label may hold any character
  if (s.fps !== defaults.fps) p.set('fps', String(s.fps));
  if (s.tree !== defaults.tree) p.set('tree', s.tree ? '1' : '0');
  if (s.clades) p.set('clades', String(s.clades));
  if (s.cladeWidth !== null) p.set('cladewidth', num(s.cladeWidth));
  if (cladesShown(s) && s.collapsed.length) p.set('collapse', encodeRanges(s.collapsed.map((c) => c + 1))); // numbered from 1, as the panel's "clade 1"
  return p;
}

/** Parses a query string; a malformed parameter is skipped and reported, the rest still applies. */
export function decodeViewState(params: URLSearchParams, defaults: ViewState = DEFAULT_VIEW): { state: ViewState; problems: string[] } {
  const s: ViewState = { ...defaults, overrides: {} };
  const problems: string[] = [];
  const field = (name: string, apply: (v: string) => void) => {
    const v = params.get(name);
    if (v === null) return;
    try { apply(v); } catch (e) { problems.push(`${name}: ${(e as Error).message}`); }
  };
  const override = (key: number) => (s.overrides[key] ??= {});
  field('cam', (v) => {
    const n = numbers(v, 10);
    s.camera = { position: [n[0], n[1], n[2]], target: [n[3], n[4], n[5]], up: [n[6], n[7], n[8]], zoom: n[9] };
  });
  field('mode', (v) => {
    if (v !== '2d' && v !== '3d') throw new Error('expected 2d or 3d');
    s.mode = v;
  });
  field('hide', (v) => { s.hidden = decodeRanges(v); });
  field('col', (v) => { for (const [k, c] of Object.entries(keyed(v, hexToRgba))) override(Number(k)).color = c; });
  field('size', (v) => {
    for (const [k, size] of Object.entries(keyed(v, Number))) {
      if (!(size > 0)) throw new Error('sizes must be positive');
      override(Number(k)).size = size;
    }
  });
  field('shape', (v) => {
    for (const [k, shape] of Object.entries(keyed(v, Number))) {
      if (!Number.isInteger(shape) || shape < 0 || shape > 6) throw new Error('shapes are 0–6');
      override(Number(k)).shape = shape;
    }
  });
  const pixels = (v: string) => {
    const n = Number(v);
    if (!(n > 0 && n <= 100)) throw new Error('size out of range');
    return n;
  };
  field('ps', (v) => { s.pointSize = pixels(v); });
  field('gs', (v) => { s.glyphSize = pixels(v); });
  field('glyphs', (v) => { s.glyphs = v !== '0'; });
  field('sel', (v) => { s.selection = decodeRanges(v); });
  field('f', (v) => {
    if (!/^\d+$/.test(v)) throw new Error(`"${v}" is not a frame: f counts frames from 0 (the first)`);
    s.frame = Number(v);
  });
  field('edges', (v) => { s.edges = v !== '0'; });
  field('axes', (v) => { s.axes = v === '1'; });
  // Columns by name: a link stays right if the plot's columns are reordered (one the plot lacks is reported by the viewer).
  field('colorby', (v) => { s.colorBy = v || null; });
  field('labelby', (v) => { s.labelBy = v || null; });
  const trails = params.getAll('trail');
  if (trails.some((l) => !l.trim())) problems.push('trail: an empty label');
  const { labels, leftOut } = trailLabels(trails);
  if (leftOut) problems.push(`trail: at most ${MAX_TRAILS} trails; ${leftOut} more left out`);
  s.trails = labels;
  field('fps', (v) => {
    if (!SPEEDS.includes(Number(v))) throw new Error(`speeds are ${SPEEDS.join(', ')} frames/s`);
    s.fps = Number(v);
  });
  field('tree', (v) => { s.tree = v !== '0'; });
  field('clades', (v) => {
    if (!/^\d+$/.test(v) || Number(v) > MAX_CLADES) throw new Error(`a number of clades, 0–${MAX_CLADES}`);
    s.clades = Number(v);
  });
  field('cladewidth', (v) => {
    const width = Number(v);
    if (!/^[0-9.e+-]+$/i.test(v) || !Number.isFinite(width) || width < 0) throw new Error('a clade width, a number ≥ 0');
    s.cladeWidth = width;
    s.clades = 0; // one cut at a time: the width's
  });
  // A cut at a width has as many clades as the tree gives: the viewer ignores collapsed ones past them.
  field('collapse', (v) => { s.collapsed = decodeRanges(v).map((c) => c - 1).filter((c) => c >= 0 && (s.cladeWidth !== null || c < s.clades)); });
  return { state: s, problems };
}
