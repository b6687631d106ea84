// Midpoint rooting (services/midpoint-root.ts), and a peer check: Debian's FastTree (installed
// by scripts/install.sh) builds a tree from a planted alignment, our parser reads its output,
// and the midpoint-rooted cut at k = 4 gives back the 4 planted groups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutTree, leavesUnder, type TreeNodes } from '@wpv/schema';
import { parseNewick } from '../../src/formats/newick.ts';
import { InputError } from '../../src/formats/types.ts';
import { midpointRoot } from '../../src/services/midpoint-root.ts';
import { matchLeaves } from '../../src/services/trees.ts';
import { fastTreeOfPlantedGroups } from './planted.ts';

/** A tree's leaf groups under the clades of a cut at k, as sorted lists of names. */
function cladeNames(nodes: TreeNodes, k: number): string[][] {
  const { clades } = cutTree(nodes, k);
  const under = leavesUnder(nodes.parent);
  return clades.map((c) => [...under.leaves.subarray(under.start[c]!, under.end[c]!)].map((leaf) => nodes.name[leaf]!).sort())
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}
const matched = (newick: string, labels: string[]) => matchLeaves(parseNewick(newick), labels, 't.nwk').nodes;

test('an unrooted tree rooted inside a clade is rooted between the clades at its midpoint', () => {
  // The longest path is a1 … b2 (1 + 0.5 + 6 + 0.5 + 1 = 9): its middle, 4.5 from a1, is on the 6-long branch.
  const labels = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'];
  const nodes = matched('(a1:1,a2:1,(a3:0.5,((b1:1,b2:1):0.5,b3:0.2):6):0.5);', labels);
  assert.notDeepEqual(cladeNames(nodes, 2), [['a1', 'a2', 'a3'], ['b1', 'b2', 'b3']], 'the file\'s root cuts inside a');
  const rooted = midpointRoot(nodes);
  assert.deepEqual(cladeNames(rooted, 2), [['a1', 'a2', 'a3'], ['b1', 'b2', 'b3']]);
  assert.equal(rooted.parent.filter((p) => p === 0).length, 2, 'the new root splits the long branch in two');
  const fromRoot = rooted.length.filter((_, i) => rooted.parent[i] === 0).sort();
  assert.deepEqual(fromRoot, [3, 3]); // the 6-long branch starts 1.5 from a1 and ends 7.5 from it
  assert.equal(rooted.point.filter((p) => p >= 0).length, 6, 'every leaf keeps its point');
  assert.equal(rooted.parent.length, nodes.parent.length + 1, 'a node splits the branch; the old root, of three branches, stays a node');
  // An old root of two branches is left with one child: merged into it.
  const binary = midpointRoot(matched('((a1:1,a2:1):0.5,(b1:1,b2:1):3);', ['a1', 'a2', 'b1', 'b2']));
  assert.equal(binary.parent.length, 7);
  assert.deepEqual(cladeNames(binary, 2), [['a1', 'a2'], ['b1', 'b2']]);
});

test('midpoint rooting needs every branch length', () => {
  assert.throws(() => midpointRoot(matched('((a:1,b:1),c:1);', ['a', 'b', 'c'])),
    (e) => e instanceof InputError && e.details.field === 'root' && /needs a length on every branch/.test(e.message));
});

test('peer: FastTree on a planted alignment; midpoint rooted, the cut at 4 gives the planted groups', () => {
  const { groups, newick } = fastTreeOfPlantedGroups([8, 12, 6, 10], 11);
  const nodes = matched(newick, groups.flat());
  const planted = groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
  assert.deepEqual(cladeNames(midpointRoot(nodes), 4), planted);
});
