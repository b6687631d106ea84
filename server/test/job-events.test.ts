// Progress streams (SSE) of jobs: a few per user, one store poll per job for all its streams.
// No workers run here, so a submitted job stays queued until it is cancelled.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobRepo } from '@wpv/jobs/repository';
import { JobPolls } from '../src/routes/job-events.ts';
import { Client, startServer, type TestServer } from './harness.ts';

const FASTA = '>s1 first\nACGTACGTAC\n>s2\nACGTTCGTAC\nACG\n>s3\nTTGTACGTAA\n>s4\nACGAACGTAC\n';

let server: TestServer;
let owner: Client;
let other: Client;
let jobId: string;
let otherJobId: string;
async function submit(client: Client): Promise<string> {
  const form = new FormData();
  form.set('type', 'sequence-clustering');
  form.set('params', '{}');
  form.set('file', new Blob([FASTA]), 'reads.fasta');
  const res = await client.request('POST', '/jobs', form);
  assert.equal(res.status, 202, await res.clone().text());
  return (await res.json()).id;
}
before(async () => {
  // Queues of this file only: no worker of another suite picks these jobs up.
  process.env.JOB_QUEUE_PREFIX = `wpvtest.events.${randomBytes(4).toString('hex')}`;
  server = await startServer({ MAX_EVENT_STREAMS: '5' });
  owner = new Client(server.url);
  await owner.signUp('paula');
  other = new Client(server.url);
  await other.signUp('quinn');
  jobId = await submit(owner);
  otherJobId = await submit(other);
});
after(() => server.close());

interface Stream {
  status: number;
  response: Response;
  abort: AbortController;
  /** Everything read until the stream ends. */
  rest: Promise<string>;
}

async function open(client: Client, job = jobId): Promise<Stream> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/api/v1/jobs/${job}/events`, { headers: { cookie: client.cookie }, signal: abort.signal });
  if (response.status !== 200) return { status: response.status, response, abort, rest: response.text() };
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /event: job/);
  const rest = (async () => {
    let text = first;
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return text;
      text += new TextDecoder().decode(value);
    }
  })();
  return { status: 200, response, abort, rest };
}

test('a user may hold a few streams; one more is a 429 until one closes; other users are not affected', async () => {
  const streams = [];
  for (let i = 0; i < 5; i++) streams.push(await open(owner));
  const refused = await open(owner);
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.response.headers.get('retry-after')) > 0);
  assert.equal(JSON.parse(await refused.rest).error.code, 'too_many_streams');
  const others = await open(other, otherJobId);
  assert.equal(others.status, 200, 'another user has places of their own');
  others.abort.abort();

  streams.shift()!.abort.abort();
  let reopened: Stream | undefined;
  for (let i = 0; i < 40 && reopened?.status !== 200; i++) {
    await sleep(50);
    reopened = await open(owner);
  }
  assert.equal(reopened!.status, 200, 'a closed stream frees its place');
  streams.push(reopened!);

  // Every open stream follows the job to its end through the shared poll.
  assert.equal((await owner.request('POST', `/jobs/${jobId}/cancel`)).status, 200);
  for (const stream of streams) {
    const text = await stream.rest;
    assert.match(text, /"state":"cancelled"/);
    assert.match(text, /event: end/);
  }
  const after = await open(owner);
  assert.equal(after.status, 200, 'ended streams free their places');
  assert.match(await after.rest, /event: end/);
});

test('all the streams of one job share one store poll', async () => {
  const repo = new JobRepo(server.store);
  let loads = 0;
  // Counted when a read lands, not when it starts: a read still in flight when the watchers
  // stop has not reached them (counting it made `seen` one read short now and then).
  const polls = new JobPolls(async (id) => {
    const doc = await repo.get(id);
    loads++;
    return doc;
  });
  let seen = 0;
  const stops = Array.from({ length: 50 }, () => polls.watch(jobId, (doc) => doc && seen++));
  await sleep(1100);
  for (const stop of stops) stop();
  // 250 ms apart: about 4 reads in 1.1 s for all 50 watchers (one each would be 200).
  assert.ok(loads >= 2 && loads <= 5, `${loads} store reads`);
  assert.equal(seen, 50 * loads);
  const settled = loads;
  await sleep(600);
  assert.ok(loads <= settled + 1, 'polling stops when the last watcher leaves');
});

/** A job of its own whose first stage runs, as the bridge records it, and a stream following it. */
async function runningJob(): Promise<{ id: string; stage: string; repo: JobRepo; stream: Stream }> {
  const id = await submit(owner);
  const repo = new JobRepo(server.store);
  const stage = (await repo.get(id))!.stageOrder[0]!;
  assert.ok(await repo.moveJob(id, 'running', 'test'));
  assert.ok(await repo.moveStage(id, stage, 'queued', 'test'));
  assert.ok(await repo.moveStage(id, stage, 'running', 'test', { startedAt: new Date() }));
  return { id, stage, repo, stream: await open(owner, id) };
}

/** The stages of the last job snapshot a stream sent. */
function lastStages(text: string): { name: string; state: string }[] {
  const snapshots = [...text.matchAll(/^event: job\ndata: (.*)$/gm)];
  return JSON.parse(snapshots.at(-1)![1]!).stages;
}

test('a cancelled job\'s stream ends once the bridge has recorded its running stage cancelled, not before', async () => {
  const { id, stage, repo, stream } = await runningJob();
  assert.equal((await owner.request('POST', `/jobs/${id}/cancel`)).status, 200);
  await sleep(1000); // the bridge stops the program, then records the stage
  assert.ok(await repo.moveStage(id, stage, 'cancelled', 'job cancelled; stopped', { endedAt: new Date() }));
  const text = await stream.rest;
  assert.match(text, /event: end/);
  const stages = lastStages(text);
  assert.deepEqual(stages.filter((s) => s.state !== 'cancelled'), [], 'the last snapshot has every stage cancelled');
});

test('a stage that never leaves running holds a terminal job\'s stream only a few seconds', async () => {
  const { id, stage, stream } = await runningJob();
  const cancelled = Date.now();
  assert.equal((await owner.request('POST', `/jobs/${id}/cancel`)).status, 200);
  const text = await stream.rest;
  const waited = Date.now() - cancelled;
  assert.match(text, /event: end/);
  assert.ok(waited >= 9_000 && waited < 15_000, `ended ${waited} ms after the cancel`);
  assert.equal(lastStages(text).find((s) => s.name === stage)!.state, 'running');
});
