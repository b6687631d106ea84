// A phylogenetic tree attached to a plot (/plots/{id}/tree): the Newick file's tree restricted
// to the leaves that name points, and the cut into clades that the viewer colours by. Shared:
// the server stores and answers this shape, the viewer draws and cuts it, tests check the cut.
import { z } from 'zod';

/**
 * Nodes in preorder (a parent before its children, so node 0 is the root), as parallel arrays.
 * Leaves are the nodes no other node names as parent; every leaf is a point of the plot.
 */
export const TreeNodes = z.object({
  parent: z.array(z.number().int().min(-1)).describe('parent node per node; -1 for the root'),
  length: z.array(z.number().nullable()).describe('branch length to the parent (null where the file gives none)'),
  name: z.array(z.string()).describe('leaf name (the point label it matched) or internal label (often a support value); "" when none'),
  point: z.array(z.number().int().min(-1)).describe("a leaf's point index in frame 0; -1 for internal nodes"),
});
export type TreeNodes = z.infer<typeof TreeNodes>;

/** Where the tree is rooted: as the file has it, or at the midpoint of its longest leaf-to-leaf path (for unrooted trees). */
export const TreeRoot = z.enum(['file', 'midpoint']);
export type TreeRoot = z.infer<typeof TreeRoot>;

/** The multipart fields of PUT /plots/{id}/tree beside its `file`. */
export const TreeUploadFields = z.object({
  root: TreeRoot.default('file').describe('`midpoint` roots an unrooted tree (FastTree, RAxML, IQ-TREE write one) at the middle of its longest leaf-to-leaf path; needs branch lengths'),
});

export const PlotTree = z.object({
  originalName: z.string(),
  root: TreeRoot,
  uploadedAt: z.string(),
  leaves: z.number().int().describe('leaves of the file\'s tree'),
  matched: z.number().int().describe('leaves matched to points, and kept'),
  unmatched: z.array(z.string()).describe('the first 20 leaf names no point has as label (their branches are left out)'),
  nodes: TreeNodes,
});
export type PlotTree = z.infer<typeof PlotTree>;

/** The answer to PUT /plots/{id}/tree and GET without nodes: what was matched. */
export const PlotTreeInfo = PlotTree.omit({ nodes: true });
export type PlotTreeInfo = z.infer<typeof PlotTreeInfo>;

/**
 * Clades of a cut: for each, its node; per node, the clade it falls in (-1 above the cut and in
 * outliers); the leaves left out as outliers, in pieces under `minSize` leaves.
 */
export interface TreeCut {
  clades: number[];
  cladeOf: Int32Array;
  outlierLeaves: number;
  minSize: number;
  /** the widest clade's longest leaf-to-leaf path (in branch lengths; without them, its leaf count) */
  widest: number;
}

/** Children per node (nodes in preorder). */
export function treeChildren(parent: readonly number[]): number[][] {
  const children: number[][] = parent.map(() => []);
  for (let i = 1; i < parent.length; i++) children[parent[i]!]!.push(i);
  return children;
}

/** How many children each node has (0: a leaf); cheaper than the lists for large trees. */
function childCounts(parent: readonly number[]): Int32Array {
  const counts = new Int32Array(parent.length);
  for (let i = 1; i < parent.length; i++) counts[parent[i]!]!++;
  return counts;
}

/**
 * The smallest clade of a cut into k: smaller pieces split off a clade are outliers (left out of
 * the k, drawn grey) rather than clades, so that lone reads on long branches (sequencing noise)
 * do not use up the k. A tenth of the mean clade size (300 leaves cut into 7: 4 leaves).
 */
function minCladeSize(leaves: number, k: number): number {
  return Math.max(1, Math.floor(leaves / (10 * Math.max(1, k))));
}

/** Whether every branch but the root's has a length: the widths of clades are then path lengths. */
export function hasBranchLengths(nodes: Pick<TreeNodes, 'length'>): boolean {
  return nodes.length.every((l, i) => i === 0 || l !== null);
}

/**
 * The tree cut into at least `k` clades by splitting, again and again, the widest clade: the one
 * with the longest leaf-to-leaf path (in branch lengths when every branch has one, else the one
 * with the most leaves). Its children of at least `minCladeSize` leaves become clades, smaller
 * ones outliers, while the outliers stay within a tenth of the leaves (so that a ladder-like tree
 * is not peeled leaf by leaf); after that small children are clades too. A split adding c clades
 * adds c − 1, so a multifurcation can overshoot k. Clades are numbered in preorder of their nodes.
 * k ≤ 1 gives the whole tree.
 */
export function cutTree(nodes: Pick<TreeNodes, 'parent' | 'length'>, k: number): TreeCut {
  return splitWidest(nodes, (count) => count >= k, (leaves) => minCladeSize(leaves, k));
}

/**
 * The tree cut so that no clade is wider than `maxWidth`: its longest leaf-to-leaf path, in branch
 * lengths (negative ones count as 0), is at most that. The widest clade is split until none is
 * wider, which leaves exactly the largest clades within the width, whatever the order: clades as
 * OTUs at a distance threshold (TreeCluster's max-clade criterion). Every piece is a clade, a lone
 * leaf included: no outliers. Without a length on every branch (hasBranchLengths) widths are leaf counts.
 */
