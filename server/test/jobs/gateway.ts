// A whole job gateway for tests: the API in-process, workers and hpc-bridge as
// child processes (so tests can kill and restart them), sharing a private database,
// data directory and queue-name prefix on the test stack's FerretDB and RabbitMQ.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Store } from '../../src/storage/db.ts';
import { Client, startApi } from '../harness.ts';

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
    const api = await startApi(config);
    const gateway = new Gateway(api.url, api.store, config, env, async () => {
      await api.close(0);
      await rm(dataDir, { recursive: true, force: true });
    });
    for (let i = 0; i < (options.workers ?? 1); i++) await gateway.startWorker();
    if (options.bridge ?? true) await gateway.startBridge();
    return gateway;
  }

  async startWorker(): Promise<ChildProcess> {
    const { child, ready } = this.launchWorker();
    await ready;
    return child;
  }

  async startBridge(env: Record<string, string> = {}): Promise<ChildProcess> {
    const { child, ready } = this.launchBridge(env);
    await ready;
    return child;
  }

  /** Starts a worker without waiting for it: `ready` resolves once it consumes (its store and broker reached). */
  launchWorker(): Launched {
    const launched = this.launch('workers/src/main.ts', `worker${this.workers.length}`);
    this.workers.push(launched.child);
    return launched;
  }

  launchBridge(env: Record<string, string> = {}): Launched {
    const launched = this.launch('hpc-bridge/src/main.ts', 'bridge', env);
    this.bridge = launched.child;
    return launched;
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

  private launch(entry: string, name: string, env: Record<string, string> = {}, timeoutMs = 120_000): Launched {
    const readyFile = path.join(this.env.DATA_DIR!, `${name}.${++this.serial}.ready`);
    const log = openSync(path.join(this.env.DATA_DIR!, `${name}.log`), 'a');
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, ...env, READY_FILE: readyFile },
      stdio: ['ignore', log, log],
    });
    const ready = (async () => {
      for (const deadline = Date.now() + timeoutMs; !existsSync(readyFile) && Date.now() < deadline; ) {
        if (child.exitCode !== null) throw new Error(`${entry} exited: ${this.logOf(name)}`);
        await sleep(100);
      }
      if (!existsSync(readyFile)) throw new Error(`${entry} did not start: ${this.logOf(name)}`);
    })();
    ready.catch(() => {}); // awaited by the caller; not an unhandled rejection meanwhile
    return { child, ready };
  }
}

export interface Launched {
  child: ChildProcess;
  ready: Promise<void>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A service of the test stack (scripts/test.sh's, or WPV_STACK_DIR): stopped and started again by fault tests. */
function stackService(name: 'rabbitmq' | 'ferretdb') {
  const dir = () => process.env.WPV_STACK_DIR ?? path.join(process.env.WPV_TEST_DIR!, 'stack');
  return {
    async stop(): Promise<void> {
      const pid = Number(readFileSync(path.join(dir(), `${name}.pid`), 'utf8'));
      process.kill(-pid, 'SIGTERM');
      while (existsSync(`/proc/${pid}`)) await sleep(100);
    },
    /** Starts whichever of the stack's services is stopped. */
    start(): void {
      const ports = [new URL(process.env.MONGODB_URI!).port, new URL(process.env.AMQP_URL!).port];
      execFileSync('bash', [path.join(ROOT, 'scripts/stack.sh'), 'start', dir(), ...ports], { stdio: 'ignore' });
    },
  };
}
export const testBroker = stackService('rabbitmq');
export const testStore = stackService('ferretdb');

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

type Content = string | Uint8Array<ArrayBuffer>;

/** Submits a job; `parts` are further file parts (weights) by field name. */
export async function submit(client: Client, type: string, name: string, content: Content, params: object = {}, parts: Record<string, Content> = {}): Promise<Response> {
  const form = new FormData();
  form.set('type', type);
  form.set('params', JSON.stringify(params));
  form.set('file', new Blob([content]), name);
  for (const [field, part] of Object.entries(parts)) form.set(field, new Blob([part]), `${field}.bin`);
  return client.request('POST', '/jobs', form);
}

export { signedIn } from '../harness.ts';
