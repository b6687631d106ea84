// POST /plots/{id}/clusters: a cluster made of chosen points, against the real store.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { categoricalColor, encodeSelectionMask } from '@wpv/schema';
import { Client, bytes, expectReply, signedIn, startServer, type TestServer, zipOf } from './harness.ts';

let server: TestServer;
let alice: Client;
let bob: Client;
before(async () => {
  server = await startServer();
  alice = await signedIn(server.url, 'alice');
  bob = await signedIn(server.url, 'bob');
});
after(() => server.close());
// Replaced key blobs' chunks are deleted after the reply: none may be left behind.
afterEach(() => eventually(async () => {
  const [referenced] = await server.store.blobs.meta.aggregate<{ chunks: number }>([{ $group: { _id: null, chunks: { $sum: '$chunks' } } }]).toArray();
  return (await server.store.db.collection('blob_chunks').countDocuments({})) === (referenced?.chunks ?? 0);
}));

// idx x y z cluster label: clusters 1 (a, b), 2 (c, d, e), 3 (f)
const SIX = '0 0 0 0 1 a\n1 1 0 0 1 b\n2 2 0 0 2 c\n3 3 0 0 2 d\n4 4 0 0 2 e\n5 5 0 0 3 f\n';

const uints = (data: Uint8Array) => new Uint32Array(data.buffer, data.byteOffset, data.byteLength / 4);
const keysOf = async (id: string, frame = 0) => [...uints(await bytes(await alice.request('GET', `/plots/${id}/frames/${frame}/clusters`)))];
const countsOf = (plot: any) => Object.fromEntries(plot.clusters.map((c: any) => [c.label, c.count]));

async function eventually(condition: () => Promise<boolean>, timeoutMs = 20_000) {
  for (const start = Date.now(); !(await condition()); await new Promise((r) => setTimeout(r, 100))) {
    assert.ok(Date.now() - start < timeoutMs, `not within ${timeoutMs} ms`);
  }
}

