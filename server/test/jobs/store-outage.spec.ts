// The store (FerretDB) down for a while, with real RabbitMQ, mpirun (fake kernels) and a worker
// process: the API answers at once that the database is unavailable, and a job with a message
// handled during the outage waits for the store instead of spending its message's deliveries (six
// failed deliveries dead-letter it, which failed the job). A job whose message is dead-lettered
// all the same has no stage left running.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { JobBroker } from '@wpv/jobs/broker';
import { JobRepo } from '@wpv/jobs/repository';
import { Sweeper } from '../../../workers/src/sweeper.ts';
import { Gateway, isTerminal, signedIn, sleep, submit, testStore, waitForJob } from './gateway.ts';

const stage = (job: any, name: string) => job.stages.find((s: any) => s.name === name);
const FASTA = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
const VECTORS = '1,2\n3,4\n5,6\n';

/** Status, body, Retry-After and seconds of one request. */
async function timed(url: string, cookie = ''): Promise<{ status: number; body: any; retryAfter: string | null; seconds: number }> {
  const started = Date.now();
  const res = await fetch(url, { headers: cookie ? { cookie } : {} });
  const body = await res.json();
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), seconds: (Date.now() - started) / 1000 };
}

/** The events of an SSE stream until it ends, each with the time it arrived. */
async function eventTimes(url: string, cookie: string): Promise<{ event: string; at: number }[]> {
  const res = await fetch(url, { headers: { cookie } });
  const seen: { event: string; at: number }[] = [];
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body!) {
    const lines = (pending + decoder.decode(chunk as Uint8Array, { stream: true })).split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line.startsWith('event: ')) seen.push({ event: line.slice(7), at: Date.now() });
  }
  return seen;
}

