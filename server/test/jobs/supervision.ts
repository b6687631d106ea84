// The platform as `bash scripts/up.sh` runs it, privately: every service under its
// supervisord, in a temporary DATA_DIR on free ports with its own FerretDB and RabbitMQ.
// For the supervision test and the fault suite (bench/faults), which kill its processes.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, sleep } from './gateway.ts';

const run = promisify(execFile);

/** The processes the supervisor runs (scripts/supervisor.sh). */
export const PROGRAMS = ['api', 'workers', 'hpc-bridge', 'ferretdb', 'rabbitmq'] as const;
export type Program = (typeof PROGRAMS)[number];

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (address: { port: number; host: string } | { path: string }) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(address, () => {
      socket.end();
      resolve(true);
    }).on('error', () => resolve(false));
  });

/** The MONGODB_URI that scripts/stack.sh wrote to the env file of its state dir `stackDir`. */
export function stackMongodbUri(stackDir: string): string {
  return /MONGODB_URI='([^']+)'/.exec(readFileSync(path.join(stackDir, 'env'), 'utf8'))![1]!;
}

/** Running (a zombie left for init to reap has exited). */
export const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

export class SupervisedPlatform {
  private constructor(
    readonly url: string,
    readonly dataDir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Runs up.sh with `env` added (KERNELS_BIN, FAKE_KERNEL_SECONDS, HPC_BACKEND, ...), without the demo plots. */
  static async up(env: Record<string, string>, parent = process.env.WPV_TEST_DIR ?? '/tmp'): Promise<SupervisedPlatform> {
    const dataDir = await mkdtemp(path.join(parent, 'supervised-'));
    const port = await freePort();
    // Its own embedded store (on its socket, as up.sh runs it by default) and broker.
    const { MONGODB_URI, AMQP_URL, MONGO_PORT, ...inherited } = process.env;
    const platform = new SupervisedPlatform(`http://127.0.0.1:${port}`, dataDir, {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      AMQP_PORT: String(await freePort()),
      DIST_PORT: String(await freePort()),
      DEMOS: '0', // one of them is a job of real programs: not what a test or the fault suite measures
      ...env,
    });
    const { stdout } = await platform.script('up.sh');
    if (!stdout.includes(`WebPlotViz is running: http://localhost:${port}`)) throw new Error(`up.sh printed no URL:\n${stdout}`);
    return platform;
  }

  script(name: string, ...args: string[]) {
    return run('bash', [path.join(ROOT, 'scripts', name), ...args], { cwd: ROOT, env: this.env, timeout: 600_000, maxBuffer: 64 << 20 });
  }

  /** The program's pid as the supervisor reports it (0 while it is not running). */
  async pidOf(program: Program | 'supervisord'): Promise<number> {
    const { stdout } = await this.script('supervisor.sh', 'ctl', 'pid', ...(program === 'supervisord' ? [] : [program]));
    return Number(stdout.trim());
  }

  /** The MongoDB URI of its embedded store (on its socket: MONGO_PORT unset, as up.sh runs it by default). */
  get mongodbUri(): string {
    return stackMongodbUri(path.join(this.dataDir, 'stack'));
  }

  /**
   * Serving: the API answers /health; a worker or the bridge wrote its ready file (its
   * pid) after reaching the store and the broker; FerretDB and RabbitMQ accept connections.
   */
  async serving(program: Program, pid: number): Promise<boolean> {
    switch (program) {
      case 'api':
        return (await fetch(`${this.url}/api/v1/health`).catch(() => null))?.status === 200;
      case 'ferretdb':
        return accepts({ path: path.join(this.dataDir, 'stack/ferretdb.sock') });
      case 'rabbitmq':
        return accepts({ port: Number(this.env.AMQP_PORT), host: '127.0.0.1' });
      default: {
        const file = path.join(this.dataDir, 'supervisor', `${program}.ready`);
        return existsSync(file) && Number(readFileSync(file, 'utf8')) === pid;
      }
    }
  }

  /**
   * kill -9 of the program's process (for RabbitMQ the Erlang VM, the broker itself, not
   * the packaged start script around it), then the milliseconds until a new process serves.
   */
  async crash(program: Program, timeoutMs = 120_000): Promise<number> {
    const old = await this.pidOf(program);
    if (!(old > 0)) throw new Error(`${program} is not running`);
    const victim = program === 'rabbitmq' ? descendant(old, 'beam.smp') : old;
    const killedAt = Date.now();
    process.kill(victim, 'SIGKILL');
    while (Date.now() - killedAt < timeoutMs) {
      const pid = await this.pidOf(program).catch(() => 0);
      if (pid > 0 && pid !== old && (await this.serving(program, pid))) return Date.now() - killedAt;
      await sleep(200);
    }
    throw new Error(`${program} not serving ${timeoutMs / 1000} s after kill -9`);
  }

  async down(): Promise<void> {
    await this.script('down.sh');
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** The first process named `name` (its /proc comm) under `pid`. */
function descendant(pid: number, name: string): number {
  const children = (p: number) =>
    readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  for (const queue = [pid]; queue.length; ) {
    const p = queue.shift()!;
    if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() === name) return p;
    queue.push(...children(p));
  }
  throw new Error(`no ${name} under process ${pid}`);
}
