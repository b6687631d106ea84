// The demo's tree: SPIDAL's tree sample draws its tree as polylines; newickFromPolylines turns
// them into a Newick tree that the tree service matches to the sample's points.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { newickFromPolylines } from '../src/cli/demo-data.ts';
import { parseFile } from '../src/formats/index.ts';
import { parseNewick } from '../src/formats/newick.ts';
import { matchLeaves } from '../src/services/trees.ts';

const line = (...vertices: number[]) => ({ vertices });

test('polylines of an unrooted tree become its Newick topology, rooted at the first polyline\'s second vertex', () => {
  // Leaves 0–3 (a–d), internal nodes 4 and 5: ((a,b) 4 — 5 (c,d)), drawn child–parent–child as SPIDAL does.
  const labels = ['a', 'b', 'c', "d'x", '', ''];
  const newick = newickFromPolylines([line(0, 4, 1), line(4, 5), line(2, 5, 3, 5)], labels);
  assert.equal(newick, "(a,b,(c,'d''x'));");
  const parsed = parseNewick(newick);
  assert.deepEqual(parsed.name.filter((_, i) => !parsed.parent.includes(i)).sort(), ['a', 'b', 'c', "d'x"]);
  assert.throws(() => newickFromPolylines([line(0, 1), line(1, 2), line(2, 0)], ['a', 'b', 'c']), /cycle/);
  assert.throws(() => newickFromPolylines([line(0, 2, 1), line(3, 4)], ['a', 'b', '', 'c', 'd']), /points short of one tree/);
  assert.throws(() => newickFromPolylines([line(0, 2, 1)], ['a', '', '']), /leaf point 1 has no label/);
});

test('the real tree sample: 1,821 leaves, each at the sample point of its label', async () => {
  const file = path.resolve(import.meta.dirname, '../../../shared/data/tree_sample.pviz');
  const { frames: [frame] } = await parseFile(file, 'tree_sample.pviz', { maxPoints: 1e6, maxFrames: 1, maxUncompressedBytes: 1e9, maxCompressionRatio: 100 });
  const matched = matchLeaves(parseNewick(newickFromPolylines(frame!.edges, frame!.labels)), frame!.labels, 'tree_sample.nwk');
  assert.deepEqual([matched.leaves, matched.matched], [1821, 1821]);
  assert.equal(matched.nodes.parent.length, 1821 + 1819, 'every point the polylines join: the leaves and 1,819 internal points');
});
