// Concurrent changes to one plot: FerretDB (SQLite) applies concurrent updates of one document
// by read-modify-write, so links kept on the parent's document were lost when re-clusterings
// finished together, and a thumbnail's flag, or a deleted collection's clearing, set during a
// rename could undo it (or be undone).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parseFile } from '../src/formats/index.ts';
import { Collections } from '../src/services/collections.ts';
import { Plots } from '../src/services/plots.ts';
import { drawThumbnail } from '../src/services/thumbnails.ts';
import type { Store } from '../src/storage/db.ts';
import { Client, startServer, type TestServer } from './harness.ts';

const TEXT = '# index x y z cluster\n0 1.5 2 3 1\n1 -1 0.25 4 2\n2 7 8 9 1\n';

let server: TestServer;
let alice: Client;
let bob: Client;
before(async () => {
  server = await startServer();
  alice = new Client(server.url);
  await alice.signUp('alice');
  bob = new Client(server.url);
  await bob.signUp('bob');
});
after(() => server.close());

/** A re-clustering of `parent` stored as a recluster job's assemble stage stores it. */
async function child(plots: Plots, owner: string, parent: string, visibility: 'private' | 'public' = 'private'): Promise<string> {
  const file = path.join(os.tmpdir(), `wpv-links-${process.pid}.txt`);
  await writeFile(file, TEXT);
  const parsed = { ...(await parseFile(file, 'child.txt', { maxPoints: 100, maxFrames: 1, maxUncompressedBytes: 1e6, maxCompressionRatio: 100 })), parent };
  return (await plots.ingestParsed(owner, parsed, { description: '', visibility, tags: [] }, { format: 'text', originalName: 'child.txt' })).id;
}

test('re-clusterings finishing together, while the owner renames the parent, are all linked, and the rename kept', async () => {
  const plots = new Plots(server.store, server.config.limits);
  const parent = (await alice.uploaded('points.txt', TEXT, { visibility: 'public' })).id;
  const [children] = await Promise.all([
    Promise.all(Array.from({ length: 6 }, () => child(plots, 'alice', parent))),
    alice.json('PATCH', `/plots/${parent}`, { name: 'renamed while linking' }),
  ]);
  const shown = await alice.json('GET', `/plots/${parent}`);
  assert.equal(shown.name, 'renamed while linking');
  assert.deepEqual([...shown.children].sort(), [...children].sort());
  for (const id of children) assert.equal((await alice.json('GET', `/plots/${id}`)).parent, parent);

  // Others see the public re-clusterings only; a deleted one is no longer listed.
  const open = await child(plots, 'alice', parent, 'public');
  assert.deepEqual((await bob.json('GET', `/plots/${parent}`)).children, [open]);
  assert.equal((await alice.request('DELETE', `/plots/${children[0]}`)).status, 204);
  assert.deepEqual([...(await alice.json('GET', `/plots/${parent}`)).children].sort(), [...children.slice(1), open].sort());

  // The parent deleted: its re-clusterings stay, and no longer name it.
  assert.equal((await alice.request('DELETE', `/plots/${parent}`)).status, 204);
  assert.equal((await alice.json('GET', `/plots/${open}`)).parent, undefined);
  assert.equal((await server.store.db.collection('plot_links').countDocuments({ parent })), 0, 'its links went with it');
});

test('a private parent is not named to others; a plot without re-clusterings lists none', async () => {
  const plots = new Plots(server.store, server.config.limits);
  const parent = (await alice.uploaded('points.txt', TEXT)).id;
  const open = await child(plots, 'alice', parent, 'public');
  assert.equal((await bob.json('GET', `/plots/${open}`)).parent, undefined);
  assert.equal((await alice.json('GET', `/plots/${open}`)).parent, parent);
  assert.equal((await alice.json('GET', `/plots/${open}`)).children, undefined);
});

test('a plot stored with a list of re-clusterings (before links) has them moved to links once', async () => {
  const plots = new Plots(server.store, server.config.limits);
  const parent = (await alice.uploaded('points.txt', TEXT)).id;
  const linked = await child(plots, 'alice', parent);
  const listed = [(await alice.uploaded('points.txt', TEXT)).id, linked];
  await server.store.plots.updateOne({ _id: parent }, { $set: { children: listed } } as object);
  assert.equal(await plots.moveChildLists(), 1);
  assert.equal(await plots.moveChildLists(), 0, 'once');
  assert.deepEqual((await alice.json('GET', `/plots/${parent}`)).children, [linked, listed[0]]);
  assert.equal(((await server.store.plots.findOne({ _id: parent })) as Record<string, unknown>).children, undefined);
});

