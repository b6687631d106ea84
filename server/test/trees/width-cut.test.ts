// The cut at a width (cutTreeByWidth: no clade's longest leaf-to-leaf path over the threshold, as
// OTUs at a distance threshold) against a brute-force oracle on random trees, on planted groups,
// and on a tree built by a peer tool (Debian's FastTree) from a planted alignment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutTreeByWidth, hasBranchLengths, leavesUnder, type TreeNodes } from '@wpv/schema';
import { parseNewick } from '../../src/formats/newick.ts';
import { midpointRoot } from '../../src/services/midpoint-root.ts';
import { matchLeaves } from '../../src/services/trees.ts';
import { fastTreeOfPlantedGroups, plantedTree, random } from './planted.ts';

type Lengths = Pick<TreeNodes, 'parent' | 'length'>;

/** Each node's longest leaf-to-leaf path within its subtree, from every pair of its leaves. */
function diametersByPairs(nodes: Lengths): number[] {
  const { parent, length } = nodes;
  const depth = parent.map(() => 0);
  for (let i = 1; i < parent.length; i++) depth[i] = depth[parent[i]!]! + Math.max(0, length[i]!);
  const ancestors = (i: number) => { const path: number[] = []; for (let j = i; j >= 0; j = parent[j]!) path.push(j); return path; };
  const under = leavesUnder(parent);
  return parent.map((_, v) => {
    const leaves = [...under.leaves.subarray(under.start[v]!, under.end[v]!)];
    let widest = 0;
    for (const a of leaves) {
      const above = new Set(ancestors(a));
      for (const b of leaves) {
        const lca = ancestors(b).find((j) => above.has(j))!;
        widest = Math.max(widest, depth[a]! + depth[b]! - 2 * depth[lca]!);
      }
    }
    return widest;
  });
}

/** A random rooted tree in preorder: 2–3 children per inner node, lengths in [-0.1, 2), some 0. */
function randomTree(leaves: number, rand: () => number): Lengths {
  const parent: number[] = [], length: (number | null)[] = [];
  const grow = (up: number, count: number) => {
    const node = parent.length;
    parent.push(up);
    length.push(up < 0 ? null : rand() < 0.1 ? 0 : rand() * 2.1 - 0.1);
    if (count === 1) return;
    const parts = count >= 3 && rand() < 0.3 ? 3 : 2;
    let left = count;
    for (let p = parts; p > 0; p--) {
      const size = p === 1 ? left : 1 + Math.floor(rand() * (left - p + 1));
      grow(node, size);
      left -= size;
    }
  };
  grow(-1, leaves);
  return { parent, length };
}

const cladeLeafNames = (nodes: TreeNodes, clades: number[]) => {
  const under = leavesUnder(nodes.parent);
  return clades.map((c) => [...under.leaves.subarray(under.start[c]!, under.end[c]!)].map((leaf) => nodes.name[leaf]!).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
};

test('oracle: the clades are the largest subtrees no wider than the threshold, on random trees', () => {
  const rand = random(5);
  for (let trial = 0; trial < 40; trial++) {
    const nodes = randomTree(5 + Math.floor(rand() * 40), rand);
    const widths = diametersByPairs(nodes);
    for (const maxWidth of [0, 0.5, 2, 5, widths[0]! * rand(), widths[0]!, widths[0]! + 1]) {
      const expected = widths.map((_, v) => v).filter((v) => widths[v]! <= maxWidth + 1e-9 && (v === 0 || widths[nodes.parent[v]!]! > maxWidth + 1e-9));
      const cut = cutTreeByWidth(nodes, maxWidth);
      assert.deepEqual(cut.clades, expected, `trial ${trial}, width ${maxWidth}`);
      assert.equal(cut.outlierLeaves, 0, 'no outliers: a lone leaf is a clade');
      cut.clades.forEach((node, clade) => assert.equal(cut.cladeOf[node], clade));
    }
  }
});

test('planted groups (10 apart) come back at any width between the widest group and the gap', () => {
  const planted = plantedTree([5, 6, 7, 4], 3);
  const labels = planted.groups.flat();
  const nodes = matchLeaves(parseNewick(planted.newick), labels, 't.nwk').nodes;
  assert.ok(hasBranchLengths(nodes));
  const groups = planted.groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
  // Within a group: at most 6 branches of ≤ 1.1 to its root on each side (13.2); between groups: over 20.
  for (const width of [13.3, 15, 19.9]) assert.deepEqual(cladeLeafNames(nodes, cutTreeByWidth(nodes, width).clades), groups, `width ${width}`);
  assert.equal(cutTreeByWidth(nodes, 1e9).clades.length, 1, 'wider than the tree: one clade');
});

test('peer: on FastTree\'s tree of a planted alignment (groups 25 % apart, reads 2 % apart), a width of 0.2 gives the groups', () => {
  const { groups, newick } = fastTreeOfPlantedGroups([9, 5, 12], 17);
  const nodes = midpointRoot(matchLeaves(parseNewick(newick), groups.flat(), 't.nwk').nodes);
  const planted = groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
  assert.deepEqual(cladeLeafNames(nodes, cutTreeByWidth(nodes, 0.2).clades), planted);
});