describe('making a cluster from chosen points', () => {
  test('the points get a new key, counts move, and a reload sees it', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const before = await alice.request('GET', `/plots/${plot.id}/frames/0/clusters`);
    const etag = before.headers.get('etag')!;

    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'Selection 1', points: [0, 2, 3] }, 201);
    assert.deepEqual(made.cluster, {
      key: 4, label: 'Selection 1', color: categoricalColor(3), shape: 0, size: 1, visible: true, count: 3,
    });
    assert.deepEqual(countsOf(made.plot), { '1': 1, '2': 1, '3': 1, 'Selection 1': 3 });
    assert.deepEqual(await keysOf(plot.id), [4, 1, 4, 4, 2, 3]);

    const reloaded = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(reloaded.clusters, made.plot.clusters);
    assert.ok(reloaded.updatedAt > plot.updatedAt);
    const summary = (await alice.json('GET', '/plots?scope=mine')).items.find((p: any) => p.id === plot.id);
    assert.equal(summary.clusterCount, 4);

    // Caches must not keep the old keys: a new ETag, and revalidation instead of "immutable".
    const after = await alice.request('GET', `/plots/${plot.id}/frames/0/clusters`, undefined, { 'if-none-match': etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
    assert.match(after.headers.get('cache-control')!, /no-cache/);
    const fresh = after.headers.get('etag')!;
    assert.equal((await alice.request('GET', `/plots/${plot.id}/frames/0/clusters`, undefined, { 'if-none-match': fresh })).status, 304);
  });

  test('a cluster left without points stays with count 0; a second cluster takes the next key', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'just f', points: [5] }, 201);
    assert.equal(made.cluster.key, 4);
    assert.deepEqual(countsOf(made.plot), { '1': 2, '2': 3, '3': 0, 'just f': 1 });
    const second = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'e and f', points: [4, 5] }, 201);
    assert.equal(second.cluster.key, 5);
    assert.deepEqual(countsOf(second.plot), { '1': 2, '2': 2, '3': 0, 'just f': 0, 'e and f': 2 });
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 5, 5]);
  });

  test('the same points again answer 409 naming the made cluster, and leave no empty duplicate', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'Selection 1', points: [0, 2] }, 201);
    const again = await alice.request('POST', `/plots/${plot.id}/clusters`, { label: 'Selection 2', points: [2, 0] });
    const body = await again.json();
    assert.equal(again.status, 409);
    assert.equal(body.error.field, 'points');
    assert.match(body.error.message, /"Selection 1"/);
    const reloaded = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(countsOf(reloaded), { '1': 1, '2': 2, '3': 1, 'Selection 1': 2 });
    // A superset is a new cluster.
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'Selection 2', points: [0, 2, 3] }, 201);
  });

  test('concurrent requests on one plot get distinct keys', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const made = await Promise.all([0, 1, 2].map((i) => alice.json('POST', `/plots/${plot.id}/clusters`, { label: `c${i}`, points: [i] }, 201)));
    assert.deepEqual(made.map((m) => m.cluster.key).sort(), [4, 5, 6]);
    const reloaded = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(countsOf(reloaded), { '1': 0, '2': 2, '3': 1, c0: 1, c1: 1, c2: 1 });
  });

  test('the pviz export carries the new cluster', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'exported', points: [1, 4] }, 201);
    const exported = await alice.request('GET', `/plots/${plot.id}/export?format=pviz`);
    assert.equal(exported.status, 200);
    const again = await alice.uploaded('again.pviz', await bytes(exported));
    assert.deepEqual(countsOf(again), { '1': 1, '2': 2, '3': 1, exported: 2 });
    assert.deepEqual(await keysOf(again.id), [1, 4, 2, 2, 4, 3]);
  });

  test('bad requests answer 400 naming the field and change nothing', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const post = (body: unknown) => alice.request('POST', `/plots/${plot.id}/clusters`, body);
    await expectReply(await post({ label: 'x', points: [0, 6] }), 400, 'points');
    await expectReply(await post({ label: 'x', points: [1, 2, 1] }), 400, 'points');
    await expectReply(await post({ label: 'x', points: [-1] }), 400, 'points.0');
    await expectReply(await post({ label: 'x', points: [] }), 400, 'points');
    await expectReply(await post({ label: '  ', points: [0] }), 400, 'label');
    await expectReply(await post({ label: 'x', points: [0], frame: 1 }), 400, 'frame');
    await expectReply(await post({ label: 'x', points: [0], colour: 'red' }), 400);
    const reloaded = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(reloaded.clusters, plot.clusters);
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 2, 3]);
  });

  test('only the owner: others get 404 on a private plot, 403 on a public one; anonymous callers 401', async () => {
    const secret = await alice.uploaded('six.txt', SIX);
    const shared = await alice.uploaded('six.txt', SIX, { visibility: 'public' });
    const body = { label: 'mine now', points: [0] };
    await expectReply(await bob.request('POST', `/plots/${secret.id}/clusters`, body), 404);
    await expectReply(await bob.request('POST', `/plots/${shared.id}/clusters`, body), 403);
    await expectReply(await new Client(server.url).request('POST', `/plots/${shared.id}/clusters`, body), 401);
    assert.deepEqual(await keysOf(shared.id), [1, 1, 2, 2, 2, 3]);
  });
});

describe('choosing the points with a mask', () => {
  test('a base64 bitset over the frame chooses the same points as their indices', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    // Points 0, 2 and 3: bits 0, 2 and 3 of the one byte, 0b1101.
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'masked', mask: 'DQ==' }, 201);
    assert.deepEqual(countsOf(made.plot), { '1': 1, '2': 1, '3': 1, masked: 3 });
    assert.deepEqual(await keysOf(plot.id), [4, 1, 4, 4, 2, 3]);
  });

  test('175,000 of 200,000 points, past what indices fit in a request body', async () => {
    const count = 200_000;
    const plot = await alice.uploaded('large.txt', Array.from({ length: count }, (_, i) => `${i} ${i} 0 0 ${1 + (i % 3)}\n`).join(''));
    const stays = (i: number) => i % 8 === 0;
    const chosen = Array.from({ length: count }, (_, i) => i).filter((i) => !stays(i));
    assert.equal(chosen.length, 175_000);
    await expectReply(await alice.request('POST', `/plots/${plot.id}/clusters`, { label: 'as indices', points: chosen }), 413);

    const mask = encodeSelectionMask(chosen, count);
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'seven in eight', mask }, 201);
    const expected = Uint32Array.from({ length: count }, (_, i) => (stays(i) ? 1 + (i % 3) : 4));
    const left = (key: number) => expected.filter((k) => k === key).length;
    assert.deepEqual(countsOf(made.plot), { '1': left(1), '2': left(2), '3': left(3), 'seven in eight': 175_000 });
    assert.deepEqual(uints(await bytes(await alice.request('GET', `/plots/${plot.id}/frames/0/clusters`))), expected);
  });

  test('bad masks answer 400 naming the field and change nothing', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const post = (body: unknown) => alice.request('POST', `/plots/${plot.id}/clusters`, body);
    await expectReply(await post({ label: 'x', mask: 'AQI=' }), 400, 'mask'); // 2 bytes for 6 points
    await expectReply(await post({ label: 'x', mask: '' }), 400, 'mask');
    await expectReply(await post({ label: 'x', mask: 'AQ' }), 400, 'mask'); // unpadded
    await expectReply(await post({ label: 'x', mask: 'A$==' }), 400, 'mask');
    await expectReply(await post({ label: 'x', mask: 5 }), 400, 'mask');
    await expectReply(await post({ label: 'x', mask: 'QA==' }), 400, 'mask'); // bit 6: a seventh point
    await expectReply(await post({ label: 'x', mask: 'AA==' }), 400, 'mask'); // no point
    await expectReply(await post({ label: 'x', points: [0], mask: 'AQ==' }), 400, 'mask');
    await expectReply(await post({ label: 'x' }), 400, 'points');
    const reloaded = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(reloaded.clusters, plot.clusters);
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 2, 3]);
  });
});

