// RabbitMQ topology and messaging of the job gateway.
//   wpv.pipeline        quorum queue: "advance job X" for the workers' orchestrator
//   wpv.hpc             quorum queue: "run stage S of job X" for the hpc-bridge
//   wpv.pipeline.delay  classic queue without consumers: a message waits out its
//                       expiration, then dead-letters into wpv.pipeline (retry backoff)
//   wpv.dead            exchange + queue for messages over the delivery limit
// ("wpv" is the default prefix, JOB_QUEUE_PREFIX: test runs and deployments sharing a broker keep apart.)
// Queues are durable, messages persistent, publishes wait for the broker's confirm,
// consumers ack by hand with prefetch 1. A handler that throws gets its message
// back (nack + requeue) after a pause; the quorum queue counts deliveries and
// dead-letters a poison message on the sixth. A body that is not JSON is poison
// from the start: rejected without requeue (dead-lettered, or dropped from wpv.dead).
// A handler that throws because a service it needs is down (`outage`: the store) is no
// poison: the consumer keeps the message and calls it again with backoff until the
// service is back, so an outage delays jobs but spends none of their deliveries.
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { backoffMs, endpointOf, retrying, sleep } from './retry.ts';

/** The queues by role; their names get the deployment's prefix (JOB_QUEUE_PREFIX, "wpv" by default). */
export type QueueRole = 'pipeline' | 'hpc' | 'delay' | 'dead';
export function queueNames(prefix: string): Record<QueueRole, string> {
  return { pipeline: `${prefix}.pipeline`, hpc: `${prefix}.hpc`, delay: `${prefix}.pipeline.delay`, dead: `${prefix}.dead` };
}
export const DELIVERY_LIMIT = 5;
const REQUEUE_PAUSE_MS = 1000;

export interface PipelineMessage {
  jobId: string;
  /** Sent by the sweeper for a job idle too long: re-send whatever may have been lost. */
  sweep?: boolean;
}
export interface HpcMessage {
  jobId: string;
  stage: string;
}
export interface Delivery {
  redelivered: boolean;
  /** Deliveries before this one (quorum queues count them). */
  deliveryCount: number;
  queue: string;
}
export type Handler = (message: any, delivery: Delivery) => Promise<void>;
interface Consumer {
  queue: string;
  handler: Handler;
}

async function assertTopology(channel: Channel, queues: Record<QueueRole, string>): Promise<void> {
  const deadExchange = queues.dead;
  await channel.assertExchange(deadExchange, 'fanout', { durable: true });
  await channel.assertQueue(queues.dead, { durable: true });
  await channel.bindQueue(queues.dead, deadExchange, '');
  const work = {
    durable: true,
    arguments: { 'x-queue-type': 'quorum', 'x-delivery-limit': DELIVERY_LIMIT, 'x-dead-letter-exchange': deadExchange },
  };
  await channel.assertQueue(queues.pipeline, work);
  await channel.assertQueue(queues.hpc, work);
  await channel.assertQueue(queues.delay, {
    durable: true,
    arguments: { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queues.pipeline },
  });
}

export class JobBroker {
  private opening: Promise<{ connection: ChannelModel; publisher: ConfirmChannel }> | null = null;
  private readonly consumers: Consumer[] = [];
  private readonly subscribed = new WeakMap<ChannelModel, Set<Consumer>>();
  readonly queues: Record<QueueRole, string>;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  /** Failed reconnects in a row: the backoff grows with them. */
  private reconnects = 0;

  constructor(
    private readonly url: string,
    prefix = 'wpv',
    private readonly log: (line: string) => void = (line) => console.warn(line),
    /** Whether a handler's error is an outage of a service it needs, to be waited out rather than counted. */
    private readonly outage: (err: unknown) => boolean = () => false,
  ) {
    this.queues = queueNames(prefix);
  }

  /** Publishes a persistent message and resolves once the broker has confirmed it. */
  async publish(role: 'pipeline' | 'hpc', message: object, options: { delayMs?: number } = {}): Promise<void> {
    const { publisher } = await this.open();
    const target = this.queues[options.delayMs ? 'delay' : role];
    const body = Buffer.from(JSON.stringify(message));
    await new Promise<void>((resolve, reject) => {
      publisher.sendToQueue(
        target,
        body,
        {
          persistent: true,
          contentType: 'application/json',
          ...(options.delayMs && { expiration: String(Math.ceil(options.delayMs)) }),
        },
        (err) => (err ? reject(new Error(`the broker refused the message: ${err}`)) : resolve()),
      );
    });
  }

  /** Resolves once the broker is reached and the topology declared, retrying with backoff (start-up). */
  async waitForConnection(): Promise<void> {
    await retrying(`RabbitMQ at ${endpointOf(this.url)}`, () => this.open(), this.log);
  }

