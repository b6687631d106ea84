// /plots/{id}/tree: a Newick tree attached to a plot, against the real store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cutTree } from '@wpv/schema';
import { Client, expectReply, signedIn, startServer, type TestServer } from './harness.ts';
import { plantedTree } from './trees/planted.ts';

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

const putTree = (client: Client, plotId: string, newick: string, name = 'tree.nwk') => {
  const form = new FormData();
  form.set('file', new Blob([newick]), name);
  return client.request('PUT', `/plots/${plotId}/tree`, form);
};

describe('a plot\'s tree', () => {
  test('attached by the owner, read back with its leaves at their points, replaced, deleted', async () => {
    const planted = plantedTree([4, 6, 5]);
    const plot = await alice.uploaded('planted.txt', planted.points);
    assert.equal(await alice.json('GET', `/plots/${plot.id}/tree`), null, 'no tree: 200 null, nothing for a browser to log');

    const info = await expectReply(await putTree(alice, plot.id, planted.newick, 'planted.nwk'), 201);
    assert.deepEqual({ ...info, uploadedAt: undefined }, { originalName: 'planted.nwk', root: 'file', uploadedAt: undefined, leaves: 15, matched: 15, unmatched: [] });
    const tree = await alice.json('GET', `/plots/${plot.id}/tree`);
    const labels: string[] = await alice.json('GET', `/plots/${plot.id}/frames/0/labels`);
    tree.nodes.point.forEach((p: number, i: number) => { if (p >= 0) assert.equal(labels[p], tree.nodes.name[i]); });
    const { clades, cladeOf } = cutTree(tree.nodes, 3);
    assert.equal(clades.length, 3);
    // Each planted group is one clade (the points' x says their group: 100 apart).
    const groupOfClade = new Map<number, string>();
    tree.nodes.point.forEach((p: number, i: number) => {
      if (p < 0) return;
      const group = labels[p]!.split('_')[0]!;
      assert.equal(groupOfClade.get(cladeOf[i]!) ?? group, group);
      groupOfClade.set(cladeOf[i]!, group);
    });

    // A public plot's tree is read by anyone; only the owner writes it.
    await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public' });
    assert.equal((await anonymous.json('GET', `/plots/${plot.id}/tree`)).leaves, 15);
    await expectReply(await putTree(bob, plot.id, planted.newick), 403);
    await expectReply(await bob.request('DELETE', `/plots/${plot.id}/tree`), 403);

    const replaced = await expectReply(await putTree(alice, plot.id, '((g0_s0,g0_s1),(g1_s0,other));'), 200);
    assert.deepEqual([replaced.leaves, replaced.matched, replaced.unmatched], [4, 3, ['other']]);
    assert.equal((await alice.json('GET', `/plots/${plot.id}/tree`)).nodes.parent.length, 5);

    await alice.json('DELETE', `/plots/${plot.id}/tree`, undefined, 204);
    assert.equal(await alice.json('GET', `/plots/${plot.id}/tree`), null);
    await expectReply(await alice.request('DELETE', `/plots/${plot.id}/tree`), 404);
  });

  test('a private plot\'s tree is 404 to a stranger, for reading and writing', async () => {
    const plot = await alice.uploaded('p.txt', '0 0 0 0 0 a\n1 1 1 1 0 b\n');
    await expectReply(await putTree(alice, plot.id, '(a,b);'), 201);
    await expectReply(await bob.request('GET', `/plots/${plot.id}/tree`), 404, undefined, 'not_found');
    await expectReply(await anonymous.request('GET', `/plots/${plot.id}/tree`), 404);
    await expectReply(await putTree(bob, plot.id, '(a,b);'), 404);
    await expectReply(await bob.request('DELETE', `/plots/${plot.id}/tree`), 404);
    await expectReply(await putTree(anonymous, plot.id, '(a,b);'), 401);
  });

  test('a bad file: 400 naming the file with its line and column; unmatched leaves: 422 naming them', async () => {
    const plot = await alice.uploaded('p.txt', '0 0 0 0 0 a\n1 1 1 1 0 b\n2 2 2 2 0 b\n');
    const bad = await expectReply(await putTree(alice, plot.id, '(a,\n  b:0.1;'), 400, 'file', 'bad_newick');
    assert.equal(bad.error.message, 'file: line 2, column 8: ";" before every "(" is closed');
    assert.equal(bad.error.line, 2);
    await expectReply(await putTree(alice, plot.id, ''), 400, 'file', 'empty_file');
    await expectReply(await alice.request('PUT', `/plots/${plot.id}/tree`, new FormData()), 400, 'file');
    await expectReply(await putTree(alice, plot.id, '(a,c);'), 201);
    const binary = new FormData();
    binary.set('file', new Blob([new Uint8Array([0x28, 0x61, 0x2c, 0xff, 0x29, 0x3b])]), 't.nwk');
    await expectReply(await alice.request('PUT', `/plots/${plot.id}/tree`, binary), 400, 'file', 'not_utf8');
    const none = await expectReply(await putTree(alice, plot.id, '(x,(y,z));'), 422, 'file', 'no_matching_leaves');
    assert.equal(none.error.message, 'file: no leaf name is a point label (leaves: "x", "y", "z"; points: "a", "b", "b")');
    const shared = await expectReply(await putTree(alice, plot.id, '(a,b);'), 422, 'file', 'ambiguous_leaf');
    assert.match(shared.error.message, /"b"/);
    // The tree stored before the refusals is still there.
    assert.equal((await alice.json('GET', `/plots/${plot.id}/tree`)).matched, 1);
  });

  test('root=midpoint roots an unrooted tree at its midpoint; another root is a 400 naming root', async () => {
    const plot = await alice.uploaded('p.txt', ['a1', 'a2', 'a3', 'b1', 'b2'].map((l, i) => `${i} ${i} 0 0 0 ${l}`).join('\n') + '\n');
    const unrooted = '(a1:1,a2:1,(a3:0.5,(b1:1,b2:1):6):0.5);';
    const form = (root?: string) => {
      const f = new FormData();
      f.set('file', new Blob([unrooted]), 'fasttree.nwk');
      if (root) f.set('root', root);
      return f;
    };
    assert.equal((await expectReply(await alice.request('PUT', `/plots/${plot.id}/tree`, form('midpoint')), 201)).root, 'midpoint');
    const tree = await alice.json('GET', `/plots/${plot.id}/tree`);
    const { clades } = cutTree(tree.nodes, 2);
    const leafNames = (node: number) => tree.nodes.name.filter((_: string, i: number) => {
      for (let j = i; j >= 0; j = tree.nodes.parent[j]) if (j === node) return tree.nodes.point[i] >= 0;
      return false;
    }).sort();
    assert.deepEqual(clades.map(leafNames), [['a1', 'a2', 'a3'], ['b1', 'b2']]);
    assert.equal((await expectReply(await alice.request('PUT', `/plots/${plot.id}/tree`, form()), 200)).root, 'file');
    await expectReply(await alice.request('PUT', `/plots/${plot.id}/tree`, form('outgroup')), 400, 'root');
  });

  test('the OpenAPI document describes the tree routes and the upload\'s fields', async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    const path = doc.paths['/plots/{id}/tree'];
    assert.deepEqual(Object.keys(path).sort(), ['delete', 'get', 'put']);
    const form = path.put.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(form.required, ['file']);
    assert.deepEqual(form.properties.root.enum, ['file', 'midpoint']);
  });

  test('the tree goes with its plot', async () => {
    const plot = await alice.uploaded('p.txt', '0 0 0 0 0 a\n1 1 1 1 0 b\n');
    await expectReply(await putTree(alice, plot.id, '(a,b);'), 201);
    await alice.json('DELETE', `/plots/${plot.id}`, undefined, 204);
    await server.plots.removalsDone();
    assert.equal(await server.store.blobs.find(`${plot.id}/tree`), null);
  });
});
