// Faults with real RabbitMQ, FerretDB and mpirun (fake kernels for timing control):
// a bridge killed mid-stage, a broker restart, services started before the broker,
// a worker killed holding a message, an assemble redone after its plot was stored,
// a cancel while a program runs, a program exiting non-zero.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { assembleStage } from '../../../workers/src/assemble.ts';
import { JobRepo } from '@wpv/jobs/repository';
import { Plots } from '../../src/services/plots.ts';
import { Gateway, isTerminal, signedIn, sleep, submit, testBroker, waitForJob } from './gateway.ts';

const FASTA = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
const stage = (job: any, name: string) => job.stages.find((s: any) => s.name === name);
const runningWithHandle = (name: string) => (job: any) => stage(job, name).state === 'running' && stage(job, name).backendJobId;
const moves = (job: any, name: string, to: string) => job.history.filter((h: any) => h.stage === name && h.to === to).length;

/** The process group leader still runs our wrapper. */
const groupAlive = (pid: string) => existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('run-stage');

describe('gateway faults', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ env: { FAKE_KERNEL_SECONDS: '2' } });
  });
  after(async () => gw?.close());

  test('a bridge killed mid-stage and restarted re-attaches: the job completes, each stage ran once', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    const before = await waitForJob(client, id, runningWithHandle('swg'));
    await gw.kill(gw.bridge);
    await sleep(500);
    await gw.startBridge();
    const job = await waitForJob(client, id, isTerminal);
    assert.equal(job.state, 'succeeded', job.error);
    assert.equal(stage(job, 'swg').backendJobId, stage(before, 'swg').backendJobId, 'the same process, not a resubmission');
    for (const name of ['swg', 'mds', 'pwc']) {
      assert.equal(stage(job, name).attempts, 1, name);
      assert.equal(moves(job, name, 'running'), 1, name);
      assert.equal(moves(job, name, 'succeeded'), 1, name);
    }
    assert.match(gw.logOf('bridge'), /re-attached to local/);
  });

  test('a RabbitMQ restart during a job loses nothing', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    await waitForJob(client, id, runningWithHandle('swg'));
    await testBroker.stop();
    await sleep(2500); // swg ends while the broker is down: its "advance" cannot be published yet
    testBroker.start();
    const job = await waitForJob(client, id, isTerminal, 90_000);
    assert.equal(job.state, 'succeeded', job.error);
    for (const name of ['swg', 'mds', 'pwc', 'assemble']) assert.equal(stage(job, name).attempts, 1, name);
  });

  test('a worker and a bridge started while RabbitMQ is down wait for it, then run jobs', async () => {
    await Promise.all([...gw.workers.splice(0), gw.bridge].map((c) => gw.kill(c, 'SIGTERM')));
    await testBroker.stop();
    const worker = gw.launchWorker();
    const bridge = gw.launchBridge();
    try {
      const waiting = (name: string) => /waiting for RabbitMQ at 127\.0\.0\.1:\d+: .*; retrying in \d+ s/.test(gw.logOf(name));
      for (let i = 0; i < 600 && !(waiting('worker0') && waiting('bridge')); i++) await sleep(100);
      assert.ok(waiting('worker0'), gw.logOf('worker0'));
      assert.ok(waiting('bridge'), gw.logOf('bridge'));
      await sleep(3000); // a few retries: still alive, not an exit
      assert.equal(worker.child.exitCode, null, gw.logOf('worker0'));
      assert.equal(bridge.child.exitCode, null, gw.logOf('bridge'));
    } finally {
      testBroker.start();
    }
    await Promise.all([worker.ready, bridge.ready]);
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    const job = await waitForJob(client, id, isTerminal, 90_000);
    assert.equal(job.state, 'succeeded', job.error);
    assert.match(gw.logOf('worker0'), /RabbitMQ at .*: reached after \d+ failed attempts/);
  });

  test('a worker killed while it holds a message: redelivered, the stage redone, the job done once', async () => {
    const client = await signedIn(gw.url);
    // 2000 vectors of 100 features: the distances stage takes a second or two in the worker.
    const rows = Array.from({ length: 2000 }, (_, i) => Array.from({ length: 100 }, (_, k) => Math.sin(i * 0.7 + k)).join(','));
    const { id } = await (await submit(client, 'vectors', 'v.csv', rows.join('\n'), { header: false })).json();
    await waitForJob(client, id, (j) => stage(j, 'distances').state === 'running', 30_000);
    await gw.kill(gw.workers.shift()!);
    await gw.startWorker();
    const job = await waitForJob(client, id, isTerminal, 90_000);
    assert.equal(job.state, 'succeeded', job.error);
    assert.equal(stage(job, 'distances').attempts, 2, 'the dead worker started it, the new one redid it');
    assert.equal(moves(job, 'distances', 'succeeded'), 1);
    assert.equal(moves(job, 'assemble', 'succeeded'), 1);
    assert.equal(job.history.filter((h: any) => h.stage === null && h.to === 'succeeded').length, 1);
    const plots = await client.json('GET', '/plots?scope=mine');
    assert.equal(plots.total, 1, 'one plot');
    assert.equal(plots.items[0].id, job.plotId);
  });

  test('an assemble redone after its worker died past the ingest links the one plot (or replaces a half-stored one)', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    const done = await waitForJob(client, id, isTerminal);
    assert.equal(done.state, 'succeeded', done.error);
    // The redo the orchestrator runs for a stage left `running`: the same stage code on the same job.
    const assemble = assembleStage(new Plots(gw.store, gw.config.limits));
    const job = (await new JobRepo(gw.store).get(id))!;
    assert.deepEqual(await assemble.run(job, new AbortController().signal), { plotId: done.plotId, warnings: [] }, 'the stored plot, found again');
    // A worker killed mid-ingest leaves the plot hidden (`ingesting`): the redo stores it afresh.
    await gw.store.plots.updateOne({ _id: done.plotId }, { $set: { state: 'ingesting' } });
    assert.deepEqual(await assemble.run(job, new AbortController().signal), { plotId: done.plotId, warnings: [] });
    const plots = await client.json('GET', '/plots?scope=mine');
    assert.equal(plots.total, 1, 'one plot');
    assert.equal(plots.items[0].id, done.plotId);
    const labels = await client.json('GET', `/plots/${done.plotId}/frames/0/labels`);
    assert.deepEqual(labels.slice(0, 3), ['a', 'b', 'c'], 'its frames stored again');
  });

  test('cancelling a running job kills its process group and stops the pipeline', async () => {
    await gw.kill(gw.bridge, 'SIGTERM');
    await gw.startBridge({ FAKE_KERNEL_SECONDS: '60' });
    try {
      const client = await signedIn(gw.url);
      const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
      const running = await waitForJob(client, id, runningWithHandle('swg'));
      const pid = stage(running, 'swg').backendJobId;
      await waitForJob(client, id, (j) => stage(j, 'swg').progress !== null);
      assert.ok(groupAlive(pid));
      const cancelled = await client.json('POST', `/jobs/${id}/cancel`);
      assert.equal(cancelled.state, 'cancelled');
      const job = await waitForJob(client, id, (j) => stage(j, 'swg').state === 'cancelled', 15_000);
      assert.ok(!groupAlive(pid), 'the program is gone');
      assert.deepEqual(job.stages.map((s: any) => s.state), ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
      assert.equal(job.state, 'cancelled');
      assert.equal(stage(job, 'mds').startedAt, null);
      // The bridge noticed the cancel and stopped the program seconds later: the stage still ended with its job.
      assert.equal(stage(job, 'swg').endedAt, job.endedAt, 'no stage outlasts its job');
    } finally {
      await gw.kill(gw.bridge, 'SIGTERM');
      await gw.startBridge();
    }
  });

  test('a program exiting non-zero fails the job with its own message, no paths or launcher banner', async () => {
    await gw.kill(gw.bridge, 'SIGTERM');
    await gw.startBridge({ FAKE_KERNEL_FAIL: 'damds' });
    try {
      const client = await signedIn(gw.url);
      const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
      // The job fails first; its waiting stages are cancelled right after.
      const job = await waitForJob(client, id, (j) => isTerminal(j) && stage(j, 'assemble').state !== 'pending');
      assert.equal(job.state, 'failed');
      // The program's message first, its path shortened; no launcher banner, no server path.
      assert.match(job.error, /^damds: simulated failure: cannot read dist\.bin\b.*\(exit code 3\); stage mds failed$/s);
      assert.doesNotMatch(job.error, /mpirun|-{10}|\//);
      assert.equal(stage(job, 'mds').exitCode, 3);
      assert.equal(stage(job, 'assemble').state, 'cancelled');
      assert.equal(job.plotId, undefined);
      const logs = await client.json('GET', `/jobs/${id}/logs?stage=mds`);
      assert.match(logs.stderr, /simulated failure/);
      // A failed job can be retried; with the program fixed it succeeds.
      await gw.kill(gw.bridge, 'SIGTERM');
      await gw.startBridge();
      const retry = await client.json('POST', `/jobs/${id}/retry`, undefined, 202);
      assert.equal((await waitForJob(client, retry.id, isTerminal)).state, 'succeeded');
    } finally {
      if (!gw.bridge || gw.bridge.exitCode !== null) await gw.startBridge();
    }
  });
});
