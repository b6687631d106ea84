// What the running API removes by itself, without a restart: plots a crash left `ingesting`,
// blob versions a crash left behind, expired sessions; and the cap on one user's sessions.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { LoginLimits } from '../src/http/rate-limits.ts';
import { startHousekeeping, type Housekeeping } from '../src/services/housekeeping.ts';
import { MAX_SESSIONS_PER_USER, Users } from '../src/services/users.ts';
import { signedIn, startServer, type Client, type TestServer } from './harness.ts';

const TEXT = '# index x y z cluster\n0 1.5 2 3 1\n1 -1 0.25 4 2\n';
const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

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
    housekeeping = startHousekeeping({ plots: server.plots, blobs: server.store.blobs, users, loginLimits }, 200);
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

  describe('a blob replacement cut short by a crash', () => {
    const OLD = Buffer.alloc(1000, 1);
    const chunks = () => server.store.db.collection('blob_chunks');
    const journal = () => server.store.db.collection<{ _id: string; name: string; version: string; startedAt: Date }>('blob_replacements');
    const hasChunk = async (name: string, version: string) => (await chunks().countDocuments({ _id: `${name}@${version}/0` as never })) === 1;
    /** Ages the blob's journal entries past the sweep's threshold and waits until they are finished. */
    async function sweptJournal(name: string): Promise<void> {
      await journal().updateMany({ name }, { $set: { startedAt: new Date(0) } });
      await until('the replacement finished by the sweep', async () => (await journal().countDocuments({ name })) === 0);
    }
    async function storedBlob(name: string) {
      const { id } = await alice.uploaded('with-blob.txt', TEXT);
      await server.store.blobs.putBuffer(id, `${id}/${name}`, OLD, 'application/octet-stream');
      return { id, name: `${id}/${name}`, version: (await server.store.blobs.meta.findOne({ _id: `${id}/${name}` }))!.version };
    }
    const contents = async (name: string) => server.store.blobs.readAll((await server.store.blobs.meta.findOne({ _id: name }))!);

    test('killed while writing the new version: its chunks go, the old version stays whole', async () => {
      const blob = await storedBlob('killed-mid-write');
      // Another process replaces it with 40 MB (10 chunks) and is killed once the first chunk is stored.
      const writer = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
        import { openStore } from './src/storage/db.ts';
        const store = await openStore(process.env.MONGODB_URI);
        await store.blobs.putBuffer(process.env.PLOT, process.env.NAME, Buffer.alloc(40 << 20, 2), 'application/octet-stream');
        console.log('written');`], { cwd: SERVER_DIR, env: { ...process.env, MONGODB_URI: server.config.mongodbUri, PLOT: blob.id, NAME: blob.name }, stdio: ['ignore', 'pipe', 'inherit'] });
      let output = '';
      writer.stdout.on('data', (data) => (output += data));
      const exited = new Promise((resolve) => writer.once('exit', resolve));
      let version = '';
      await until('the new version begun', async () => {
        version = (await journal().findOne({ name: blob.name }))?.version ?? '';
        return version !== '' && (await hasChunk(blob.name, version));
      }, 30_000);
      writer.kill('SIGKILL');
      await exited;
      assert.equal(output, '', 'killed before the write finished');
      assert.equal((await server.store.blobs.meta.findOne({ _id: blob.name }))?.version, blob.version, 'the old version is current');
      await sweptJournal(blob.name);
      assert.equal(await hasChunk(blob.name, version), false, "the new version's chunks are deleted");
      assert.deepEqual(await contents(blob.name), OLD, 'the blob reads whole, as before');
    });

    test('killed after the switch, before the old chunks were deleted: they go, the new version stays', async () => {
      const blob = await storedBlob('killed-after-switch');
      const replaced = await server.store.blobs.replaceBuffer(blob.id, blob.name, Buffer.alloc(500, 3), 'application/octet-stream');
      assert.equal(replaced?.info.version, blob.version); // and never discarded, as if the process died here
      assert.ok(await hasChunk(blob.name, blob.version));
      await sweptJournal(blob.name);
      assert.equal(await hasChunk(blob.name, blob.version), false, "the old version's chunks are deleted");
      assert.deepEqual(await contents(blob.name), Buffer.alloc(500, 3));
    });

    test('a replacement that ends normally leaves no journal entry', async () => {
      const blob = await storedBlob('replaced');
      await server.store.blobs.putBuffer(blob.id, blob.name, Buffer.alloc(10, 4), 'application/octet-stream');
      assert.equal(await journal().countDocuments({ name: blob.name }), 0);
      assert.equal(await hasChunk(blob.name, blob.version), false);
    });
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
