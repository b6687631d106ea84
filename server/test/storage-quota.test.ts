// Each user's storage quota (USER_STORAGE_BYTES): uploads over what is left are refused with a 413
// quota_exceeded naming the file, by their declared length, while they stream, or once parsed; and
// uploads made together are held to it together. A job that would keep a distance matrix over what
// is left is refused at submission.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { loadJobConfig } from '@wpv/jobs/config';
import { expectReply, signedIn, startServer, type Client, type TestServer } from './harness.ts';

const QUOTA = 100_000;
let server: TestServer;
let owner: Client;
before(async () => {
  process.env.JOB_QUEUE_PREFIX = `wpvtest.quota.${randomBytes(4).toString('hex')}`;
  server = await startServer({ USER_STORAGE_BYTES: String(QUOTA) });
  owner = await signedIn(server.url, 'quota');
});
after(() => server.close());

/** A text plot of `n` points: about 14 bytes of file and 16 bytes stored per point. */
const points = (n: number) => Array.from({ length: n }, (_, i) => `${i} ${i} 1 2 ${i % 3}\n`).join('');
const storedCount = () => server.store.plots.countDocuments({ owner: 'quota' });

test('a plot records the bytes its blobs take, which count against the quota', async () => {
  const plot = await owner.uploaded('small.txt', points(100));
  const doc = await server.store.plots.findOne({ _id: plot.id });
  const blobs = await server.store.blobs.meta.find({ plotId: plot.id }).toArray();
  assert.equal(doc!.storedBytes, blobs.reduce((sum, b) => sum + b.length, 0));
  assert.ok(doc!.storedBytes! > 100 * 16);
  await owner.json('DELETE', `/plots/${plot.id}`, undefined, 204);
  await server.plots.removalsDone(); // its data goes after the answer: the next test counts the plots stored
});

test('an upload over the room left is a 413 quota_exceeded naming the file, and stores nothing', async () => {
  const first = await owner.uploaded('first.txt', points(1000)); // about 40 KB of the 100 KB
  const stored = await storedCount();
  // Parsed, it would take more than is left: refused before anything is written.
  const parsed = await expectReply(await owner.upload('more.txt', points(2500)), 413, 'file', 'quota_exceeded');
  assert.match(parsed.error.message, /^storing this plot takes [\d.]+ kB, over the [\d.]+ kB left of your 97.7 kB storage quota/);
  // A file longer than the room is cut off while it streams.
  const streamed = await expectReply(await owner.upload('long.txt', `# ${'x'.repeat(QUOTA)}\n${points(3)}`), 413, 'file', 'quota_exceeded');
  assert.match(streamed.error.message, /^the file part is over the [\d.]+ kB left/);
  // A declared length far over it is refused before the body is read.
  const form = new FormData();
  form.set('file', new Blob([points(100_000)]), 'huge.txt');
  const encoded = new Response(form); // a body of known length: sent with Content-Length
  const body = new Uint8Array(await encoded.arrayBuffer());
  const declared = await expectReply(await owner.request('POST', '/plots', body, { 'content-type': encoded.headers.get('content-type')! }), 413, 'file', 'quota_exceeded');
  assert.match(declared.error.message, /^the upload takes [\d.]+ MB/);
  assert.equal(await storedCount(), stored);
  // A job's input too: its plot will count.
  const job = new FormData();
  job.set('type', 'sequence-clustering');
  job.set('file', new Blob([`>s1\n${'ACGT'.repeat(QUOTA / 4)}\n`]), 'reads.fasta');
  const jobRefused = await expectReply(await owner.request('POST', '/jobs', job), 413, 'file', 'quota_exceeded');
  assert.match(jobRefused.error.message, /^the file part is over the [\d.]+ kB left/);
  assert.deepEqual((await owner.json('GET', '/jobs')).items, []);
  // Deleting makes room again.
  await owner.json('DELETE', `/plots/${first.id}`, undefined, 204);
  await owner.uploaded('more.txt', points(1500));
  // Another user's quota is their own.
  await (await signedIn(server.url, 'other')).uploaded('theirs.txt', points(1000));
});

test('a user over the quota (it was lowered) can store nothing, however small', async () => {
  const user = await signedIn(server.url, 'full');
  const plot = await user.uploaded('one.txt', points(10));
  await server.store.plots.updateOne({ _id: plot.id }, { $set: { storedBytes: QUOTA * 2 } });
  const refused = await expectReply(await user.upload('tiny.txt', points(1)), 413, 'file', 'quota_exceeded');
  assert.match(refused.error.message, /over the 0 bytes left/);
  assert.equal(await server.store.plots.countDocuments({ owner: 'full' }), 1);
});

// Each counts the others it finds stored or being stored, so under contention all may be refused:
// the quota is never exceeded, and what a refused one would have taken is free again at once.
test('uploads made together are held to the quota together: those that fit only alone are not all stored', async () => {
  const user = await signedIn(server.url, 'together');
  // Each about 38 KB stored: two fit in the 100 KB, four do not.
  const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => user.upload(`part${i}.txt`, points(1000))));
  let stored = answers.filter((res) => res.status === 201).length;
  for (const res of answers.filter((r) => r.status !== 201)) await expectReply(res, 413, 'file', 'quota_exceeded');
  assert.ok(stored <= 2, `${stored} of 4 stored`);
  if (stored < 2) {
    assert.equal((await user.upload('alone.txt', points(1000))).status, 201, 'the room the refused ones took is free');
    stored++;
  }
  const docs = await server.store.plots.find({ owner: 'together' }).toArray();
  assert.equal(docs.length, stored, 'the refused ones left nothing');
  assert.ok(docs.reduce((sum, d) => sum + d.storedBytes!, 0) <= QUOTA);
});

