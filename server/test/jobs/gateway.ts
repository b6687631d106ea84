// A whole job gateway for tests: the API in-process, workers and hpc-bridge as
// child processes (so tests can kill and restart them), sharing a private database,
// data directory and queue-name prefix on the test stack's FerretDB and RabbitMQ.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import path from 'node:path';
import { createApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { AmqpLink } from '../../src/storage/amqp.ts';
import { openStore, type Store } from '../../src/storage/db.ts';
import { Client } from '../harness.ts';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const FAKE_KERNELS = path.join(import.meta.dirname, 'fixtures/bin');
export const REAL_KERNELS = path.join(ROOT, 'kernels/build/bin');

export interface GatewayOptions {
  kernels?: string;
  backend?: 'local' | 'slurm';
  /** Extra environment of the workers and the bridge (FAKE_KERNEL_SECONDS, ...). */
  env?: Record<string, string>;
  /** Environment of the API (JOB_MAX_ACTIVE, ...). */
  apiEnv?: Record<string, string>;
  workers?: number;
  bridge?: boolean;
}

export class Gateway {
  bridge: ChildProcess | null = null;
  workers: ChildProcess[] = [];
  private serial = 0;

  private constructor(
    readonly url: string,
    readonly store: Store,
    readonly config: Config,
    readonly env: Record<string, string>,
    private readonly closeApi: () => Promise<void>,
  ) {}

  static async start(options: GatewayOptions = {}): Promise<Gateway> {
    const base = process.env.MONGODB_URI;
    if (!base || !process.env.AMQP_URL) throw new Error('run through `npm test`: MONGODB_URI and AMQP_URL must point at the test stack');
    const tag = randomBytes(5).toString('hex');
    const uri = new URL(base);
    uri.pathname = `/wpvjobs_${tag}`;
    const dataDir = path.join(process.env.WPV_TEST_DIR ?? '/tmp', `gateway-${tag}`);
    await mkdir(dataDir, { recursive: true });
    const env: Record<string, string> = {
      MONGODB_URI: uri.toString(),
      AMQP_URL: process.env.AMQP_URL,
      DATA_DIR: dataDir,
      JOB_QUEUE_PREFIX: `wpvtest.${tag}`,
      KERNELS_BIN: options.kernels ?? FAKE_KERNELS,
      HPC_BACKEND: options.backend ?? 'local',
      HPC_POLL_MS: '200',
      ...options.env,
    };
    // The API reads the job settings from its own environment: this process is one test file.
    Object.assign(process.env, { JOB_QUEUE_PREFIX: env.JOB_QUEUE_PREFIX }, options.apiEnv);
    const config = loadConfig({ ...process.env, ...env });
    const store = await openStore(config.mongodbUri);
    const amqp = new AmqpLink(config.amqpUrl);
    await amqp.start();
    const { app, jobs } = createApp({ config, store, amqp });
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    const gateway = new Gateway(`http://127.0.0.1:${port}`, store, config, env, async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await jobs.close();
      await amqp.close();
      await store.db.dropDatabase();
      await store.client.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    for (let i = 0; i < (options.workers ?? 1); i++) await gateway.startWorker();
    if (options.bridge ?? true) await gateway.startBridge();
    return gateway;
  }

  async startWorker(): Promise<ChildProcess> {
    const child = await this.spawnService('workers/src/main.ts', `worker${this.workers.length}`);
    this.workers.push(child);
    return child;
  }

  async startBridge(env: Record<string, string> = {}): Promise<ChildProcess> {
    this.bridge = await this.spawnService('hpc-bridge/src/main.ts', 'bridge', env);
    return this.bridge;
  }

  /** Kills a service process (SIGKILL by default: a crash, not a clean stop). */
  async kill(child: ChildProcess | null, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  logOf(name: string): string {
    const file = path.join(this.env.DATA_DIR!, `${name}.log`);
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers, this.bridge].map((c) => this.kill(c, 'SIGTERM')));
    await this.closeApi();
  }

  private async spawnService(entry: string, name: string, env: Record<string, string> = {}): Promise<ChildProcess> {
    const ready = path.join(this.env.DATA_DIR!, `${name}.${++this.serial}.ready`);
    const log = openSync(path.join(this.env.DATA_DIR!, `${name}.log`), 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, ...env, READY_FILE: ready },
      stdio: ['ignore', log, log],
    });
    for (let i = 0; i < 300 && !existsSync(ready); i++) {
      if (child.exitCode !== null) throw new Error(`${entry} exited: ${this.logOf(name)}`);
      await sleep(100);
    }
    if (!existsSync(ready)) throw new Error(`${entry} did not start: ${this.logOf(name)}`);
    return child;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the job until `done` says so; fails with the job's last state after `timeoutMs`. */
export async function waitForJob(client: Client, id: string, done: (job: any) => boolean, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let job: any;
  while (Date.now() < deadline) {
    job = await client.json('GET', `/jobs/${id}`);
    if (done(job)) return job;
    await sleep(100);
  }
  throw new Error(`job ${id} did not get there in ${timeoutMs} ms: ${JSON.stringify(job, null, 1)}`);
}

export const isTerminal = (job: any) => ['succeeded', 'failed', 'cancelled'].includes(job.state);

/** The first `count` records of a FASTA file. */
export async function fastaSubset(file: string, count: number): Promise<{ text: string; ids: string[] }> {
  const records = (await readFile(file, 'utf8')).split(/^>/m).filter(Boolean).slice(0, count);
  return { text: records.map((r) => `>${r}`).join(''), ids: records.map((r) => r.split(/\s/)[0]!) };
}

export async function submit(client: Client, type: string, name: string, content: string | Uint8Array<ArrayBuffer>, params: object = {}): Promise<Response> {
  const form = new FormData();
  form.set('type', type);
  form.set('params', JSON.stringify(params));
  form.set('file', new Blob([content]), name);
  return client.request('POST', '/jobs', form);
}

export async function signedIn(url: string, name = `user${randomBytes(3).toString('hex')}`): Promise<Client> {
  const client = new Client(url);
  await client.signUp(name);
  return client;
}
