// A client that goes after its whole upload was sent, while the server still reads it (the
// UI's Cancel during "the server is reading the file…", a killed curl), leaves nothing: no
// plot, no job, no temporary file, no job directory.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { stockMarketCsv } from '../src/cli/demo-data.ts';
import { parseFile } from '../src/formats/index.ts';
import { Client, signedIn, startServer, type TestServer } from './harness.ts';

let server: TestServer;
let client: Client;
const username = `gone${randomBytes(3).toString('hex')}`;
let dataDir: string;
const tmpDir = () => path.join(dataDir, 'tmp');
const jobsDir = () => path.join(dataDir, 'jobs');

before(async () => {
  // A data directory of this file's own: what is left in it is this file's.
  dataDir = await mkdtemp(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'client-gone-'));
  process.env.JOBS_DIR = jobsDir();
  // Queues of this file only: no worker of another suite picks these jobs up.
  process.env.JOB_QUEUE_PREFIX = `wpvtest.gone.${randomBytes(4).toString('hex')}`;
  server = await startServer({ DATA_DIR: dataDir });
  client = await signedIn(server.url, username);
});
after(() => server.close());

const entries = (dir: string) => readdir(dir).catch(() => [] as string[]);

async function until(what: string, done: () => Promise<boolean>, ms = 60_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await done()); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/**
 * Sends a multipart POST whole on a socket of its own, waits until the server has the file
 * (its temporary file is complete), then cuts the connection while the server works on it.
 * Resolves once the server is done with it (the temporary file removed): the milliseconds from the cut.
 */
async function sendAndLeave(route: string, fields: Record<string, string>, fileName: string, content: Buffer): Promise<number> {
  const boundary = `----gone${randomBytes(8).toString('hex')}`;
  const part = (headers: string, body: Buffer | string) => [Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(body), Buffer.from('\r\n')];
  const body = Buffer.concat([
    ...Object.entries(fields).flatMap(([name, value]) => part(`Content-Disposition: form-data; name="${name}"`, value)),
    ...part(`Content-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream`, content),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  const { host, hostname, port } = new URL(server.url);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => {}); // the cut below
  socket.write(
    `POST /api/v1${route} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${client.cookie}\r\nX-CSRF-Token: ${client.csrf}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
  );
  socket.write(body);
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  await until('the server to have the whole file', async () => {
    if (answer) throw new Error(`the server answered before it had the file: ${answer.slice(0, 300)}`);
    for (const name of await entries(tmpDir())) {
      if ((await stat(path.join(tmpDir(), name)).catch(() => null))?.size === content.length) return true;
    }
    return false;
  });
  assert.equal(answer, '', 'the server is still working on it');
  socket.destroy();
  const cut = performance.now();
  await until('the server to let go of the upload', async () => (await entries(tmpDir())).length === 0);
  return performance.now() - cut;
}

/** What is left over some seconds: nothing may appear late. */
async function stillNothing(count: () => Promise<number>, what: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    assert.equal(await count(), 0, what);
    await sleep(150);
  }
}

test('an upload whose client leaves while the server parses it stops being parsed, and is not stored', async () => {
  const rows = Array.from({ length: 1_200_000 }, (_, i) => `${i}\t${i % 97}.5\t${i % 89}.25\t${i % 83}.125\t${i % 7}`);
  const content = Buffer.from(rows.join('\n') + '\n');
  // The same file parsed whole, here and now (the machine's speed at this moment).
  const copy = path.join(dataDir, 'big-copy.txt');
  await writeFile(copy, content);
  const { limits } = server.config;
  const started = performance.now();
  await parseFile(copy, 'big.txt', { maxPoints: limits.points, maxFrames: limits.frames, maxUncompressedBytes: limits.uncompressedBytes, maxCompressionRatio: limits.compressionRatio });
  const wholeParse = performance.now() - started;
  await rm(copy);
  const afterCut = await sendAndLeave('/plots', { name: 'left-before-the-answer' }, 'big.txt', content);
  // Cut within a few ms of the parse's start: parsed to the end, it would hold the file for about a whole parse more.
  assert.ok(afterCut < wholeParse / 4, `the server let go ${afterCut.toFixed(0)} ms after the cut; a whole parse takes ${wholeParse.toFixed(0)} ms`);
  await stillNothing(() => server.store.plots.countDocuments({ owner: username }), 'no plot, not even a half-stored one');
  assert.equal(await server.store.blobs.meta.countDocuments({}), 0, 'no blob');
  assert.deepEqual(await entries(tmpDir()), []);
  const mine = await client.json('GET', '/plots?scope=mine');
  assert.equal(mine.total, 0);
});

test('a job whose client leaves while the server checks its input is not queued', async () => {
  await sendAndLeave('/jobs', { type: 'stock-timeseries', name: 'left-before-the-answer', params: '{}' }, 'market.csv', Buffer.from(stockMarketCsv(600, 1000)));
  await stillNothing(async () => (await server.store.jobs.countDocuments({})) + (await server.store.jobActive.countDocuments({})), 'no job');
  assert.deepEqual((await client.json('GET', '/jobs')).items, []);
  assert.deepEqual(await entries(jobsDir()), [], 'no job directory');
  assert.deepEqual(await entries(tmpDir()), []);
});

test('a client that waits gets its plot and its job as before', async () => {
  await client.uploaded('small.txt', '0 1 2 3 0\n1 2 3 4 1\n');
  const form = new FormData();
  form.set('type', 'stock-timeseries');
  form.set('params', '{}');
  form.set('file', new Blob([stockMarketCsv(5, 300)]), 'market.csv');
  const res = await client.request('POST', '/jobs', form);
  assert.equal(res.status, 202, await res.clone().text());
});