export function cutTreeByWidth(nodes: Pick<TreeNodes, 'parent' | 'length'>, maxWidth: number): TreeCut {
  const within = maxWidth + 1e-9 * Math.max(1, Math.abs(maxWidth)); // a width equal but for rounding is within
  return splitWidest(nodes, (_count, widest) => widest <= within, () => 1);
}

/**
 * Splits the widest clade until `done(clades so far, the widest one's width)`; children under
 * `minSize(leaves)` leaves are outliers while those stay within a tenth of the leaves.
 */
function splitWidest(nodes: Pick<TreeNodes, 'parent' | 'length'>, done: (count: number, widest: number) => boolean, minSize: (leaves: number) => number): TreeCut {
  const { parent, length } = nodes;
  const n = parent.length;
  const useLengths = hasBranchLengths(nodes);
  // Children as first-child / next-sibling links; leaf counts and widths bottom-up (reverse preorder).
  const firstChild = new Int32Array(n).fill(-1), nextSibling = new Int32Array(n).fill(-1);
  const leafCount = new Int32Array(n), height = new Float64Array(n), second = new Float64Array(n), diameter = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    if (firstChild[i] === -1) leafCount[i] = 1;
    diameter[i] = Math.max(diameter[i]!, height[i]! + second[i]!);
    const up = parent[i]!;
    if (up < 0) continue;
    nextSibling[i] = firstChild[up]!;
    firstChild[up] = i;
    leafCount[up]! += leafCount[i]!;
    diameter[up] = Math.max(diameter[up]!, diameter[i]!);
    const h = height[i]! + (useLengths ? Math.max(0, length[i]!) : 1);
    if (h > height[up]!) { second[up] = height[up]!; height[up] = h; } else if (h > second[up]!) second[up] = h;
  }
  const width = useLengths ? diameter : leafCount;
  const wider = (a: number, b: number) => width[a]! > width[b]! || (width[a] === width[b] && (leafCount[a]! > leafCount[b]! || (leafCount[a] === leafCount[b] && a < b)));
  const heap = new MaxHeap(wider);
  const smallest = minSize(leafCount[0]!);
  let outlierRoom = Math.floor(leafCount[0]! / 10);
  const split = new Uint8Array(n), outlier = new Uint8Array(n);
  heap.push(0);
  let count = 1;
  while (heap.size > 0 && !done(count, width[heap.peek()]!)) {
    const node = heap.pop();
    let children = 0, kept = 0, small = 0;
    for (let c = firstChild[node]!; c !== -1; c = nextSibling[c]!) {
      children++;
      if (leafCount[c]! >= smallest) kept++;
      else small += leafCount[c]!;
    }
    const peel = small <= outlierRoom; // else its small children are clades too
    const added = peel ? kept : children;
    if (added === 0) continue; // only outliers below: it stays a clade
    split[node] = 1;
    count += added - 1;
    if (peel) outlierRoom -= small;
    for (let c = firstChild[node]!; c !== -1; c = nextSibling[c]!) {
      if (peel && leafCount[c]! < smallest) outlier[c] = 1;
      else if (firstChild[c] !== -1) heap.push(c);
    }
  }
  const cladeOf = new Int32Array(n).fill(-1);
  const clades: number[] = [];
  for (let i = 0; i < n; i++) {
    const up = i === 0 ? -1 : parent[i]!;
    if (split[i]) continue; // above the cut
    if (up >= 0 && outlier[up]) outlier[i] = 1;
    if (outlier[i]) continue;
    if (up === -1 || split[up]) {
      cladeOf[i] = clades.length;
      clades.push(i);
    } else {
      cladeOf[i] = cladeOf[up]!;
    }
  }
  let outlierLeaves = 0;
  for (let i = 0; i < n; i++) if (outlier[i] && firstChild[i] === -1) outlierLeaves++;
  const widest = clades.reduce((most, node) => Math.max(most, width[node]!), 0);
  return { clades, cladeOf, outlierLeaves, minSize: smallest, widest };
}

/** A binary max-heap of node indices under `before` (a before b: a comes out first). */
class MaxHeap {
  private items: number[] = [];
  constructor(private readonly before: (a: number, b: number) => boolean) {}
  get size(): number { return this.items.length; }
  peek(): number { return this.items[0]!; }
  push(x: number): void {
    const a = this.items;
    let i = a.push(x) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!, last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** The leaves under each node, as leaf node indices in preorder (each list a slice of one array). */
export function leavesUnder(parent: readonly number[]): { start: Int32Array; end: Int32Array; leaves: Int32Array } {
  const n = parent.length;
  const children = childCounts(parent);
  // In preorder a node's subtree is the contiguous run of nodes after it up to its size.
  const size = new Int32Array(n).fill(1);
  for (let i = n - 1; i > 0; i--) size[parent[i]!]! += size[i]!;
  const leafRank = new Int32Array(n + 1);
  const leaves: number[] = [];
  for (let i = 0; i < n; i++) {
    leafRank[i] = leaves.length;
    if (children[i] === 0) leaves.push(i);
  }
  leafRank[n] = leaves.length;
  const start = new Int32Array(n), end = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    start[i] = leafRank[i]!;
    end[i] = leafRank[i + size[i]!]!;
  }
  return { start, end, leaves: Int32Array.from(leaves) };
}
