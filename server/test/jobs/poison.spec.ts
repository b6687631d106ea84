// Poison messages on the real RabbitMQ: a pipeline message whose handler always
// throws is redelivered up to the quorum queue's delivery limit, then dead-lettered,
// and the dead-letter consumer fails its job with the reason: no endless loop, no
// job left hanging. A body that is not JSON is rejected at once and dropped.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import amqp from 'amqplib';
import { Sweeper } from '../../../workers/src/sweeper.ts';
import { DELIVERY_LIMIT, JobBroker } from '@wpv/jobs/broker';
import { JobRepo } from '@wpv/jobs/repository';
import { Gateway, isTerminal, signedIn, sleep, submit, waitForJob } from './gateway.ts';

describe('poison messages', () => {
  let gw: Gateway;
  let broker: JobBroker;
  const logged: string[] = [];
  /** Deliveries of each job's message to the always-failing handler, with the count the queue reported. */
  const deliveries = new Map<string, number[]>();

  before(async () => {
    // No worker process: this test's handler takes the pipeline queue, the real sweeper the dead letters.
    gw = await Gateway.start({ workers: 0, bridge: false });
    broker = new JobBroker(gw.env.AMQP_URL!, gw.env.JOB_QUEUE_PREFIX, (line) => logged.push(line));
    const sweeper = new Sweeper(new JobRepo(gw.store), broker, (line) => logged.push(line));
    await broker.consume('pipeline', async ({ jobId }, delivery) => {
      deliveries.set(jobId, [...(deliveries.get(jobId) ?? []), delivery.deliveryCount]);
      throw new Error('this worker cannot process the job');
    });
    await broker.consume('dead', (message, delivery) => sweeper.deadLettered(message, delivery));
  });
  after(async () => {
    await broker?.close();
    await gw?.close();
  });

  const queueDepths = async () => {
    const connection = await amqp.connect(gw.env.AMQP_URL!);
    try {
      const channel = await connection.createChannel();
      const depth = async (queue: string) => (await channel.checkQueue(queue)).messageCount;
      return { pipeline: await depth(broker.queues.pipeline), dead: await depth(broker.queues.dead) };
    } finally {
      await connection.close();
    }
  };

  test('a message whose handler always throws is redelivered up to the limit, dead-lettered, and its job failed', async () => {
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', new Uint8Array(2 * 4 * 4), { points: 4 });
    assert.equal(res.status, 202);
    const { id } = await res.json();
    const job = await waitForJob(client, id, isTerminal, 60_000);
    assert.equal(job.state, 'failed');
    assert.match(job.error, new RegExp(`gave up on this job after ${DELIVERY_LIMIT + 1} failed attempts at its next step .*; retry it`));
    assert.deepEqual(
      job.history.filter((h: any) => h.stage === null).map((h: any) => [h.from, h.to]),
      [['', 'queued'], ['queued', 'failed']],
    );
    assert.deepEqual(deliveries.get(id), [0, 1, 2, 3, 4, 5], 'the first delivery and five redeliveries, counted by the queue');
    await sleep(3000);
    assert.equal(deliveries.get(id)!.length, DELIVERY_LIMIT + 1, 'not delivered again once dead-lettered');
    assert.deepEqual(await queueDepths(), { pipeline: 0, dead: 0 }, 'nothing left behind in either queue');
    assert.ok(logged.some((line) => line.includes(`${id}: failed (dead-lettered message)`)), logged.join('\n'));
    // The error tells the owner to report the job's id: each failed attempt's log line names it.
    const failures = logged.filter((line) => line.startsWith(`${broker.queues.pipeline}: handler failed on {"jobId":"${id}"`));
    assert.equal(failures.length, DELIVERY_LIMIT + 1, logged.join('\n'));
  });

  test('a body that is not JSON is rejected without redelivery and dropped from the dead-letter queue', async () => {
    const connection = await amqp.connect(gw.env.AMQP_URL!);
    try {
      const channel = await connection.createConfirmChannel();
      channel.sendToQueue(broker.queues.pipeline, Buffer.from('{not json'), { persistent: true });
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    const rejected = (queue: string) => logged.some((line) => line.startsWith(`${queue}: rejected a message that is not JSON: "{not json"`));
    for (let i = 0; i < 100 && !rejected(broker.queues.dead); i++) await sleep(100);
    assert.ok(rejected(broker.queues.pipeline), logged.join('\n'));
    assert.ok(rejected(broker.queues.dead), logged.join('\n'));
    await sleep(1000);
    assert.equal(logged.filter((line) => line.includes('{not json')).length, 2, 'seen once by each queue, no loop');
    assert.deepEqual(await queueDepths(), { pipeline: 0, dead: 0 });
  });
});
