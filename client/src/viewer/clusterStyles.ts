// Cluster styles (file values + view overrides) expanded into per-point attribute arrays.
import type { Cluster } from '@wpv/schema';
import { PLAIN_POINT } from './shaders';
import type { ViewState } from './viewState';

export interface ClusterStyle {
  key: number;
  label: string;
  color: Cluster['color'];
  shape: number;
  size: number;
  visible: boolean;
  count: number;
  /** drawn as plain points of the view's point size instead of its glyph (glyphs off); one-point clusters always are */
  plain: boolean;
  /** the cluster's medoid (a clustering job's centre), a point index */
  centre?: number;
  /** the mean silhouette of its points (a clustering job's), until an edit changes them */
  silhouette?: number;
}

/**
 * The file's cluster table with the view's colour/size/shape overrides and hidden set applied.
 * Every cluster is plain points when glyphs are off (one-point clusters always are: see
 * buildPointAttributes).
 */
export function resolveStyles(clusters: readonly Cluster[], view: Pick<ViewState, 'hidden' | 'overrides' | 'glyphs'>): ClusterStyle[] {
  const hidden = new Set(view.hidden);
  return clusters.map((c) => {
    const o = view.overrides[c.key] ?? {};
    return {
      key: c.key, label: c.label, count: c.count,
      color: o.color ?? c.color, shape: o.shape ?? c.shape, size: o.size ?? c.size,
      visible: !hidden.has(c.key),
      plain: !view.glyphs,
      ...(c.centre !== undefined && { centre: c.centre }),
      ...(c.silhouette !== undefined && { silhouette: c.silhouette }),
    };
  });
}

export interface PointAttributes {
  rgba: Uint8Array;
  size: Float32Array;
  shape: Uint8Array;
  /** 0 hidden, 1 shown, 2 shown and highlighted */
  visibility: Uint8Array;
}

const FALLBACK: ClusterStyle = {
  key: -1, label: '', color: { r: 160, g: 160, b: 160, a: 255 }, shape: 0, size: 1, visible: true, count: 0, plain: true,
};

/** Maps cluster keys to their index in `styles` (-1: none) with a dense table when keys are small (the common case), else a Map. */
function slotLookup(styles: readonly ClusterStyle[]): (key: number) => number {
  const maxKey = styles.reduce((m, s) => Math.max(m, s.key), -1);
  if (maxKey < 4 * styles.length + 1024) {
    const dense = new Int32Array(maxKey + 1).fill(-1);
    styles.forEach((s, k) => { dense[s.key] = k; });
    return (key) => (key <= maxKey ? dense[key]! : -1);
  }
  const map = new Map(styles.map((s, k) => [s.key, k]));
  return (key) => map.get(key) ?? -1;
}

/**
 * Fills (or allocates) the per-point arrays for the given cluster keys, styles and highlighted
 * points. As in PlotViz, a cluster with one point in these keys (a tree's leaves and nodes) is
 * a plain point: counted in this frame, since a time series' cluster table sums all frames.
 */
export function buildPointAttributes(
  clusterKeys: Uint32Array,
  styles: readonly ClusterStyle[],
  highlighted: ReadonlySet<number>,
  reuse?: PointAttributes,
): PointAttributes {
  const n = clusterKeys.length;
  const out = reuse && reuse.size.length === n ? reuse : {
    rgba: new Uint8Array(4 * n), size: new Float32Array(n), shape: new Uint8Array(n), visibility: new Uint8Array(n),
  };
  const slotOf = slotLookup(styles);
  const counts = new Uint32Array(styles.length);
  let lastKey = -1;
  let slot = -1;
  for (let i = 0; i < n; i++) {
    const key = clusterKeys[i]!;
    if (key !== lastKey) { slot = slotOf(key); lastKey = key; } // points of a cluster are usually contiguous
    if (slot >= 0) counts[slot]!++;
  }
  lastKey = -1;
  let s = FALLBACK;
  let plain = true;
  for (let i = 0; i < n; i++) {
    const key = clusterKeys[i]!;
    if (key !== lastKey) {
      slot = slotOf(key);
      lastKey = key;
      s = slot >= 0 ? styles[slot]! : FALLBACK;
      plain = s.plain || slot < 0 || counts[slot]! <= 1;
    }
    out.rgba[4 * i] = s.color.r;
    out.rgba[4 * i + 1] = s.color.g;
    out.rgba[4 * i + 2] = s.color.b;
    out.rgba[4 * i + 3] = s.color.a;
    out.size[i] = s.size;
    out.shape[i] = plain ? PLAIN_POINT : s.shape;
    out.visibility[i] = s.visible ? 1 : 0;
  }
  // Each cluster's medoid stands out: a star CENTRE_SCALE times its cluster's size (while it is still in that cluster).
  for (const s of styles) {
    const c = s.centre;
    if (c === undefined || c >= n || clusterKeys[c] !== s.key) continue;
    out.shape[c] = CENTRE_SHAPE;
    out.size[c] = s.size * CENTRE_SCALE;
  }
  for (const i of highlighted) if (i < n && out.visibility[i]) out.visibility[i] = 2;
  return out;
}

/** The glyph and size factor of a cluster's centre (glyph 2: star, see SHAPE_NAMES). */
export const CENTRE_SHAPE = 2;
export const CENTRE_SCALE = 3;

/** Points per cluster key in one frame (a time series' cluster table counts every frame). */
export function countByCluster(clusterKeys: Uint32Array): Map<number, number> {
  const counts = new Map<number, number>();
  for (let i = 0; i < clusterKeys.length; i++) counts.set(clusterKeys[i]!, (counts.get(clusterKeys[i]!) ?? 0) + 1);
  return counts;
}

/** The styles with each count taken from `counts` (clusters absent from it have no point there). */
export function withCounts(styles: readonly ClusterStyle[], counts: ReadonlyMap<number, number>): ClusterStyle[] {
  return styles.map((s) => ({ ...s, count: counts.get(s.key) ?? 0 }));
}

/** The points among `indices` whose cluster (`clusterKeys`: the frame's) is not hidden, in order: a search frames only these. */
export function shownPoints(indices: readonly number[], clusterKeys: ArrayLike<number>, hidden: readonly number[]): number[] {
  if (!hidden.length) return [...indices];
  const off = new Set(hidden);
  return indices.filter((i) => !off.has(clusterKeys[i]!));
}
