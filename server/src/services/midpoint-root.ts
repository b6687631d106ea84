// Midpoint rooting: an unrooted tree (FastTree, RAxML and most maximum-likelihood programs write
// one, rooted at an arbitrary node, often inside a clade) rooted at the middle of its longest
// leaf-to-leaf path, so that the cut into clades starts from a root that means something.
import { hasBranchLengths, type TreeNodes } from '@wpv/schema';
import { InputError } from '../formats/types.ts';

/** The same tree rooted at its midpoint, nodes in preorder again; a node left with one child is merged into it. */
export function midpointRoot(nodes: TreeNodes): TreeNodes {
  const n = nodes.parent.length;
  if (!hasBranchLengths(nodes)) {
    throw new InputError('no_branch_lengths', 'file: rooting at the midpoint needs a length on every branch', { field: 'root', status: 422 });
  }
  if (n < 3) return nodes;
  // Undirected edges, each with its branch's length (negative lengths count as 0).
  const next: { to: number; w: number }[][] = nodes.parent.map(() => []);
  for (let i = 1; i < n; i++) {
    const w = Math.max(0, nodes.length[i]!);
    next[i]!.push({ to: nodes.parent[i]!, w });
    next[nodes.parent[i]!]!.push({ to: i, w });
  }
  const isLeaf = (i: number) => i > 0 && next[i]!.length === 1;
  /** Distances from `start` and each node's predecessor on its path back to it. */
  const reach = (start: number) => {
    const dist = new Float64Array(n).fill(-1), from = new Int32Array(n).fill(-1);
    dist[start] = 0;
    for (const stack = [start]; stack.length; ) {
      const x = stack.pop()!;
      for (const { to, w } of next[x]!) if (dist[to]! < 0) { dist[to] = dist[x]! + w; from[to] = x; stack.push(to); }
    }
    return { dist, from };
  };
  const farthestLeaf = (dist: Float64Array) => {
    let best = -1;
    for (let i = 0; i < n; i++) if (isLeaf(i) && (best < 0 || dist[i]! > dist[best]!)) best = i;
    return best;
  };
  const u = farthestLeaf(reach(nodes.parent.findIndex((_, i) => isLeaf(i))).dist);
  const { dist, from } = reach(u);
  const v = farthestLeaf(dist);
  const half = dist[v]! / 2;
  if (half === 0) return nodes; // every branch has length 0: no midpoint to prefer
  // Walk back from v to the edge (x below, y above on the path from u) that holds the midpoint.
  let x = v;
  while (dist[from[x]!]! > half) x = from[x]!;
  const y = from[x]!;

  // The new root: y itself when the midpoint is on it, else a new node (index n) splitting the edge x–y.
  const splitting = dist[y]! < half;
  const root = splitting ? n : y;
  if (splitting) {
    const toX = dist[x]! - half, toY = half - dist[y]!;
    next.push([{ to: x, w: toX }, { to: y, w: toY }]);
    next[x] = next[x]!.map((e) => (e.to === y ? { to: n, w: toX } : e));
    next[y] = next[y]!.map((e) => (e.to === x ? { to: n, w: toY } : e));
  }
  const name = (i: number) => (i < n ? nodes.name[i]! : '');
  const point = (i: number) => (i < n ? nodes.point[i]! : -1);

  const out: TreeNodes = { parent: [], length: [], name: [], point: [] };
  const stack: [node: number, up: number, parentIndex: number, length: number | null][] = [[root, -1, -1, null]];
  while (stack.length) {
    let [i, up, parentIndex, length] = stack.pop()!;
    // A node left with one child (the old root of a binary tree) is merged into that child.
    let onward = next[i]!.filter((e) => e.to !== up);
    while (onward.length === 1 && up >= 0) {
      length! += onward[0]!.w;
      [up, i] = [i, onward[0]!.to];
      onward = next[i]!.filter((e) => e.to !== up);
    }
    const index = out.parent.length;
    out.parent.push(parentIndex);
    out.length.push(length);
    out.name.push(name(i));
    out.point.push(point(i));
    for (let k = onward.length - 1; k >= 0; k--) stack.push([onward[k]!.to, i, index, onward[k]!.w]);
  }
  return out;
}
