import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../src/app.ts';
import { AmqpLink } from '../src/storage/amqp.ts';
import { Client, expectReply, signedIn, startServer, type TestServer } from './harness.ts';

let server: TestServer;
// Every account of this file is registered from 127.0.0.1.
before(async () => (server = await startServer({ REGISTRATIONS_PER_ADDRESS: '100' })));
after(() => server.close());

describe('accounts and sessions', () => {
  test('register stores an argon2id hash, never the password', async () => {
    const alice = new Client(server.url);
    await alice.signUp('alice');
    const doc = await server.store.users.findOne({ _id: 'alice' });
    assert.match(doc!.passwordHash, /^\$argon2id\$/);
    assert.ok(!JSON.stringify(doc).includes('correct horse'));
  });

  test('register validates and refuses taken names, whatever the case', async () => {
    const c = new Client(server.url);
    const short = await c.request('POST', '/auth/register', { username: 'bob', password: 'short' });
    assert.equal(short.status, 400);
    assert.equal((await short.json()).error.field, 'password');
    await c.json('POST', '/auth/register', { username: 'Carol', password: 'long enough password' }, 201);
    const again = await c.request('POST', '/auth/register', { username: 'carol', password: 'long enough password' });
    assert.equal(again.status, 409);
  });

  test('wrong password and unknown user both answer 401 without a cookie', async () => {
    const c = new Client(server.url);
    await c.json('POST', '/auth/register', { username: 'dave', password: 'right password!' }, 201);
    for (const body of [{ username: 'dave', password: 'wrong password!' }, { username: 'nobody', password: 'right password!' }]) {
      const res = await c.request('POST', '/auth/login', body);
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  test('session cookie is HttpOnly and SameSite; logout ends it', async () => {
    const c = new Client(server.url);
    await c.json('POST', '/auth/register', { username: 'erin', password: 'right password!' }, 201);
    const res = await c.request('POST', '/auth/login', { username: 'erin', password: 'right password!' });
    const cookie = res.headers.get('set-cookie')!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    c.csrf = (await res.json()).csrfToken;
    assert.equal((await c.json('GET', '/auth/me')).username, 'erin');
    assert.deepEqual(await c.json('GET', '/auth/session'), { username: 'erin', csrfToken: c.csrf }, '/auth/session as /auth/me when signed in');
    const stale = c.cookie;
    assert.equal((await c.request('POST', '/auth/logout')).status, 204);
    c.cookie = stale;
    assert.equal((await c.request('GET', '/auth/me')).status, 401);
    assert.deepEqual(await c.json('GET', '/auth/session'), { username: null }, 'anonymous: 200, no 401 for a page to log');
  });

  test('cookie-authenticated writes need the CSRF token', async () => {
    const c = new Client(server.url);
    await c.signUp('frank');
    const csrf = c.csrf;
    c.csrf = '';
    const forged = await c.request('POST', '/collections', { name: 'x' });
    assert.equal(forged.status, 403);
    assert.equal((await forged.json()).error.code, 'csrf');
    c.csrf = 'not-the-token';
    assert.equal((await c.request('POST', '/collections', { name: 'x' })).status, 403);
    c.csrf = csrf;
    assert.equal((await c.request('POST', '/collections', { name: 'x' })).status, 201);
  });
});

describe('bearer tokens', () => {
  test('a token authenticates scripts without CSRF, is listed by prefix, and stops working once revoked', async () => {
    const owner = new Client(server.url);
    await owner.signUp('grace');
    const created = await owner.json('POST', '/auth/token', { username: 'grace', password: 'correct horse battery', name: 'ci' }, 201);
    assert.match(created.token, /^wpv_/);
    const script = new Client(server.url);
    script.bearer = created.token;
    assert.equal((await script.request('POST', '/collections', { name: 'from a script' })).status, 201);
    const listed = await owner.json('GET', '/auth/tokens');
    assert.equal(listed.length, 1);
    assert.equal(listed[0].prefix, created.token.slice(0, 10));
    assert.ok(listed[0].lastUsedAt);
    assert.ok(!JSON.stringify(listed).includes(created.token));
    assert.equal((await owner.request('DELETE', `/auth/tokens/${created.id}`)).status, 204);
    const revoked = await script.request('GET', '/collections');
    assert.equal(revoked.status, 401);
    assert.equal((await revoked.json()).error.code, 'bad_token');
  });

  test('a read-scoped token reads, and is refused every write with 403 read_only_token', async () => {
    const owner = await signedIn(server.url, 'rachel');
    const plot = await owner.uploaded('mine.txt', '0 1 2 3 1\n1 2 3 4 1\n');
    const created = await owner.json('POST', '/auth/token', { username: 'rachel', password: 'correct horse battery', name: 'notebook', scope: 'read' }, 201);
    assert.equal(created.scope, 'read');
    const notebook = new Client(server.url);
    notebook.bearer = created.token;
    assert.equal((await notebook.json('GET', `/plots/${plot.id}`)).name, 'mine');
    assert.equal((await notebook.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 200);
    assert.equal((await notebook.json('GET', '/auth/tokens')).length, 1);
    for (const [method, path, body] of [
      ['PATCH', `/plots/${plot.id}`, { name: 'renamed' }],
      ['DELETE', `/plots/${plot.id}`, undefined],
      ['POST', '/collections', { name: 'c' }],
      ['PUT', `/plots/${plot.id}/views/v`, { camera: null }],
      ['DELETE', `/auth/tokens/${created.id}`, undefined],
    ] as const) {
      await expectReply(await notebook.request(method, path, body), 403, undefined, 'read_only_token');
    }
    assert.equal((await owner.json('GET', `/plots/${plot.id}`)).name, 'mine');
    const full = await owner.json('POST', '/auth/token', { username: 'rachel', password: 'correct horse battery', name: 'script' }, 201);
    assert.equal(full.scope, 'full');
    await expectReply(await owner.request('POST', '/auth/token', { username: 'rachel', password: 'correct horse battery', scope: 'admin' }), 400, 'scope');
  });

  test('a token made with expiresInDays stops working then (401 bad_token); without, it has no expiry', async () => {
    const owner = await signedIn(server.url, 'tess');
    const create = (body: object) => owner.request('POST', '/auth/token', { username: 'tess', password: 'correct horse battery', ...body });
    const lasting = await expectReply(await create({ name: 'lasting' }), 201);
    assert.equal(lasting.expiresAt, null);
    const weekly = await expectReply(await create({ name: 'weekly', expiresInDays: 7 }), 201);
    const days = (Date.parse(weekly.expiresAt) - Date.parse(weekly.createdAt)) / 86_400_000;
    assert.equal(days, 7);
    for (const expiresInDays of [0, -1, 1.5, 'soon']) await expectReply(await create({ expiresInDays }), 400, 'expiresInDays');
    const script = new Client(server.url);
    script.bearer = weekly.token;
    assert.equal((await script.request('GET', '/auth/me')).status, 200);
    // A week later (the token's expiry moved back: the same check).
    await server.store.tokens.updateOne({ _id: weekly.id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const fresh = new Client(server.url); // remembered lookups last 5 s: wait them out
    fresh.bearer = weekly.token;
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    await expectReply(await fresh.request('GET', '/auth/me'), 401, undefined, 'bad_token');
    const other = new Client(server.url);
    other.bearer = lasting.token;
    assert.equal((await other.request('GET', '/auth/me')).status, 200);
  });

  test('a token revokes itself, not its owner\'s other tokens; a session revokes any', async () => {
    const owner = await signedIn(server.url, 'uma');
    const create = (name: string) => owner.json('POST', '/auth/token', { username: 'uma', password: 'correct horse battery', name }, 201);
    const [leaked, other, third] = [await create('leaked'), await create('other'), await create('third')];
    const thief = new Client(server.url);
    thief.bearer = leaked.token;
    await expectReply(await thief.request('DELETE', `/auth/tokens/${other.id}`), 403, undefined, 'forbidden');
    assert.equal((await thief.request('DELETE', `/auth/tokens/${leaked.id}`)).status, 204);
    assert.equal((await thief.request('GET', '/auth/me')).status, 401);
    assert.equal((await owner.request('DELETE', `/auth/tokens/${third.id}`)).status, 204);
    assert.deepEqual((await owner.json('GET', '/auth/tokens')).map((t: { name: string }) => t.name), ['other']);
  });

  test('a token needs the right password', async () => {
    const c = new Client(server.url);
    await c.signUp('heidi');
    assert.equal((await c.request('POST', '/auth/token', { username: 'heidi', password: 'wrong password!!' })).status, 401);
  });

  test('another user cannot revoke my token', async () => {
    const a = new Client(server.url);
    await a.signUp('ivan');
    const t = await a.json('POST', '/auth/token', { username: 'ivan', password: 'correct horse battery' }, 201);
    const b = new Client(server.url);
    await b.signUp('judy');
    assert.equal((await b.request('DELETE', `/auth/tokens/${t.id}`)).status, 404);
  });

  test('a user\'s tokens have different names, even when made together, until one is revoked', async () => {
    const owner = await signedIn(server.url, 'mallory');
    const create = (name: string, username = 'mallory') => owner.request('POST', '/auth/token', { username, password: 'correct horse battery', name });
    const first = await expectReply(await create('laptop'), 201);
    const again = await expectReply(await create('laptop'), 409, 'name', 'conflict');
    assert.match(again.error.message, /laptop/);
    // FerretDB applies no update filter atomically: only the name's own document keeps parallel requests apart.
    const together = await Promise.all(Array.from({ length: 6 }, () => create('desktop')));
    assert.deepEqual(together.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    assert.deepEqual((await owner.json('GET', '/auth/tokens')).map((t: { name: string }) => t.name).sort(), ['desktop', 'laptop']);
    await signedIn(server.url, 'niaj');
    await expectReply(await create('laptop', 'niaj'), 201); // another user's names are theirs
    assert.equal((await owner.request('DELETE', `/auth/tokens/${first.id}`)).status, 204);
    await expectReply(await create('laptop'), 201);
  });

  test('a token made without a name gets the first free "API token <n>"', async () => {
    const owner = await signedIn(server.url, 'peggy');
    const create = (name?: string) => owner.json('POST', '/auth/token', { username: 'peggy', password: 'correct horse battery', ...(name && { name }) }, 201);
    await create('API token 2');
    assert.deepEqual([(await create()).name, (await create()).name], ['API token 1', 'API token 3']);
  });

  test('a name whose claim has no token (a crash between the two) is taken over, by one of requests made together', async () => {
    const owner = await signedIn(server.url, 'rupert');
    const create = (name: string) => owner.request('POST', '/auth/token', { username: 'rupert', password: 'correct horse battery', name });
    // What a crash between claiming a name and storing its token leaves: the claim alone.
    const orphan = (name: string, ageMs: number) =>
      server.store.tokenClaims.insertOne({ _id: `orphan-${name}`, name: `rupert/${name}`, claimedAt: new Date(Date.now() - ageMs) });
    await orphan('laptop', 10 * 60_000);
    await expectReply(await create('laptop'), 201);
    await expectReply(await create('laptop'), 409, 'name', 'conflict');
    await orphan('desktop', 10 * 60_000);
    const together = await Promise.all(Array.from({ length: 6 }, () => create('desktop')));
    assert.deepEqual(together.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
    // A claim this young may be a request about to store its token: it still holds the name.
    await orphan('tablet', 1_000);
    await expectReply(await create('tablet'), 409, 'name', 'conflict');
    assert.deepEqual((await owner.json('GET', '/auth/tokens')).map((t: { name: string }) => t.name).sort(), ['desktop', 'laptop']);
  });

  test('a name claimed by an earlier version for a token it never stored is free', async () => {
    const owner = await signedIn(server.url, 'sybil');
    await server.store.db.collection<{ _id: string }>('token_names').insertOne({ _id: 'sybil/laptop' });
    await expectReply(await owner.request('POST', '/auth/token', { username: 'sybil', password: 'correct horse battery', name: 'laptop' }), 201);
  });

  test('a token stored before names were unique keeps its name', async () => {
    const owner = await signedIn(server.url, 'olivia');
    await server.store.tokens.insertOne({ _id: 'old-token', tokenHash: 'not a real hash', username: 'olivia', name: 'old laptop', prefix: 'wpv_old', createdAt: new Date(), lastUsedAt: null });
    const create = () => owner.request('POST', '/auth/token', { username: 'olivia', password: 'correct horse battery', name: 'old laptop' });
    await expectReply(await create(), 409, 'name', 'conflict');
    await expectReply(await create(), 409, 'name', 'conflict');
    assert.equal((await owner.request('DELETE', '/auth/tokens/old-token')).status, 204);
    await expectReply(await create(), 201);
  });
});

describe('service endpoints', () => {
  test('health reports both services', async () => {
    const res = await fetch(`${server.url}/api/v1/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { mongo: 'ok', amqp: 'ok' });
  });

  test('health answers 503 naming the broker when it is unreachable', async () => {
    const broken = await startServer({ AMQP_URL: 'amqp://wpv:x@127.0.0.1:1' });
    try {
      const res = await fetch(`${broken.url}/api/v1/health`);
      assert.equal(res.status, 503);
      const body = await res.json();
      assert.equal(body.mongo, 'ok');
      assert.match(body.amqp, /^down/);
    } finally {
      await broken.close();
    }
  });

  test('the OpenAPI document lists the contract paths and the docs page renders it', async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/plots', '/plots/{id}/frames/{frame}/positions', '/auth/token', '/health', '/jobs', '/jobs/{id}/events']) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/plots'].post.requestBody.content['multipart/form-data']);
    const page = await fetch(`${server.url}/api/v1/docs`);
    assert.match(await page.text(), /openapi\.json/);
  });

  test('unknown API routes and malformed JSON answer JSON errors', async () => {
    const missing = await fetch(`${server.url}/api/v1/nope`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'not_found');
    const bad = await fetch(`${server.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, 'bad_request');
  });
});

describe('password strength', () => {
  test('guessable passwords and the username as password are refused with a 422 naming password', async () => {
    const c = new Client(server.url);
    for (const [username, password, reason] of [
      ['quentin', 'aaaaaaaaaa', /too easy to guess/],
      ['quentin', 'password12', /too easy to guess/],
      ['quentin', 'qwertyuiop', /too easy to guess/],
      ['henry.lee2024', 'Henry.Lee2024', /must not be the username/],
    ] as const) {
      const res = await c.request('POST', '/auth/register', { username, password });
      const body = await res.json();
      assert.equal(res.status, 422, `${password}: ${JSON.stringify(body)}`);
      assert.equal(body.error.field, 'password');
      assert.match(body.error.message, reason);
    }
    assert.equal(await server.store.users.countDocuments({ _id: { $in: ['quentin', 'henry.lee2024'] } }), 0);
  });
});

describe('password guessing limits', () => {
  const limits = { LOGIN_FAILURES_PER_ACCOUNT: '10', LOGIN_FAILURES_PER_ADDRESS: '40' };
  let guarded: TestServer;
  before(async () => (guarded = await startServer(limits)));
  after(() => guarded.close());
  const attempt = (url: string, route: string, username: string, password: string, name?: string) =>
    fetch(`${url}/api/v1/auth/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password, name }) });

  test('30 parallel guesses at one account: 10 are checked, the rest get 429 with Retry-After, and so does the right password', async () => {
    await new Client(guarded.url).json('POST', '/auth/register', { username: 'ivan', password: 'right password!' }, 201);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(guarded.url, 'login', 'ivan', `wrong guess ${i}!`)));
    const statuses = answers.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 401).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((s) => s === 429).length, 20);
    const limited = answers.find((r) => r.status === 429)!;
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await limited.json()).error.code, 'too_many_attempts');
    for (const route of ['login', 'token']) assert.equal((await attempt(guarded.url, route, 'IVAN', 'right password!')).status, 429);
  });

  test('a right password clears the account\'s failures', async () => {
    await new Client(guarded.url).json('POST', '/auth/register', { username: 'judy', password: 'right password!' }, 201);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) assert.equal((await attempt(guarded.url, 'login', 'judy', 'wrong password!')).status, 401);
      assert.equal((await attempt(guarded.url, 'token', 'judy', 'right password!', `token ${round}`)).status, 201);
    }
  });

  test('the count is shared by API processes through the store', async () => {
    // A second API process: its own app and in-process counters, the same store.
    const amqp = new AmqpLink(guarded.config.amqpUrl);
    await amqp.start();
    const other = createApp({ config: guarded.config, store: guarded.store, amqp }).app.listen(0, '127.0.0.1');
    await once(other, 'listening');
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      await new Client(guarded.url).json('POST', '/auth/register', { username: 'kate', password: 'right password!' }, 201);
      for (let i = 0; i < 6; i++) assert.equal((await attempt(guarded.url, 'login', 'kate', 'wrong password!')).status, 401);
      for (let i = 0; i < 4; i++) assert.equal((await attempt(otherUrl, 'login', 'kate', 'wrong password!')).status, 401);
      assert.equal((await attempt(otherUrl, 'login', 'kate', 'wrong password!')).status, 429);
    } finally {
      other.close();
      other.closeAllConnections();
      await amqp.close();
    }
  });

  test('one address guessing many accounts is limited too', async () => {
    let limitedAt = 0;
    for (let i = 0; i < 30 && !limitedAt; i++) {
      if ((await attempt(guarded.url, 'token', `someone${i}`, 'wrong password!')).status === 429) limitedAt = i;
    }
    // The failures of ivan, judy and kate count against 127.0.0.1 as well (40 in all).
    assert.ok(limitedAt > 0, 'limited before 30 more attempts');
  });
});

describe('registration limits', () => {
  const register = (url: string, username: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ username, password: 'right password!' }) });

  test('registrations from one address are counted, whatever their outcome; logins go on', async () => {
    const limited = await startServer({ REGISTRATIONS_PER_ADDRESS: '3' });
    try {
      assert.equal((await register(limited.url, 'reg1')).status, 201);
      assert.equal((await register(limited.url, 'reg1')).status, 409); // taken: counted too (a password hash each)
      assert.equal((await register(limited.url, 'reg2')).status, 201);
      const refused = await register(limited.url, 'reg3');
      await expectReply(refused, 429, undefined, 'too_many_registrations');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.equal(await limited.store.users.countDocuments({ _id: 'reg3' }), 0);
      await new Client(limited.url).json('POST', '/auth/login', { username: 'reg2', password: 'right password!' });
    } finally {
      await limited.close();
    }
  });

  test('REGISTRATION=closed takes no new account (403), while existing ones log in', async () => {
    const open = await startServer();
    await new Client(open.url).json('POST', '/auth/register', { username: 'early', password: 'right password!' }, 201);
    const closed = await startServer({ REGISTRATION: 'closed', MONGODB_URI: open.config.mongodbUri });
    try {
      await expectReply(await register(closed.url, 'latecomer'), 403, undefined, 'registration_closed');
      assert.equal(await closed.store.users.countDocuments({ _id: 'latecomer' }), 0);
      await new Client(closed.url).json('POST', '/auth/login', { username: 'early', password: 'right password!' });
    } finally {
      await closed.close();
      await open.close().catch(() => {}); // the database went with the first close
    }
  });

  test('X-Forwarded-For names the client only from a proxy named in TRUST_PROXY', async () => {
    const attempts = async (url: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await register(url, `fwd${i}`, { 'x-forwarded-for': `10.0.${i}.1` })).status);
      return statuses;
    };
    const direct = await startServer({ REGISTRATIONS_PER_ADDRESS: '2' });
    const proxied = await startServer({ REGISTRATIONS_PER_ADDRESS: '2', TRUST_PROXY: 'loopback' });
    try {
      // By default the header is not believed: every attempt is 127.0.0.1's.
      assert.deepEqual(await attempts(direct.url), [201, 201, 429, 429]);
      assert.deepEqual(await attempts(proxied.url), [201, 201, 201, 201]);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });

  test('REGISTRATION and TRUST_PROXY are read strictly', async () => {
    const { loadConfig } = await import('../src/config.ts');
    const base = { MONGODB_URI: 'mongodb://x/y', AMQP_URL: 'amqp://x' };
    assert.throws(() => loadConfig({ ...base, REGISTRATION: 'invite' }), /REGISTRATION=invite: expected open or closed/);
    assert.equal(loadConfig(base).trustProxy, false);
    assert.equal(loadConfig({ ...base, TRUST_PROXY: '1' }).trustProxy, 1);
    assert.equal(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8' }).trustProxy, '10.0.0.0/8');
  });
});
