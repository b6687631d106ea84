// /plots/{id}/selections: named selections saved with a plot, against the real store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeSelectionMask } from '@wpv/schema';
import { MAX_SELECTIONS } from '../src/services/selections.ts';
import { Client, expectReply, signedIn, startServer, type TestServer, zipOf } from './harness.ts';

let server: TestServer;
let alice: Client;
let bob: Client;
let anonymous: Client;
before(async () => {
  server = await startServer();
  alice = await signedIn(server.url, 'alice');
  bob = await signedIn(server.url, 'bob');
  anonymous = new Client(server.url);
});
after(() => server.close());

// 20 points in frame 0 of a two-frame series; frame 1 has 3 points.
const TWENTY = Array.from({ length: 20 }, (_, i) => `${i} ${i} 0 0 1 p${i}`).join('\n') + '\n';

describe('named selections', () => {
  test('are listed by name, not by scanning every blob stored (FerretDB reads the whole table for any filter but _id); a plot stored before blob names were listed still lists them', async () => {
    const plot = await alice.uploaded('twenty.txt', TWENTY);
    const base = `/plots/${plot.id}/selections`;
    for (const name of ['b', 'a', 'gone']) await alice.json('PUT', `${base}/${name}`, { indices: [1] }, 201);
    await alice.json('PUT', `${base}/a`, { indices: [2, 3] }); // replaced: listed once
    assert.equal((await alice.request('DELETE', `${base}/gone`)).status, 204);
    const { meta } = server.store.blobs;
    const find = meta.find;
    const filters: unknown[] = [];
    meta.find = ((filter: unknown, ...rest: unknown[]) => { filters.push(filter); return (find as Function).call(meta, filter, ...rest); }) as typeof find;
    try {
      assert.deepEqual((await alice.json('GET', base)).map((s: { name: string; count: number }) => [s.name, s.count]), [['a', 2], ['b', 1]]);
    } finally {
      meta.find = find;
    }
    const byName = (filter: any) => Object.keys(filter).length === 1 && typeof filter._id === 'string'; // as findOne asks through find
    assert.deepEqual(filters.filter((f) => !byName(f)), [], 'the blob metadata is looked up by _id only');
    await server.store.db.collection('blob_directory').deleteOne({ _id: `${plot.id}#0` as never });
    assert.deepEqual((await alice.json('GET', base)).map((s: { name: string }) => s.name), ['a', 'b']);
  });

  test('saved as indices or mask, listed, read back both ways, replaced and deleted', async () => {
    const plot = await alice.uploaded('twenty.txt', TWENTY);
    const base = `/plots/${plot.id}/selections`;
    assert.deepEqual(await alice.json('GET', base), []);

    const made = await alice.json('PUT', `${base}/outliers`, { indices: [17, 3, 0] }, 201);
    assert.equal(made.name, 'outliers');
    assert.equal(made.count, 3);
    assert.equal(made.frame, 0);
    const read = await alice.json('GET', `${base}/outliers`);
    assert.deepEqual(read.indices, [0, 3, 17], 'indices come back ascending');
    const masked = await alice.json('GET', `${base}/outliers?encoding=mask`);
    assert.equal(masked.mask, encodeSelectionMask([0, 3, 17], 20));
    assert.equal(masked.indices, undefined);

    const mask = encodeSelectionMask([1, 2, 19], 20);
    await alice.json('PUT', `${base}/Left side.v2`, { mask }, 201);
    const listed = await alice.json('GET', base);
    assert.deepEqual(listed.map((s: any) => [s.name, s.count]), [['Left side.v2', 3], ['outliers', 3]]);
    assert.deepEqual((await alice.json('GET', `${base}/${encodeURIComponent('Left side.v2')}`)).indices, [1, 2, 19]);

    const replaced = await alice.json('PUT', `${base}/outliers`, { indices: [5] }, 200);
    assert.equal(replaced.count, 1);
    assert.deepEqual((await alice.json('GET', `${base}/outliers`)).indices, [5]);
    // An empty selection is a selection too (the viewer may save "nothing selected yet").
    assert.equal((await alice.json('PUT', `${base}/empty`, { indices: [] }, 201)).count, 0);

    await alice.json('DELETE', `${base}/outliers`, undefined, 204);
    await expectReply(await alice.request('GET', `${base}/outliers`), 404, undefined, 'not_found');
    await expectReply(await alice.request('DELETE', `${base}/outliers`), 404);
    assert.deepEqual((await alice.json('GET', base)).map((s: any) => s.name), ['Left side.v2', 'empty']);
  });

  test('a time-series selection belongs to its frame and is checked against that frame', async () => {
    const zip = await zipOf({ 'a.txt': TWENTY, 'b.txt': '0 0 0 0 1 p0\n1 1 0 0 1 p1\n2 2 0 0 1 p2\n' });
    const plot = await alice.uploaded('series.zip', zip);
    const base = `/plots/${plot.id}/selections`;
    assert.equal((await alice.json('PUT', `${base}/tail`, { frame: 1, indices: [2] }, 201)).frame, 1);
    await expectReply(await alice.request('PUT', `${base}/tail`, { frame: 1, indices: [3] }), 400, 'indices');
    await expectReply(await alice.request('PUT', `${base}/tail`, { frame: 1, mask: encodeSelectionMask([0], 20) }), 400, 'mask');
    await expectReply(await alice.request('PUT', `${base}/tail`, { frame: 2, indices: [0] }), 400, 'frame');
    assert.deepEqual((await alice.json('GET', `${base}/tail`)).indices, [2], 'a rejected write leaves the old one');
  });

  test('bad names, indices and masks answer 400 naming the field', async () => {
    const plot = await alice.uploaded('twenty.txt', TWENTY);
    const base = `/plots/${plot.id}/selections`;
    await expectReply(await alice.request('PUT', `${base}/${encodeURIComponent('../x')}`, { indices: [1] }), 400, 'name');
    await expectReply(await alice.request('PUT', `${base}/${'n'.repeat(101)}`, { indices: [1] }), 400, 'name');
    await expectReply(await alice.request('GET', `${base}/${encodeURIComponent(' lead')}`), 400, 'name');
    await expectReply(await alice.request('PUT', `${base}/s`, { indices: [20] }), 400, 'indices');
    await expectReply(await alice.request('PUT', `${base}/s`, { indices: [1, 1] }), 400, 'indices');
    await expectReply(await alice.request('PUT', `${base}/s`, { indices: [-1] }), 400, 'indices.0');
    await expectReply(await alice.request('PUT', `${base}/s`, {}), 400, 'indices');
    await expectReply(await alice.request('PUT', `${base}/s`, { indices: [1], mask: encodeSelectionMask([1], 20) }), 400, 'mask');
    await expectReply(await alice.request('PUT', `${base}/s`, { mask: 'not base64!' }), 400, 'mask');
    // 3 bytes where 20 points take 3, but a bit past point 19 set.
    await expectReply(await alice.request('PUT', `${base}/s`, { mask: Buffer.from([0, 0, 0x10]).toString('base64') }), 400, 'mask');
    await expectReply(await alice.request('PUT', `${base}/s`, { indices: [1], colour: 'red' }), 400);
    await expectReply(await alice.request('GET', `${base}/s?encoding=bits`), 400, 'encoding');
    assert.deepEqual(await alice.json('GET', base), [], 'nothing was stored');
  });

  test('caps: past the count 422, past the body size 413', async () => {
    const plot = await alice.uploaded('twenty.txt', TWENTY);
    const base = `/plots/${plot.id}/selections`;
    for (let n = 0; n < MAX_SELECTIONS; n++) await alice.json('PUT', `${base}/s${n}`, { indices: [n % 20] }, 201);
    await expectReply(await alice.request('PUT', `${base}/one-more`, { indices: [0] }), 422, 'name', 'too_many_selections');
    await alice.json('PUT', `${base}/s0`, { indices: [1] }, 200); // replacing is still allowed
    assert.equal((await alice.json('GET', base)).length, MAX_SELECTIONS);

    const big = await alice.uploaded('big.csv', 'x,y\n' + '1,2\n'.repeat(200_000));
    const indices = Array.from({ length: 200_000 }, (_, i) => i);
    await expectReply(await alice.request('PUT', `/plots/${big.id}/selections/all`, { indices }), 413, undefined, 'too_large');
    // The same selection as a mask is 34 kB.
    const all = await alice.json('PUT', `/plots/${big.id}/selections/all`, { mask: encodeSelectionMask(indices, 200_000) }, 201);
    assert.equal(all.count, 200_000);
    assert.equal((await alice.json('GET', `/plots/${big.id}/selections/all`)).indices.length, 200_000);
  });

  test('owner writes, readers read, private plots are invisible, deleting the plot deletes them', async () => {
    const shared = await alice.uploaded('shared.txt', TWENTY, { visibility: 'public' });
    const secret = await alice.uploaded('secret.txt', TWENTY);
    await alice.json('PUT', `/plots/${shared.id}/selections/mine`, { indices: [4] }, 201);
    await alice.json('PUT', `/plots/${secret.id}/selections/mine`, { indices: [4] }, 201);

    for (const reader of [bob, anonymous]) {
      assert.deepEqual((await reader.json('GET', `/plots/${shared.id}/selections/mine`)).indices, [4]);
      assert.equal((await reader.json('GET', `/plots/${shared.id}/selections`)).length, 1);
      await expectReply(await reader.request('GET', `/plots/${secret.id}/selections`), 404);
      await expectReply(await reader.request('GET', `/plots/${secret.id}/selections/mine`), 404);
    }
    await expectReply(await bob.request('PUT', `/plots/${shared.id}/selections/mine`, { indices: [1] }), 403);
    await expectReply(await bob.request('DELETE', `/plots/${shared.id}/selections/mine`), 403);
    await expectReply(await bob.request('PUT', `/plots/${secret.id}/selections/x`, { indices: [1] }), 404);
    await expectReply(await anonymous.request('PUT', `/plots/${shared.id}/selections/x`, { indices: [1] }), 401);

    await alice.json('DELETE', `/plots/${secret.id}`, undefined, 204);
    await server.plots.removalsDone();
    assert.equal(await server.store.blobs.meta.countDocuments({ plotId: secret.id }), 0);
    await expectReply(await alice.request('GET', `/plots/${secret.id}/selections/mine`), 404);
  });

  test('the OpenAPI document describes the routes', async () => {
    const doc = await anonymous.json('GET', '/openapi.json');
    const path = doc.paths['/plots/{id}/selections/{name}'];
    assert.deepEqual(Object.keys(path).sort(), ['delete', 'get', 'put']);
    assert.ok(path.put.requestBody.content['application/json'].schema.properties.mask);
    assert.ok(doc.paths['/plots/{id}/selections'].get);
  });
});
