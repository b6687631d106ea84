// A plot's tree in the viewer, as pure functions of the tree, the frame on screen and the cut:
// where each node sits (a leaf at its point; an internal node at the mean position of the
// leaves under it, so a clade's node is at its centre of mass in every frame), the branches as
// line segments coloured by clade, the points' colours by clade, and the clades' points.
import { categoricalColor, leavesUnder, type PlotTree, type Rgba, type TreeCut, type TreeNodes } from '@wpv/schema';
import { MISSING, type LegendRow } from './metadata';

export interface TreeModel {
  nodes: TreeNodes;
  /** the leaves under each node (leaf node indices) */
  under: ReturnType<typeof leavesUnder>;
}

export const treeModel = (tree: PlotTree): TreeModel => ({ nodes: tree.nodes, under: leavesUnder(tree.nodes.parent) });

/** Branches above the cut (and every branch when nothing is cut). */
const TRUNK: Rgba = { r: 200, g: 200, b: 200, a: 255 };
/** The canvas's clear colour, which a collapsed clade's points are mixed towards. */
const BACKGROUND: Rgba = { r: 0x11, g: 0x14, b: 0x18, a: 255 };
/** How much of its colour a collapsed clade's point keeps. */
const DIMMED = 0.25;

export const cladeColor = (clade: number): Rgba => categoricalColor(clade);

/**
 * Each leaf's point in a frame (-1 for internal nodes and leaves the frame lacks): frame 0 as
 * matched on upload; another frame's points by label (its first point with the leaf's name),
 * as a time series follows its points.
 */
export function leafPoints(nodes: TreeNodes, frame: number, labels: readonly string[] | null): Int32Array {
  const out = Int32Array.from(nodes.point);
  if (frame === 0) return out;
  if (!labels) return out.fill(-1); // drawn once the frame's labels are in
  const index = new Map<string, number>();
  for (let i = labels.length - 1; i >= 0; i--) index.set(labels[i]!, i);
  for (let i = 0; i < out.length; i++) if (out[i]! >= 0) out[i] = index.get(nodes.name[i]!) ?? -1;
  return out;
}

/** The leaves' points without those of hidden clusters: the branches leave out what is not drawn. */
export function shownLeafPoints(leafPoint: Int32Array, clusters: Uint32Array, hidden: readonly number[]): Int32Array {
  if (!hidden.length) return leafPoint;
  const hide = new Set(hidden);
  return leafPoint.map((p) => (p >= 0 && hide.has(clusters[p]!) ? -1 : p));
}

/** xyz per node (the mean of its leaves' points) and whether it has any leaf in the frame. */
export function nodePositions(nodes: TreeNodes, leafPoint: Int32Array, positions: Float32Array): { xyz: Float32Array; present: Uint8Array } {
  const n = nodes.parent.length;
  const sum = new Float64Array(3 * n), count = new Uint32Array(n);
  const points = positions.length / 3;
  for (let i = n - 1; i >= 0; i--) {
    const p = leafPoint[i]!;
    if (p >= 0 && p < points) {
      for (let k = 0; k < 3; k++) sum[3 * i + k]! += positions[3 * p + k]!;
      count[i]!++;
    }
    const up = nodes.parent[i]!;
    if (up >= 0) {
      for (let k = 0; k < 3; k++) sum[3 * up + k]! += sum[3 * i + k]!;
      count[up]! += count[i]!;
    }
  }
  const xyz = new Float32Array(3 * n), present = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!count[i]) continue;
    present[i] = 1;
    for (let k = 0; k < 3; k++) xyz[3 * i + k] = sum[3 * i + k]! / count[i]!;
  }
  return { xyz, present };
}

/** What the tree layer draws: segments (6 floats each) and marks (3), colours as sRGB 0–1. */
export interface TreeLines {
  segments: Float32Array;
  segmentColors: Float32Array;
  marks: Float32Array;
  markColors: Float32Array;
}

/**
 * A branch per node with a parent, from the parent's position to its own, in its clade's colour
 * (light grey above the cut). A collapsed clade draws no branches inside it: a mark at its node.
 * Without `branches` only the marks (they stand for the clades' points, not for branches).
 * Filled into arrays of the most room needed (a frame switch of a 100,000-leaf tree redraws it).
 */
