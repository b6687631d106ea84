// The blobs behind cluster delete and undo: key changes round-trip, and "the same points again" is recognised.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeChanges, encodeChanges, sameCluster } from '../src/services/clusters.ts';

describe('cluster edit blobs', () => {
  test('key changes round-trip, frames with no points and large keys included', () => {
    const changes = [
      { frame: 0, points: [3, 1, 7], keys: [2, 2, 0xffffffff] },
      { frame: 4, points: [], keys: [] },
      { frame: 569, points: [0], keys: [12] },
    ];
    const bytes = encodeChanges(changes);
    assert.equal(bytes.byteLength, 4 * (1 + (2 + 2 * 3) + 2 + (2 + 2 * 1))); // count, then per frame: index, n, points, keys
    assert.deepEqual(decodeChanges(new Uint8Array(bytes)), changes);
    assert.deepEqual(decodeChanges(encodeChanges([])), []);
  });

  test('the same points: every point of one cluster and nothing else', () => {
    const keys = Uint32Array.from([1, 4, 4, 2, 4]);
    assert.equal(sameCluster(keys, [4, 1, 2]), 4);
    assert.equal(sameCluster(keys, [1, 2]), null); // part of cluster 4
    assert.equal(sameCluster(keys, [1, 2, 4, 3]), null); // more than cluster 4
    assert.equal(sameCluster(keys, [0]), 1);
  });
});
