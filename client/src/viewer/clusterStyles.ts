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
  /** drawn as a plain point of the view's point size instead of its glyph */
  plain: boolean;
}

/**
 * The file's cluster table with the view's colour/size/shape overrides and hidden set applied.
 * As in PlotViz, one-point clusters (a tree's leaves and nodes) are plain points, and so is
 * every cluster when glyphs are off.
 */
export function resolveStyles(clusters: readonly Cluster[], view: Pick<ViewState, 'hidden' | 'overrides' | 'glyphs'>): ClusterStyle[] {
  const hidden = new Set(view.hidden);
  return clusters.map((c) => {
    const o = view.overrides[c.key] ?? {};
    return {
      key: c.key, label: c.label, count: c.count,
      color: o.color ?? c.color, shape: o.shape ?? c.shape, size: o.size ?? c.size,
      visible: !hidden.has(c.key),
      plain: !view.glyphs || c.count <= 1,
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

/** Maps cluster keys to styles with a dense table when keys are small (the common case), else a Map. */
function styleLookup(styles: readonly ClusterStyle[]): (key: number) => ClusterStyle {
  const maxKey = styles.reduce((m, s) => Math.max(m, s.key), -1);
  if (maxKey < 4 * styles.length + 1024) {
    const dense: (ClusterStyle | undefined)[] = new Array(maxKey + 1);
    for (const s of styles) dense[s.key] = s;
    return (key) => dense[key] ?? FALLBACK;
  }
  const map = new Map(styles.map((s) => [s.key, s]));
  return (key) => map.get(key) ?? FALLBACK;
}

/** Fills (or allocates) the per-point arrays for the given cluster keys, styles and highlighted points. */
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
  const lookup = styleLookup(styles);
  let lastKey = -1;
  let s = FALLBACK;
  for (let i = 0; i < n; i++) {
    const key = clusterKeys[i];
    if (key !== lastKey) { s = lookup(key); lastKey = key; } // points of a cluster are usually contiguous
    out.rgba[4 * i] = s.color.r;
    out.rgba[4 * i + 1] = s.color.g;
    out.rgba[4 * i + 2] = s.color.b;
    out.rgba[4 * i + 3] = s.color.a;
    out.size[i] = s.size;
    out.shape[i] = s.plain ? PLAIN_POINT : s.shape;
    out.visibility[i] = s.visible ? 1 : 0;
  }
  for (const i of highlighted) if (i < n && out.visibility[i]) out.visibility[i] = 2;
  return out;
}

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