export function treeLines(nodes: TreeNodes, placed: ReturnType<typeof nodePositions>, cut: TreeCut | null, collapsed: ReadonlySet<number>, branches = true): TreeLines {
  const { xyz, present } = placed;
  const n = nodes.parent.length;
  const segments = new Float32Array(6 * n), segmentColors = new Float32Array(6 * n);
  const marks = new Float32Array(3 * collapsed.size), markColors = new Float32Array(3 * collapsed.size);
  const rgb = (c: Rgba) => [c.r / 255, c.g / 255, c.b / 255];
  const trunk = rgb(TRUNK);
  const colours = (cut?.clades ?? []).map((_, clade) => rgb(cladeColor(clade)));
  let s = 0, m = 0;
  for (let i = 0; i < n; i++) {
    if (!present[i]) continue; // no leaf of it in this frame
    const clade = cut ? cut.cladeOf[i]! : -1;
    const isCladeNode = clade >= 0 && cut!.clades[clade] === i;
    if (clade >= 0 && collapsed.has(clade)) {
      if (!isCladeNode) continue;
      marks.set(xyz.subarray(3 * i, 3 * i + 3), 3 * m);
      markColors.set(colours[clade]!, 3 * m++);
    }
    const up = nodes.parent[i]!;
    if (up < 0 || !branches) continue;
    const colour = clade >= 0 ? colours[clade]! : trunk;
    for (let k = 0; k < 3; k++) {
      segments[6 * s + k] = xyz[3 * up + k]!;
      segments[6 * s + 3 + k] = xyz[3 * i + k]!;
      segmentColors[6 * s + k] = segmentColors[6 * s + 3 + k] = colour[k]!;
    }
    s++;
  }
  return { segments: segments.subarray(0, 6 * s), segmentColors: segmentColors.subarray(0, 6 * s), marks: marks.subarray(0, 3 * m), markColors: markColors.subarray(0, 3 * m) };
}

/** The points of a clade in the frame, ascending. */
export function cladePoints(model: TreeModel, cut: TreeCut, clade: number, leafPoint: Int32Array): number[] {
  const node = cut.clades[clade]!;
  const { start, end, leaves } = model.under;
  const out: number[] = [];
  for (let k = start[node]!; k < end[node]!; k++) {
    const p = leafPoint[leaves[k]!]!;
    if (p >= 0) out.push(p);
  }
  return out.sort((a, b) => a - b);
}

/**
 * RGBA per point: its clade's colour, mixed towards the background in a collapsed clade; grey
 * for points that are no leaf of the tree and for the cut's outliers.
 */
export function cladePointColors(model: TreeModel, cut: TreeCut, collapsed: ReadonlySet<number>, leafPoint: Int32Array, points: number): Uint8Array {
  const out = new Uint8Array(4 * points);
  const grey = Uint8Array.of(MISSING.r, MISSING.g, MISSING.b, 255);
  for (let p = 0; p < points; p++) out.set(grey, 4 * p);
  const mix = (v: number, bg: number, dim: boolean) => Math.round(dim ? bg + (v - bg) * DIMMED : v);
  const rgba = cut.clades.map((_, clade) => {
    const c = cladeColor(clade), dim = collapsed.has(clade);
    return Uint8Array.of(mix(c.r, BACKGROUND.r, dim), mix(c.g, BACKGROUND.g, dim), mix(c.b, BACKGROUND.b, dim), 255);
  });
  for (let i = 0; i < leafPoint.length; i++) {
    const p = leafPoint[i]!, clade = cut.cladeOf[i]!;
    if (p >= 0 && p < points && clade >= 0) out.set(rgba[clade]!, 4 * p);
  }
  return out;
}

/**
 * The clades as legend rows, in clade order: "clade 3" with its count of leaves at a point of the
 * frame (`leafPoint`; a later frame of a time series may lack some), or the leaf's name for a
 * clade of one leaf.
 */
export function cladeLegend(model: TreeModel, cut: TreeCut, leafPoint: Int32Array): LegendRow[] {
  const { start, end, leaves } = model.under;
  return cut.clades.map((node, clade) => {
    let count = 0;
    for (let k = start[node]!; k < end[node]!; k++) if (leafPoint[leaves[k]!]! >= 0) count++;
    const one = end[node]! - start[node]! === 1;
    const label = one ? model.nodes.name[node]! : `clade ${clade + 1}`;
    return { key: clade, label, color: cladeColor(clade), count, visible: true, shape: 0, size: 1, plain: true };
  });
}
