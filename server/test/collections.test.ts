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