describe('in a time series', () => {
  test('the cluster follows its points by label through every frame', async () => {
    // Frame 1 lists the points in another order; frame 2 lacks "b" and has a newcomer "z".
    const zip = await zipOf({
      '1.txt': '0 0 0 0 1 a\n1 1 0 0 1 b\n2 2 0 0 2 c\n3 3 0 0 2 d\n',
      '2.txt': '0 0 1 0 2 d\n1 1 1 0 2 c\n2 2 1 0 1 b\n3 3 1 0 1 a\n',
      '3.txt': '0 0 2 0 1 a\n1 1 2 0 2 z\n2 2 2 0 2 c\n3 3 2 0 2 d\n',
    });
    const plot = await alice.uploaded('series.zip', zip);
    assert.equal(plot.frames, 3);
    // Chosen in frame 1 (the second): "b" and "c".
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'b and c', points: [2, 1], frame: 1 }, 201);
    assert.equal(made.cluster.count, 5);
    assert.deepEqual(countsOf(made.plot), { '1': 3, '2': 4, 'b and c': 5 });
    assert.deepEqual(await keysOf(plot.id, 0), [1, 3, 3, 2]);
    assert.deepEqual(await keysOf(plot.id, 1), [2, 3, 3, 1]);
    assert.deepEqual(await keysOf(plot.id, 2), [1, 2, 3, 2]);
  });

  test('a mask chooses in its frame and the cluster follows by label', async () => {
    const zip = await zipOf({ '1.txt': '0 0 0 0 1 a\n1 1 0 0 1 b\n2 2 0 0 1 c\n', '2.txt': '0 0 1 0 1 c\n1 1 1 0 1 b\n2 2 1 0 1 a\n' });
    const plot = await alice.uploaded('series.zip', zip);
    // Points 0 and 1 of frame 1: "c" and "b".
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'b and c', mask: 'Aw==', frame: 1 }, 201);
    assert.equal(made.cluster.count, 4);
    assert.deepEqual(await keysOf(plot.id, 0), [1, 2, 2]);
    assert.deepEqual(await keysOf(plot.id, 1), [2, 2, 1]);
  });

  test('a repeated label: the point at the same index when it is there, else the first with the label', async () => {
    const zip = await zipOf({ '1.txt': '0 0 0 0 1 a\n1 1 0 0 1 b\n2 2 0 0 1 a\n', '2.txt': '0 0 1 0 1 b\n1 1 1 0 1 a\n2 2 1 0 1 a\n', '3.txt': '0 0 1 0 1 a\n1 1 1 0 1 a\n2 2 1 0 1 b\n' });
    const plot = await alice.uploaded('series.zip', zip);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'second a', points: [2] }, 201);
    assert.deepEqual(await keysOf(plot.id, 0), [1, 1, 2]);
    assert.deepEqual(await keysOf(plot.id, 1), [1, 1, 2]);
    assert.deepEqual(await keysOf(plot.id, 2), [2, 1, 1]);
  });

  test('unlabelled points are matched by their index', async () => {
    const zip = await zipOf({ '1.txt': '0 0 0 0 1\n1 1 0 0 1\n2 2 0 0 1\n', '2.txt': '0 0 1 0 1\n1 1 1 0 1\n2 2 1 0 1\n' });
    const plot = await alice.uploaded('series.zip', zip);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'middle', points: [1] }, 201);
    assert.deepEqual(await keysOf(plot.id, 0), [1, 2, 1]);
    assert.deepEqual(await keysOf(plot.id, 1), [1, 2, 1]);
  });
});

