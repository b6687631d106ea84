// What the running API removes by itself, without a restart: plots a crash left `ingesting`,
// expired sessions; and the cap on one user's sessions.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { LoginLimits } from '../src/http/rate-limits.ts';
import { startHousekeeping, type Housekeeping } from '../src/services/housekeeping.ts';
import { MAX_SESSIONS_PER_USER, Users } from '../src/services/users.ts';
import { signedIn, startServer, type Client, type TestServer } from './harness.ts';

const TEXT = '# index x y z cluster\n0 1.5 2 3 1\n1 -1 0.25 4 2\n';

let server: TestServer;
let alice: Client;
let users: Users;
before(async () => {
  server = await startServer();
  alice = await signedIn(server.url, 'alice');
  users = new Users(server.store);
});
after(async () => server?.close());

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  for (const start = Date.now(); !(await check()); await sleep(50)) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
  }
}

describe('periodic sweeps', () => {
  let housekeeping: Housekeeping;
  before(() => {
    const loginLimits = new LoginLimits(server.store.db, server.store.loginFailures, server.config.loginFailures);
    housekeeping = startHousekeeping({ plots: server.plots, users, loginLimits }, 200);
  });
  after(() => housekeeping.stop());

  test('a plot left ingesting by a crash long ago is removed while the API runs; a recent ingest stays', async () => {
    const crashed = await alice.uploaded('crashed.txt', TEXT);
    const inProgress = await alice.uploaded('in-progress.txt', TEXT);
    // As if the API died before flipping the first to ready an hour ago; the other is still being written.
    await server.store.plots.updateOne({ _id: crashed.id }, { $set: { state: 'ingesting', createdAt: new Date(Date.now() - 3_600_000) } });
    await server.store.plots.updateOne({ _id: inProgress.id }, { $set: { state: 'ingesting' } });
    await until('the crashed plot removed', async () => (await server.store.plots.countDocuments({ _id: crashed.id })) === 0);
    assert.equal(await server.store.plotDetails.countDocuments({ _id: crashed.id }), 0, 'its details');
    assert.equal(await server.store.plots.countDocuments({ _id: inProgress.id }), 1, 'a recent ingest is not swept');
  });

  test('expired sessions are deleted while the API runs; live ones stay', async () => {
    const past = new Date(Date.now() - 1000);
    await server.store.sessions.insertOne({ _id: 'expired-session', username: 'alice', csrfToken: 'x', createdAt: new Date(0), expiresAt: past });
    await until('the expired session deleted', async () => (await server.store.sessions.countDocuments({ _id: 'expired-session' })) === 0);
    assert.equal(await server.store.sessions.countDocuments({ username: 'alice' }), 1, "alice's own session");
    assert.equal((await alice.request('GET', '/plots?scope=mine')).status, 200);
  });
});

describe('sessions per user', () => {
  test(`a login beyond ${MAX_SESSIONS_PER_USER} sessions ends the oldest`, async () => {
    await users.register('bob', 'correct horse battery');
    const cookies: string[] = [];
    // Apart in time, as real logins are (an argon2 hash each): the oldest is the first.
    for (let i = 0; i <= MAX_SESSIONS_PER_USER; i++, await sleep(2)) cookies.push((await users.createSession('bob')).cookie);
    assert.equal(await server.store.sessions.countDocuments({ username: 'bob' }), MAX_SESSIONS_PER_USER);
    assert.equal(await users.session(cookies[0]!), null, 'the oldest is logged out');
    for (const cookie of [cookies[1]!, cookies.at(-1)!]) assert.equal((await users.session(cookie))?.username, 'bob');
  });
});
