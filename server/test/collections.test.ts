import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectReply, signedIn, startServer, type Client, type TestServer } from './harness.ts';

let server: TestServer;
let alice: Client;
before(async () => {
  server = await startServer();
  alice = await signedIn(server.url, 'alice');
});
after(() => server.close());

const names = async (client: Client) => (await client.json('GET', '/collections')).map((c: { name: string }) => c.name);

test('a collection name is one per user: a second one, or a rename onto it, is a 409 naming `name`', async () => {
  const first = await alice.json('POST', '/collections', { name: 'Project X' }, 201);
  const refused = await expectReply(await alice.request('POST', '/collections', { name: ' Project X ' }), 409, 'name', 'conflict');
  assert.match(refused.error.message, /already have a collection named "Project X"/);
  const other = await alice.json('POST', '/collections', { name: 'Project Y' }, 201);
  await expectReply(await alice.request('PATCH', `/collections/${other.id}`, { name: 'Project X' }), 409, 'name');
  assert.deepEqual(await names(alice), ['Project X', 'Project Y'], 'the refused rename kept its old name');
  // Renaming to its own name, or changing only the description, is no conflict.
  await alice.json('PATCH', `/collections/${first.id}`, { name: 'Project X', description: 'd' });
  assert.equal((await alice.json('PATCH', `/collections/${other.id}`, { name: 'Project Z' })).name, 'Project Z');
  // Another user may use the name.
  const bob = await signedIn(server.url, 'bob');
  await bob.json('POST', '/collections', { name: 'Project X' }, 201);
});

test('collections created together under one name leave at most one', async () => {
  const replies = await Promise.all(Array.from({ length: 8 }, () => alice.request('POST', '/collections', { name: 'Raced' })));
  const statuses = replies.map((r) => r.status);
  assert.ok(statuses.every((s) => s === 201 || s === 409), String(statuses));
  assert.ok(statuses.filter((s) => s === 201).length <= 1, String(statuses));
  assert.ok((await names(alice)).filter((n: string) => n === 'Raced').length <= 1);
  // With the race over, the name can be taken (again) by one request.
  if (!statuses.includes(201)) await alice.json('POST', '/collections', { name: 'Raced' }, 201);
  await expectReply(await alice.request('POST', '/collections', { name: 'Raced' }), 409, 'name');
});

test('names differing only in case, accents or spacing are one name: a 409, also when created together', async () => {
  await alice.json('POST', '/collections', { name: 'Éclair runs' }, 201);
  for (const name of ['éclair runs', 'ECLAIR RUNS', 'Eclair   runs']) {
    const refused = await expectReply(await alice.request('POST', '/collections', { name }), 409, 'name', 'conflict');
    assert.match(refused.error.message, /^name: you already have a collection named "Éclair runs"; choose another name$/);
  }
  const other = await alice.json('POST', '/collections', { name: 'Eclair runs 2' }, 201);
  await expectReply(await alice.request('PATCH', `/collections/${other.id}`, { name: 'eclair RUNS' }), 409, 'name');
  assert.equal((await alice.json('GET', '/collections')).find((c: { id: string }) => c.id === other.id).name, 'Eclair runs 2');
  const variants = ['Mixed', 'mixed', 'MIXED', 'Mïxed', 'mixed ', 'Mixed', 'mIxEd', 'MiXed'];
  const replies = await Promise.all(variants.map((name) => alice.request('POST', '/collections', { name })));
  assert.ok(replies.filter((r) => r.status === 201).length <= 1, String(replies.map((r) => r.status)));
  assert.ok((await names(alice)).filter((n: string) => n.toLowerCase().replace('ï', 'i') === 'mixed').length <= 1);
});

test('collections are listed in the library\'s name order; duplicates stored before the rule stay, and no rename adds one', async () => {
  const carol = await signedIn(server.url, 'carol');
  for (const name of ['beta 10', 'Alpha', 'beta 9', 'Ärger']) await carol.json('POST', '/collections', { name }, 201);
  assert.deepEqual(await names(carol), ['Alpha', 'Ärger', 'beta 9', 'beta 10']);
  // Two collections that differ in case only, as older versions stored them.
  await server.store.collections.insertMany([
    { _id: 'oldlower', name: 'legacy', description: '', owner: 'carol', createdAt: new Date() },
    { _id: 'oldupper', name: 'Legacy', description: '', owner: 'carol', createdAt: new Date() },
  ]);
  assert.deepEqual((await names(carol)).filter((n: string) => /legacy/i.test(n)), ['Legacy', 'legacy']);
  await carol.json('PATCH', '/collections/oldlower', { description: 'still here' });
  await expectReply(await carol.request('PATCH', '/collections/oldlower', { name: 'LEGACY' }), 409, 'name');
  await expectReply(await carol.request('POST', '/collections', { name: 'legacy' }), 409, 'name');
  assert.equal((await carol.json('PATCH', '/collections/oldlower', { name: 'legacy (old)' })).name, 'legacy (old)');
});
