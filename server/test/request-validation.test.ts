// Requests the API does not take are refused with a message and a field that say what is wrong:
// unknown keys and query parameters, a body that is not JSON, an authorization scheme other than Bearer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, expectReply, signedIn, startServer, type TestServer } from './harness.ts';

let server: TestServer;
let owner: Client;
let plotId: string;
before(async () => {
  server = await startServer();
  owner = await signedIn(server.url, 'valerie');
  plotId = (await owner.uploaded('points.txt', '0 1 2 3 0\n1 2 3 4 1\n')).id;
});
after(() => server.close());

test('a token request with a key the server does not know (an expiry date, where it takes expiresInDays) is refused, and no token is made', async () => {
  const anonymous = new Client(server.url);
  const body = { username: 'valerie', password: 'correct horse battery', expiresAt: '2030-01-01' };
  const refused = await expectReply(await anonymous.request('POST', '/auth/token', body), 400, 'expiresAt', 'bad_request');
  assert.match(refused.error.message, /^expiresAt: unknown key$/);
  assert.equal(await server.store.tokens.countDocuments({}), 0);
  const { expiresAt: _, ...known } = body;
  await expectReply(await anonymous.request('POST', '/auth/token', { ...known, name: 'script' }), 201);
});

test('an unknown key in a PATCH names itself as the field, nested ones by their path', async () => {
  await expectReply(await owner.request('PATCH', `/plots/${plotId}`, { name: 'renamed', bogus: 1 }), 400, 'bogus');
  await expectReply(await owner.request('PATCH', `/plots/${plotId}`, { clusters: [{ key: 0, colour: '#fff' }] }), 400, 'clusters.0.colour');
  const two = await expectReply(await owner.request('PATCH', `/plots/${plotId}`, { a: 1, b: 2 }), 400, 'a');
  assert.match(two.error.message, /^a: unknown key \(and 1 more\)$/);
  assert.equal((await owner.json('GET', `/plots/${plotId}`)).name, 'points', 'nothing changed');
});

test('a PATCH whose body is not JSON is told to send JSON', async () => {
  const plain = await owner.request('PATCH', `/plots/${plotId}`, JSON.stringify({ name: 'renamed' }), { 'content-type': 'text/plain' });
  const body = await expectReply(plain, 415, undefined, 'unsupported_media_type');
  assert.equal(body.error.message, 'expected a JSON body (Content-Type: application/json), got Content-Type: text/plain');
  // The same body as JSON is taken; a JSON route sent no body at all still says what is missing.
  assert.equal((await owner.json('PATCH', `/plots/${plotId}`, { name: 'renamed' })).name, 'renamed');
  await expectReply(await owner.request('POST', `/plots/${plotId}/clusters/undo`), 400);
});

test('an Authorization header of another scheme is told a bearer token is expected', async () => {
  for (const [header, sent] of [['Basic dmFsZXJpZTpwdw==', 'got the Basic scheme'], ['Bearer', 'got no single token after it']]) {
    const res = await fetch(`${server.url}/api/v1/plots`, { headers: { authorization: header! } });
    const body = await expectReply(res, 401, undefined, 'unauthorized');
    assert.equal(body.error.message, `expected "Authorization: Bearer <token>"; ${sent}`);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  }
  const unknown = await fetch(`${server.url}/api/v1/plots`, { headers: { authorization: 'Bearer nosuchtoken' } });
  await expectReply(unknown, 401, undefined, 'bad_token');
});

test('a multipart field a form does not take (a misspelt name) is refused, naming it, and nothing is stored', async () => {
  const before = await server.store.plots.countDocuments({});
  const typo = await expectReply(await owner.upload('p.txt', '0 1 2 3 0\n', { nmae: 'typo' }), 400, 'nmae', 'bad_request');
  assert.equal(typo.error.message, 'nmae: unknown field; the form takes file, name, description, visibility, collection, tags');
  const job = new FormData();
  job.set('type', 'vectors');
  job.set('nmae', 'typo');
  job.set('file', new Blob(['1,2\n3,4\n']), 'v.csv');
  await expectReply(await owner.request('POST', '/jobs', job), 400, 'nmae');
  const tree = new FormData();
  tree.set('foo', 'bar');
  tree.set('file', new Blob(['(a:1,b:1);']), 't.nwk');
  await expectReply(await owner.request('PUT', `/plots/${plotId}/tree`, tree), 400, 'foo');
  assert.equal(await server.store.plots.countDocuments({}), before);
  assert.equal(await server.store.jobs.countDocuments({}), 0);
  // The fields a form does take are still taken.
  const taken = await owner.uploaded('p.txt', '0 1 2 3 0\n', { name: 'spelt right', description: 'd', visibility: 'private', tags: 'a,b' });
  assert.equal((await owner.request('DELETE', `/plots/${taken.id}`)).status, 204);
});

test('a library query parameter the API does not know is refused, naming it', async () => {
  const refused = await expectReply(await owner.request('GET', '/plots?mine=maybe'), 400, 'mine', 'bad_request');
  assert.match(refused.error.message, /^mine: unknown key$/);
  const mine = await owner.json('GET', '/plots?scope=mine&sort=name&page=1&pageSize=10');
  assert.deepEqual(mine.items.map((p: { id: string }) => p.id), [plotId]);
});

test('search, export, selection and job-log query parameters the API does not know are refused, naming them', async () => {
  const paths = [
    [`/plots/${plotId}/search?label=a&frames=1`, 'frames'],
    [`/plots/${plotId}/export?format=pviz&gzip=1`, 'gzip'],
    [`/plots/${plotId}/selections/any?encoding=mask&as=bits`, 'as'],
    ['/jobs/nosuchjob/logs?stage=swg&tail=10', 'tail'],
  ];
  for (const [path, key] of paths) {
    const refused = await expectReply(await owner.request('GET', path!), 400, key, 'bad_request');
    assert.match(refused.error.message, new RegExp(`^${key}: unknown key$`));
  }
  // The same without the unknown key is taken.
  assert.equal((await owner.request('GET', `/plots/${plotId}/search?label=a&frame=0`)).status, 200);
  assert.equal((await owner.request('GET', `/plots/${plotId}/export?format=pviz`)).status, 200);
});

test('a login or registration with a key the server does not know is refused, and neither signs in nor registers', async () => {
  const anonymous = new Client(server.url);
  const register = { username: 'walter', password: 'correct horse battery', email: 'w@example.org' };
  await expectReply(await anonymous.request('POST', '/auth/register', register), 400, 'email', 'bad_request');
  assert.equal(await server.store.users.countDocuments({ username: 'walter' }), 0);
  const login = await anonymous.request('POST', '/auth/login', { username: 'valerie', password: 'correct horse battery', remember: true });
  await expectReply(login, 400, 'remember', 'bad_request');
  assert.equal(login.headers.get('set-cookie'), null);
});