describe('deleting a made cluster and undoing cluster edits', () => {
  const edits = (id: string) => alice.json('GET', `/plots/${id}/clusters/edits`);

  test("a clustering job's silhouettes leave the clusters an edit changes and stay on the others", async () => {
    const { Plots } = await import('../src/services/plots.ts');
    const plots = new Plots(server.store, server.config.limits);
    const silhouettes = [0.8, 0.5, 0.1];
    const parsed = {
      title: 'job', warnings: [],
      clusters: [1, 2, 3].map((key) => ({ key, label: `cluster ${key}`, color: null, shape: 0, size: 1, visible: true, silhouette: silhouettes[key - 1] })),
      frames: [{ title: 'job', positions: new Float32Array(18), clusterKeys: Uint32Array.from([1, 1, 2, 2, 2, 3]), labels: ['a', 'b', 'c', 'd', 'e', 'f'], edges: [] }],
    };
    const plot = await plots.ingestParsed('alice', parsed, { description: '', visibility: 'private', tags: [] }, { format: 'text', originalName: 'job' });
    const silhouetteOf = (p: any) => Object.fromEntries(p.clusters.map((c: any) => [c.label, c.silhouette]));
    assert.deepEqual(silhouetteOf(await alice.json('GET', `/plots/${plot.id}`)), { 'cluster 1': 0.8, 'cluster 2': 0.5, 'cluster 3': 0.1 });
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'picked', points: [0, 2] }, 201);
    assert.deepEqual(silhouetteOf(made.plot), { 'cluster 1': undefined, 'cluster 2': undefined, 'cluster 3': 0.1, picked: undefined });
    assert.deepEqual(silhouetteOf(await alice.json('GET', `/plots/${plot.id}`)), silhouetteOf(made.plot));
  });

  test("a deleted cluster's points return to the clusters they had before it; undo brings it back", async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const a = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'A', points: [0, 2, 3] }, 201);
    assert.deepEqual(await keysOf(plot.id), [4, 1, 4, 4, 2, 3]);
    let list = await edits(plot.id);
    assert.deepEqual(list.edits.map((e: any) => [e.kind, e.label, e.key]), [['make', 'A', 4]]);
    assert.deepEqual(list.made, [4]);

    const deleted = await alice.json('DELETE', `/plots/${plot.id}/clusters/${a.cluster.key}`);
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 2, 3]);
    assert.deepEqual(countsOf(deleted.plot), { '1': 2, '2': 3, '3': 1 });
    assert.deepEqual(deleted.changes, [{ frame: 0, points: [0, 2, 3], keys: [1, 2, 2] }]);
    assert.deepEqual(deleted.edits.map((e: any) => e.kind), ['make', 'delete']);
    assert.deepEqual(deleted.made, []);

    const undone = await alice.json('POST', `/plots/${plot.id}/clusters/undo`, { edit: deleted.edits[1].id });
    assert.deepEqual(await keysOf(plot.id), [4, 1, 4, 4, 2, 3]);
    assert.deepEqual(undone.plot.clusters, a.plot.clusters); // the same row, colour and place in the table
    assert.deepEqual(undone.changes, [{ frame: 0, points: [0, 2, 3], keys: [4, 4, 4] }]);

    // Undoing the make: as before it, and nothing left to undo.
    const unmade = await alice.json('POST', `/plots/${plot.id}/clusters/undo`, { edit: undone.edits[0].id });
    assert.deepEqual(unmade.plot.clusters, plot.clusters);
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 2, 3]);
    list = await edits(plot.id);
    assert.deepEqual(list, { edits: [], made: [] });
    await expectReply(await alice.request('POST', `/plots/${plot.id}/clusters/undo`, { edit: 'x' }), 409, 'edit');
    // Its key is free again; no edit blob is left (afterEach checks chunks).
    assert.equal((await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'B', points: [1] }, 201)).cluster.key, 4);
    const blobs = await server.store.blobs.meta.countDocuments({ plotId: plot.id, _id: { $regex: 'cluster-(origins|edits)' } });
    assert.equal(blobs, 1); // B's origin
  });

  test('a cluster made over part of another: deleting the older one, then the newer, ends where it began', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'A', points: [0, 1, 2] }, 201); // key 4
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'B', points: [1, 2, 5] }, 201); // key 5, over part of A
    assert.deepEqual(await keysOf(plot.id), [4, 5, 5, 2, 2, 5]);
    await alice.json('DELETE', `/plots/${plot.id}/clusters/4`);
    assert.deepEqual(await keysOf(plot.id), [1, 5, 5, 2, 2, 5]);
    // B's points 1 and 2 came from A, which is gone: they go back to where A took them from.
    const last = await alice.json('DELETE', `/plots/${plot.id}/clusters/5`);
    assert.deepEqual(await keysOf(plot.id), [1, 1, 2, 2, 2, 3]);
    assert.deepEqual(countsOf(last.plot), { '1': 2, '2': 3, '3': 1 });
  });

  test('in a time series, the points return in every frame', async () => {
    const zip = await zipOf({
      '1.txt': '0 0 0 0 1 a\n1 1 0 0 1 b\n2 2 0 0 2 c\n3 3 0 0 2 d\n',
      '2.txt': '0 0 1 0 2 d\n1 1 1 0 2 c\n2 2 1 0 2 b\n3 3 1 0 1 a\n',
    });
    const plot = await alice.uploaded('series.zip', zip);
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'b and c', points: [1, 2] }, 201);
    assert.deepEqual([await keysOf(plot.id, 0), await keysOf(plot.id, 1)], [[1, 3, 3, 2], [2, 3, 3, 1]]);
    const deleted = await alice.json('DELETE', `/plots/${plot.id}/clusters/${made.cluster.key}`);
    assert.deepEqual([await keysOf(plot.id, 0), await keysOf(plot.id, 1)], [[1, 1, 2, 2], [2, 2, 2, 1]]);
    assert.deepEqual(deleted.changes, [{ frame: 0, points: [1, 2], keys: [1, 2] }, { frame: 1, points: [1, 2], keys: [2, 2] }]);
  });

  test("undo names the edit it means: another tab's newer edit is not undone by mistake", async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    const first = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'tab 1', points: [0] }, 201);
    const seen = (await edits(plot.id)).edits.at(-1).id; // what tab 1 would undo
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'tab 2', points: [5] }, 201);
    const stale = await alice.request('POST', `/plots/${plot.id}/clusters/undo`, { edit: seen });
    const body = await stale.json();
    assert.equal(stale.status, 409);
    assert.equal(body.error.code, 'stale_edit');
    assert.match(body.error.message, /"tab 2"/);
    assert.equal((await alice.json('GET', `/plots/${plot.id}`)).clusters.length, first.plot.clusters.length + 1);
  });

  test('undo keeps the last 20 edits; older made clusters can still be deleted', async () => {
    const plot = await alice.uploaded('six.txt', SIX);
    for (let i = 0; i < 22; i++) await alice.json('POST', `/plots/${plot.id}/clusters`, { label: `c${i}`, points: [i % 6, (i + 1) % 6] }, 201);
    const list = await edits(plot.id);
    assert.equal(list.edits.length, 20);
    assert.equal(list.edits[0].label, 'c2');
    assert.equal(list.made.length, 22); // older made clusters can still be deleted
  });

  test('file clusters cannot be deleted; bad keys name the field; only the owner edits', async () => {
    const plot = await alice.uploaded('six.txt', SIX, { visibility: 'public' });
    await expectReply(await alice.request('DELETE', `/plots/${plot.id}/clusters/1`), 422, 'key');
    await expectReply(await alice.request('DELETE', `/plots/${plot.id}/clusters/99`), 404, 'key');
    await expectReply(await alice.request('DELETE', `/plots/${plot.id}/clusters/one`), 400, 'key');
    await expectReply(await alice.request('POST', `/plots/${plot.id}/clusters/undo`, {}), 400, 'edit');
    const made = await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'mine', points: [0] }, 201);
    await expectReply(await bob.request('DELETE', `/plots/${plot.id}/clusters/${made.cluster.key}`), 403);
    await expectReply(await bob.request('GET', `/plots/${plot.id}/clusters/edits`), 403);
    await expectReply(await new Client(server.url).request('POST', `/plots/${plot.id}/clusters/undo`, { edit: 'x' }), 401);
    assert.deepEqual(await keysOf(plot.id), [4, 1, 2, 2, 2, 3]);
  });
});
