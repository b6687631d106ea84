// The sweeper on the real store and broker: an idle active job is re-advanced once
// it has been idle long enough, then less and less often while it stays idle (a job
// waiting its turn must not cost a message per sweep), and never once it has ended.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Sweeper } from '../../../workers/src/sweeper.ts';
import { JobBroker, type PipelineMessage } from '@wpv/jobs/broker';
import { JobRepo } from '@wpv/jobs/repository';
import { Gateway, signedIn, sleep, submit } from './gateway.ts';

const IDLE_MS = 2000;

describe('the sweeper', () => {
  let gw: Gateway;
  let broker: JobBroker;
  let sweeper: Sweeper;
  const received: PipelineMessage[] = [];

  before(async () => {
    // No worker: this test reads the pipeline queue itself; nothing moves the job on its own.
    gw = await Gateway.start({ workers: 0, bridge: false });
    broker = new JobBroker(gw.env.AMQP_URL!, gw.env.JOB_QUEUE_PREFIX);
    sweeper = new Sweeper(new JobRepo(gw.store), broker, () => {});
    await broker.consume('pipeline', async (message) => void received.push(message));
  });
  after(async () => {
    await broker?.close();
    await gw?.close();
  });

  const sweeps = async (count: number) => {
    for (let i = 0; i < 50 && received.filter((m) => m.sweep).length < count; i++) await sleep(100);
    return received.filter((m) => m.sweep).length;
  };

  test('re-advances an idle job after the idle time, then backs off, and stops once the job ended', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'distance-matrix', 'd.bin', new Uint8Array(2 * 3 * 3), { points: 3 })).json();
    assert.equal(await sweeper.sweep(IDLE_MS), 0, 'just submitted: not idle');
    await sleep(IDLE_MS + 200);
    assert.equal(await sweeper.sweep(IDLE_MS), 1);
    assert.equal(await sweeps(1), 1);
    assert.deepEqual(received.at(-1), { jobId: id, sweep: true });
    assert.equal(await sweeper.sweep(IDLE_MS), 0, 'swept a moment ago');
    await sleep(IDLE_MS + 200);
    assert.equal(await sweeper.sweep(IDLE_MS), 0, 'the second re-advance waits twice the idle time');
    await sleep(IDLE_MS);
    assert.equal(await sweeper.sweep(IDLE_MS), 1);
    assert.equal(await sweeps(2), 2);
    assert.equal(await gw.store.jobActive.countDocuments(), 1);
    await client.json('POST', `/jobs/${id}/cancel`);
    assert.equal(await gw.store.jobActive.countDocuments(), 0, 'an ended job is no longer active');
    assert.equal(await sweeper.sweep(0), 0);
  });
});
