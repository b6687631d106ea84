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

/** Clades of a cut: for each, its node; per node, the clade it falls in (-1 above the cut). */
export interface TreeCut {
  clades: number[];
  cladeOf: Int32Array;
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
 * Distance of every node from the root: the sum of branch lengths when every branch has one
 * (negative lengths, which neighbour joining can give, count as 0), else the count of branches.
 */
export function rootDistances({ parent, length }: Pick<TreeNodes, 'parent' | 'length'>): Float64Array {
  const useLengths = length.every((l, i) => i === 0 || l !== null);
  const depth = new Float64Array(parent.length);
  for (let i = 1; i < parent.length; i++) depth[i] = depth[parent[i]!]! + (useLengths ? Math.max(0, length[i]!) : 1);
  return depth;
}

/**
 * The tree cut into at least `k` clades by splitting the root-most internal nodes first
 * (least distance from the root, preorder breaking ties) until there are k or more: a split of
 * a node with c children adds c − 1 clades, so a multifurcation can overshoot k. Clades are
 * numbered in preorder of their nodes (so the numbering, and the colours, are stable as k grows
 * only where the splits allow). k ≤ 1 gives the whole tree as one clade.
 */
export function cutTree(nodes: Pick<TreeNodes, 'parent' | 'length'>, k: number): TreeCut {
  const { parent } = nodes;
  const n = parent.length;
  const children = childCounts(parent);
  const depth = rootDistances(nodes);
  // Depth never decreases from parent to child, so splitting internal nodes in this order always
  // splits a node whose parent is already split: every prefix of the order is a valid cut.
  const order = Int32Array.from({ length: n }, (_, i) => i).filter((i) => children[i]! > 0).sort((a, b) => depth[a]! - depth[b]! || a - b);
  const split = new Uint8Array(n);
  let count = 1;
  for (const i of order) {
    if (count >= k) break;
    split[i] = 1;
    count += children[i]! - 1;
  }
  const cladeOf = new Int32Array(n).fill(-1);
  const clades: number[] = [];
  for (let i = 0; i < n; i++) {
    if (split[i]) continue; // above the cut
    const up = i === 0 ? -1 : parent[i]!;
    if (up === -1 || split[up]) {
      cladeOf[i] = clades.length;
      clades.push(i);
    } else {
      cladeOf[i] = cladeOf[up]!;
    }
  }
  return { clades, cladeOf };
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
