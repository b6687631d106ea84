// A long-lived RabbitMQ connection that reconnects by itself; the health check
// reports it, and the job gateway publishes through it.
import amqp, { type ChannelModel } from 'amqplib';

export class AmqpLink {
  private connection: ChannelModel | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  async start(): Promise<void> {
    await this.connect().catch((err) => this.scheduleReconnect(err));
  }

  get connected(): boolean {
    return this.connection !== null;
  }

  private async connect(): Promise<void> {
    const connection = await amqp.connect(this.url, { timeout: 5000 });
    connection.on('error', () => {}); // 'close' follows and handles it
    connection.on('close', () => {
      this.connection = null;
      if (!this.closed) this.scheduleReconnect(new Error('connection closed'));
    });
    this.connection = connection;
  }

  private scheduleReconnect(err: Error): void {
    if (this.closed || this.retry) return;
    console.warn(`amqp: ${err.message}; retrying in 2 s`);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch((e) => this.scheduleReconnect(e));
    }, 2000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connection?.close().catch(() => {});
    this.connection = null;
  }
}
