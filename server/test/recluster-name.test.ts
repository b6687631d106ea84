// A re-clustering's generated name fits the characters a name may have, so that the plot's
// editor (which sends the name back with every edit) can save it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NAME_MAX, PlotPatch } from '@wpv/schema';
import { reclusterName } from '../src/services/recluster.ts';

test('a re-clustering is named after its parent and cluster, the parent shortened first when too long', () => {
  assert.equal(reclusterName('fungi 600 reads', 'Ascomycota A (149 points)'), 'fungi 600 reads: Ascomycota A (149 points) re-clustered');
  const long = reclusterName('p'.repeat(NAME_MAX), 'cluster 3 (40 points)');
  assert.equal(long.length, NAME_MAX);
  assert.match(long, /^p+…: cluster 3 \(40 points\) re-clustered$/);
  // A label as long as a name: cut at the end.
  const longest = reclusterName('parent', 'l'.repeat(NAME_MAX));
  assert.equal(longest.length, NAME_MAX);
  assert.match(longest, /^parent: l+…$/);
  for (const name of [long, longest]) assert.ok(PlotPatch.safeParse({ name }).success, 'the editor can save it back');
});