  /**
   * Consumes `queue` with prefetch 1 and manual acks, re-subscribing after every
   * reconnect. A broker lost meanwhile is not an error: the reconnect subscribes.
   */
  async consume(role: 'pipeline' | 'hpc' | 'dead', handler: Handler): Promise<void> {
    const consumer = { queue: this.queues[role], handler };
    this.consumers.push(consumer);
    try {
      const { connection } = await this.open();
      await this.subscribe(connection, consumer);
    } catch (err) {
      this.scheduleReconnect(`cannot consume ${consumer.queue}: ${(err as Error).message}`);
    }
  }

  get connected(): boolean {
    return this.opening !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const open = this.opening;
    this.opening = null;
    if (open) await open.then(({ connection }) => connection.close()).catch(() => {});
  }

  private open() {
    if (this.closed) return Promise.reject(new Error('the job broker is closed'));
    this.opening ??= this.connect().catch((err) => {
      this.opening = null;
      throw err;
    });
    return this.opening;
  }

  private async connect() {
    const connection = await amqp.connect(this.url, { timeout: 5000 });
    connection.on('error', () => {}); // 'close' follows
    connection.on('close', () => {
      this.opening = null;
      if (!this.closed && this.consumers.length) this.scheduleReconnect('connection closed');
    });
    const publisher = await connection.createConfirmChannel();
    publisher.on('error', () => {});
    await assertTopology(publisher, this.queues);
    for (const consumer of this.consumers) await this.subscribe(connection, consumer);
    this.reconnects = 0;
    return { connection, publisher };
  }

  private scheduleReconnect(why: string): void {
    if (this.retry || this.closed) return;
    const wait = backoffMs(this.reconnects++);
    this.log(`amqp: ${why}; reconnecting to ${endpointOf(this.url)} in ${wait / 1000} s`);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.open().catch((err) => this.scheduleReconnect(err.message));
    }, wait);
  }

  /** One channel per consumer and connection (a consumer added while connecting is met twice). */
  private async subscribe(connection: ChannelModel, consumer: Consumer): Promise<void> {
    const done = (this.subscribed.get(connection) ?? this.subscribed.set(connection, new Set()).get(connection))!;
    if (done.has(consumer)) return;
    done.add(consumer);
    const { queue, handler } = consumer;
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    await channel.prefetch(1);
    await channel.consume(queue, (msg: ConsumeMessage | null) => {
      if (!msg) return; // consumer cancelled by the broker; the reconnect re-subscribes
      void this.deliver(channel, queue, msg, handler);
    });
  }

  private async deliver(channel: Channel, queue: string, msg: ConsumeMessage, handler: Handler): Promise<void> {
    const delivery: Delivery = {
      queue,
      redelivered: msg.fields.redelivered,
      deliveryCount: Number(msg.properties.headers?.['x-delivery-count'] ?? 0),
    };
    let message: unknown;
    try {
      message = JSON.parse(msg.content.toString('utf8'));
    } catch {
      this.log(`${queue}: rejected a message that is not JSON: ${JSON.stringify(msg.content.toString('utf8').slice(0, 200))}`);
      settle(() => channel.nack(msg, false, false));
      return;
    }
    try {
      await this.throughOutages(queue, message, delivery, handler);
      settle(() => channel.ack(msg));
    } catch (err) {
      // The message (a job's id) names the log line: a failed job's owner is told to report its id.
      this.log(`${queue}: handler failed on ${JSON.stringify(message).slice(0, 200)} (delivery ${delivery.deliveryCount + 1}): ${(err as Error).stack ?? err}`);
      await sleep(REQUEUE_PAUSE_MS);
      settle(() => channel.nack(msg, false, true));
    }
  }

  /**
   * Calls the handler until it ends otherwise than by an outage, waiting 1, 2, 4 … 15 s between
   * calls while holding the message (prefetch 1: this consumer takes no other meanwhile). A call
   * after an outage is told `redelivered`: the earlier one ended half-way, and what it left running
   * (a worker stage) is this call's to redo, as after a worker's crash.
   */
  private async throughOutages(queue: string, message: unknown, delivery: Delivery, handler: Handler): Promise<void> {
    for (let outages = 0; ; outages++) {
      try {
        await handler(message, outages ? { ...delivery, redelivered: true } : delivery);
        if (outages) this.log(`${queue}: handled once the outage was over (${outages} calls failed)`);
        return;
      } catch (err) {
        if (this.closed || !this.outage(err)) throw err;
        const wait = backoffMs(outages);
        this.log(`${queue}: waiting out an outage: ${(err as Error).message}; the message is kept and handled again in ${wait / 1000} s`);
        await sleep(wait);
      }
    }
  }
}

function settle(ackOrNack: () => void): void {
  try {
    ackOrNack();
  } catch {
    // the channel died with its connection: the broker requeues the message itself
  }
}