/** `n` distinct reads as FASTA. */
const fasta = (n: number) => Array.from({ length: n }, (_, i) => `>read${i}\nGATTACA${[...i.toString(4).padStart(5, '0')].map((d) => 'ACGT'[+d]).join('')}\n`).join('');
/** Submits a sequence-clustering job of `n` reads (no worker runs here: it stays queued). */
const submitReads = (client: Client, n: number, params: Record<string, unknown> = {}) => {
  const form = new FormData();
  form.set('type', 'sequence-clustering');
  form.set('params', JSON.stringify(params));
  form.set('file', new Blob([fasta(n)]), 'reads.fasta');
  return client.request('POST', '/jobs', form);
};
const jobDirs = () => readdir(loadJobConfig(server.config.dataDir).jobsDir).catch(() => []);

test('a job whose kept distance matrix (2·N² bytes) is over the room left is refused; one that fits, or only aligns a sample all-pairs, is queued', async () => {
  const submit = (n: number, params: Record<string, unknown> = {}) => submitReads(owner, n, params);
  const jobs = () => server.store.jobs.countDocuments({ owner: 'quota' });
  const [before, dirsBefore] = [await jobs(), await jobDirs()];
  // 240 reads: a 112.5 kB matrix, over the room left of the 97.7 kB quota, though the file is 5 kB.
  const refused = await expectReply(await submit(240), 413, 'file', 'quota_exceeded');
  assert.match(refused.error.message, /^the 240 × 240 distance matrix this job keeps for re-clustering takes 112\.5 kB, over the [\d.]+ kB left/);
  assert.equal(await jobs(), before, 'nothing is queued');
  assert.deepEqual(await jobDirs(), dirsBefore, 'its job directory is removed');
  // 100 reads: 20 kB; 240 reads interpolated from a sample of 100: no N×N matrix is kept.
  await expectReply(await submit(100), 202);
  await expectReply(await submit(240, { sampleSize: 100 }), 202);
  assert.equal(await jobs(), before + 2);
});

test('jobs submitted together are held to the quota together: a queued job\'s kept matrix counts from submission, for jobs and uploads alike', async () => {
  const user = await signedIn(server.url, 'jobs-together');
  const dirsBefore = await jobDirs();
  // 150 reads keep a 45,000-byte matrix: two fit in the 100,000 bytes, four do not.
  const answers = await Promise.all(Array.from({ length: 4 }, () => submitReads(user, 150)));
  let queued = answers.filter((res) => res.status === 202).length;
  for (const res of answers.filter((r) => r.status !== 202)) {
    const body = await expectReply(res, 413, 'file', 'quota_exceeded');
    assert.match(body.error.message, /^the 150 × 150 distance matrix this job keeps for re-clustering takes 43\.9 kB, over the [\d.]+ (kB|bytes) left/);
  }
  assert.ok(queued <= 2, `${queued} of 4 queued`);
  if (queued === 0) {  // all refused under contention (as uploads may be): one alone is queued
    await expectReply(await submitReads(user, 150), 202);
    queued = 1;
  }
  assert.equal(await server.store.jobs.countDocuments({ owner: 'jobs-together' }), queued, 'the refused ones were not kept');
  assert.equal((await jobDirs()).length, dirsBefore.length + queued, 'nor their job directories');
  const jobs = (await user.json('GET', '/jobs')).items;
  assert.deepEqual(jobs.map((j: any) => j.input.keptBytes), Array(queued).fill(45_000));
  assert.deepEqual(await user.json('GET', '/storage'), { usedBytes: 45_000 * queued, limitBytes: QUOTA }, 'the queued jobs\' matrices are held');
  // An upload sees the room the queued jobs hold: 1,000 points (~38 kB stored) fit only without them.
  const upload = await user.upload('points.txt', points(1000));
  if (queued === 2) await expectReply(upload, 413, 'file', 'quota_exceeded');
  else assert.equal(upload.status, 201);
  // Cancelled, a job holds nothing any more.
  for (const job of jobs) await user.request('POST', `/jobs/${job.id}/cancel`);
  assert.equal((await user.json('GET', '/storage')).usedBytes, queued === 2 ? 0 : (await server.store.plots.findOne({ owner: 'jobs-together' }))!.storedBytes);
});

test('GET /storage says what the caller\'s plots take of the quota (a deleted one no longer); the library sorts by size, the largest first', async () => {
  const user = await signedIn(server.url, 'sizes');
  assert.deepEqual(await user.json('GET', '/storage'), { usedBytes: 0, limitBytes: QUOTA });
  const small = await user.uploaded('small.txt', points(10));
  const large = await user.uploaded('large.txt', points(500));
  const { items } = await user.json('GET', '/plots?scope=mine&sort=size');
  assert.deepEqual(items.map((p: { id: string }) => p.id), [large.id, small.id]);
  const stored = await server.store.plots.find({ owner: 'sizes' }).toArray();
  assert.deepEqual(items.map((p: { storedBytes: number }) => p.storedBytes), [large.id, small.id].map((id) => stored.find((d) => d._id === id)!.storedBytes));
  assert.deepEqual(await user.json('GET', '/storage'), { usedBytes: stored.reduce((sum, d) => sum + d.storedBytes!, 0), limitBytes: QUOTA });
  assert.equal((await fetch(`${server.url}/api/v1/storage`)).status, 401, 'signed-in users only');
  // A delete makes room at once, while its data is still being removed.
  await user.json('DELETE', `/plots/${large.id}`, undefined, 204);
  assert.equal((await user.json('GET', '/storage')).usedBytes, stored.find((d) => d._id === small.id)!.storedBytes);
});