test('a rename and a thumbnail arriving together are both kept', async () => {
  const png = Buffer.from(drawThumbnail(new Float32Array([0, 0, 0, 1, 1, 1]), new Uint32Array([0, 1]), []));
  for (let round = 0; round < 10; round++) {
    const plot = (await alice.uploaded('points.txt', TEXT)).id;
    await Promise.all([
      alice.json('PATCH', `/plots/${plot}`, { name: `renamed ${round}` }),
      alice.request('PUT', `/plots/${plot}/thumbnail`, png, { 'content-type': 'image/png' }).then((res) => assert.equal(res.status, 204)),
      alice.json('PATCH', `/plots/${plot}`, { tags: ['late'] }),
    ]);
    const shown = await alice.json('GET', `/plots/${plot}`);
    assert.deepEqual([shown.name, shown.hasThumbnail, shown.tags], [`renamed ${round}`, true, ['late']], `round ${round}`);
  }
});

test('deleting a collection while its plots are renamed keeps the renames and empties the collection', async () => {
  for (let round = 0; round < 5; round++) {
    const collection = await alice.json('POST', '/collections', { name: `c${round}`, description: '' }, 201);
    const members = await Promise.all(Array.from({ length: 4 }, async () => (await alice.uploaded('points.txt', TEXT, { collection: collection.id })).id));
    await Promise.all([
      alice.request('DELETE', `/collections/${collection.id}`).then((res) => assert.equal(res.status, 204)),
      ...members.map((id, k) => alice.json('PATCH', `/plots/${id}`, { name: `member ${k}` })),
    ]);
    for (const [k, id] of members.entries()) {
      const shown = await alice.json('GET', `/plots/${id}`);
      assert.deepEqual([shown.name, shown.collection], [`member ${k}`, null], `round ${round}, plot ${k}`);
    }
  }
});

/**
 * A store whose plots' `op` of a plot into a collection waits until `release` resolves: the
 * write lands after a delete of the collection that began after the plot's check of it.
 */
function heldStore(op: 'updateOne' | 'insertOne', release: Promise<unknown>): Store {
  const plots = server.store.plots;
  const intoCollection = (args: unknown[]) => {
    const doc = (op === 'updateOne' ? (args[1] as { $set?: { collection?: unknown } }).$set : args[0]) as { collection?: unknown } | undefined;
    return typeof doc?.collection === 'string';
  };
  const held = new Proxy(plots, {
    get: (target, prop) => {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop !== op) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (intoCollection(args)) await release;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ...server.store, plots: held };
}

test('a plot moved into a collection while it is deleted does not keep naming it', async () => {
  const { id, owner } = await alice.uploaded('points.txt', TEXT);
  let deleted!: () => void;
  const store = heldStore('updateOne', new Promise<void>((resolve) => (deleted = resolve)));
  const plots = new Plots(store, server.config.limits);
  const collections = new Collections(store, plots);
  const collection = await collections.create(owner, { name: 'going', description: '' });
  // The move checks the collection, then its write waits until the delete (which finds no member yet) is done.
  const moved = plots.patch(id, owner, { name: 'moved', collection: collection.id });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await collections.delete(collection.id, owner);
  deleted();
  assert.deepEqual([(await moved).name, (await moved).collection], ['moved', null], 'the rest of the patch stands');
  assert.equal((await alice.json('GET', `/plots/${id}`)).collection, null);
});

test('a plot uploaded into a collection while it is deleted is in none, and says so', async () => {
  const { owner } = await alice.uploaded('points.txt', TEXT);
  let deleted!: () => void;
  const store = heldStore('insertOne', new Promise<void>((resolve) => (deleted = resolve)));
  const plots = new Plots(store, server.config.limits);
  const collections = new Collections(store, plots);
  const collection = await collections.create(owner, { name: 'going', description: '' });
  const file = path.join(os.tmpdir(), `wpv-collection-${process.pid}.txt`);
  await writeFile(file, TEXT);
  const parsed = await parseFile(file, 'late.txt', { maxPoints: 100, maxFrames: 1, maxUncompressedBytes: 1e6, maxCompressionRatio: 100 });
  const uploaded = plots.ingestParsed(owner, parsed, { description: '', visibility: 'private', tags: [], collection: collection.id }, { format: 'text', originalName: 'late.txt' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await collections.delete(collection.id, owner);
  deleted();
  const created = await uploaded;
  assert.equal(created.collection, null);
  assert.match(created.warnings.join('\n'), new RegExp(`collection ${collection.id} was deleted during the upload`));
  assert.equal((await alice.json('GET', `/plots/${created.id}`)).collection, null);
});