describe('a store outage', () => {
  let gw: Gateway;
  let broker: JobBroker;
  before(async () => {
    gw = await Gateway.start({ env: { FAKE_KERNEL_SECONDS: '2' } });
    broker = new JobBroker(gw.env.AMQP_URL!, gw.env.JOB_QUEUE_PREFIX);
  });
  after(async () => {
    testStore.start(); // whatever happened in a test, the next suites need it
    await broker?.close();
    await gw?.close();
  });

  test('the API answers 503 store_unavailable with Retry-After within 2 s, health too, and recovers once it is back', async () => {
    const client = await signedIn(gw.url);
    await testStore.stop();
    try {
      // Past the driver's next heartbeat (every 2 s), when it knows the server is gone: until then requests
      // could wait for it, and they waited 10 s with the driver's default heartbeat.
      await sleep(5_000);
      for (const path of ['/plots', '/auth/session', '/jobs']) {
        const answer = await timed(`${gw.url}/api/v1${path}`, client.cookie);
        assert.equal(answer.status, 503, `${path}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.code, 'store_unavailable', path);
        assert.equal(answer.retryAfter, '5', path);
        assert.ok(answer.seconds < 2, `${path} answered in ${answer.seconds} s`);
      }
      const health = await timed(`${gw.url}/api/v1/health`);
      assert.equal(health.status, 503);
      assert.match(health.body.mongo, /^down: /);
      assert.ok(health.seconds < 2, `health answered in ${health.seconds} s`);
    } finally {
      testStore.start();
    }
    let health = await timed(`${gw.url}/api/v1/health`);
    for (let i = 0; i < 50 && health.status !== 200; i++) health = await sleep(200).then(() => timed(`${gw.url}/api/v1/health`));
    assert.equal(health.status, 200, JSON.stringify(health.body));
    assert.equal((await timed(`${gw.url}/api/v1/plots`, client.cookie)).status, 200, 'no restart needed');
  });

  test('with a message for a job to handle, the worker holds it without spending a delivery, and the job succeeds once the store is back', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    await waitForJob(client, id, (j) => stage(j, 'swg').state === 'running');
    const events = eventTimes(`${gw.url}/api/v1/jobs/${id}/events`, client.cookie);
    await sleep(500); // connected
    await testStore.stop();
    const stoppedAt = Date.now();
    try {
      // An advance arriving meanwhile (the sweeper's, the bridge's) used to fail at once, then after each
      // 10 s server selection, each time spending a delivery: dead-lettered on its sixth (~60 s), it
      // failed the job. 30 s hold at least two failed calls, which spent two deliveries then.
      await broker.publish('pipeline', { jobId: id });
      await sleep(30_000);
    } finally {
      testStore.start();
    }
    const job = await waitForJob(client, id, isTerminal, 90_000);
    assert.equal(job.state, 'succeeded', job.error);
    for (const s of job.stages) assert.equal(s.state, 'succeeded', s.name);
    const held = gw.logOf('worker0').match(/waiting out an outage: .*; the message is kept and handled again in \d+ s/g) ?? [];
    assert.ok(held.length >= 2, `held through ${held.length} failed calls`);
    assert.doesNotMatch(gw.logOf('worker0'), new RegExp(`handler failed on .*${id}`), 'a delivery was spent on the outage');
    // The held message's next try comes up to 15 s after the store is back; the job may end before it.
    for (let i = 0; i < 100 && !/handled once the outage was over/.test(gw.logOf('worker0')); i++) await sleep(200);
    assert.match(gw.logOf('worker0'), /handled once the outage was over/);
    // The bridge says the outage once, not every poll of every stage with the driver's stack.
    const bridgeLog = gw.logOf('bridge');
    assert.doesNotMatch(bridgeLog, /Mongo(ServerSelection|Network)Error/);
    const saidDown = bridgeLog.match(/the store is unreachable/g)?.length ?? 0;
    assert.ok(saidDown <= 1, `said ${saidDown} times`);
    if (saidDown) assert.match(bridgeLog, /the store is unreachable[^]*the store answers again/);
    // Its progress stream said so within seconds, and again every few seconds (a page whose check met
    // the store's last answers learns it again), then followed the job to its end.
    const seen = await events;
    const unavailable = seen.filter((e) => e.event === 'unavailable').map((e) => (e.at - stoppedAt) / 1000);
    assert.ok(unavailable.length >= 4, `${unavailable.length} unavailable events in 30 s`);
    assert.ok(unavailable[0]! < 4, `first said ${unavailable[0]} s after the stop`);
    const gaps = unavailable.slice(1).map((t, i) => t - unavailable[i]!);
    assert.ok(Math.max(...gaps) < 8, `said again after ${Math.max(...gaps)} s`);
    const names = seen.map((e) => e.event);
    const afterOutage = names.slice(names.lastIndexOf('unavailable') + 1);
    assert.equal(afterOutage[0], 'job', 'a snapshot once it is back');
    assert.equal(afterOutage.at(-1), 'end');
  });
});

describe('a job whose message is dead-lettered', () => {
  let gw: Gateway;
  let broker: JobBroker;
  before(async () => {
    gw = await Gateway.start({ workers: 0, bridge: false }); // nothing moves the job but the test
    broker = new JobBroker(gw.env.AMQP_URL!, gw.env.JOB_QUEUE_PREFIX);
  });
  after(async () => {
    await broker?.close();
    await gw?.close();
  });

  test('fails with its running stages, which end with it; the waiting ones are cancelled', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'vectors', 'v.csv', VECTORS, { header: false })).json();
    const repo = new JobRepo(gw.store);
    // As a worker that took distances and then kept failing on its message left it.
    assert.ok(await repo.moveJob(id, 'running', 'test'));
    assert.ok(await repo.moveStage(id, 'distances', 'queued', 'test'));
    assert.ok(await repo.moveStage(id, 'distances', 'running', 'test', { startedAt: new Date(), attempts: 1 }));
    await new Sweeper(repo, broker, () => {}).deadLettered({ jobId: id }, { redelivered: true, deliveryCount: 6, queue: 'dead' });
    const job = await client.json('GET', `/jobs/${id}`);
    assert.equal(job.state, 'failed');
    assert.match(job.error, /gave up on this job/);
    assert.equal(stage(job, 'distances').state, 'failed', 'not running (the page said "stopping…" for ever)');
    assert.equal(stage(job, 'distances').endedAt, job.endedAt, 'ended with its job');
    for (const name of ['mds', 'pwc', 'assemble']) {
      assert.equal(stage(job, name).state, 'cancelled', name);
      assert.equal(stage(job, name).endedAt, job.endedAt, name);
    }
  });
});
