// The platform as `bash scripts/up.sh` runs it: every service under supervisord, in a
// private DATA_DIR on free ports (its own FerretDB and RabbitMQ). kill -9 the API, a
// worker and the bridge during a job: each is serving again within 15 s, and the job
// finishes once, with one plot. A second up.sh finds it running; down.sh stops it all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { FAKE_KERNELS, ROOT, isTerminal, signedIn, sleep, submit, waitForJob } from './gateway.ts';

const run = promisify(execFile);
const FASTA = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
const RECOVERY_MS = 15_000;

/** Running (a zombie left for init to reap has exited). */
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('services under the supervisor (scripts/up.sh)', () => {
  let env: NodeJS.ProcessEnv;
  let url: string;
  let dataDir: string;
  const script = (name: string, ...args: string[]) =>
    run('bash', [path.join(ROOT, 'scripts', name), ...args], { cwd: ROOT, env, timeout: 600_000, maxBuffer: 64 << 20 });
  const pidOf = async (program: string) => Number((await script('supervisor.sh', 'ctl', 'pid', program)).stdout.trim());

  /** Serving: the API answers /health; a worker or the bridge wrote its ready file (its pid) after reaching the store and the broker. */
  async function serving(program: string, pid: number): Promise<boolean> {
    if (program === 'api') return (await fetch(`${url}/api/v1/health`).catch(() => null))?.status === 200;
    const file = path.join(dataDir, 'supervisor', `${program}.ready`);
    return existsSync(file) && Number(readFileSync(file, 'utf8')) === pid;
  }

  /** kill -9, then the time until a new process of the program serves. */
  async function crash(program: string): Promise<number> {
    const old = await pidOf(program);
    assert.ok(old > 0, `${program} runs`);
    const killedAt = Date.now();
    process.kill(old, 'SIGKILL');
    while (Date.now() - killedAt < 60_000) {
      const pid = await pidOf(program).catch(() => 0);
      if (pid > 0 && pid !== old && (await serving(program, pid))) return Date.now() - killedAt;
      await sleep(200);
    }
    throw new Error(`${program} not serving a minute after kill -9`);
  }

  before(async () => {
    dataDir = await mkdtemp(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'supervised-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const { MONGODB_URI, AMQP_URL, ...inherited } = process.env; // its own embedded store and broker
    env = {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      MONGO_PORT: String(await freePort()),
      AMQP_PORT: String(await freePort()),
      DIST_PORT: String(await freePort()),
      KERNELS_BIN: FAKE_KERNELS,
      FAKE_KERNEL_SECONDS: '15', // each program runs long enough for the three kills
      HPC_POLL_MS: '200',
    };
    const { stdout } = await script('up.sh');
    assert.match(stdout, new RegExp(`WebPlotViz is running: http://localhost:${port}`));
  });

  after(async () => {
    await script('down.sh').catch((err) => console.error(err));
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a second up.sh finds the services running and leaves them alone', async () => {
    const programs = ['api', 'workers', 'hpc-bridge', 'ferretdb', 'rabbitmq'];
    const before = await Promise.all(programs.map(pidOf));
    const { stdout } = await script('up.sh');
    assert.match(stdout, /supervisor is already running/);
    assert.match(stdout, /WebPlotViz is running: http:\/\/localhost:\d+/);
    assert.deepEqual(await Promise.all(programs.map(pidOf)), before);
  });

  test('kill -9 of the API, a worker and the bridge during a job: each serves again within 15 s, the job is done once', async (t) => {
    const client = await signedIn(url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    await waitForJob(client, id, (j) => j.stages[0].state === 'running' && j.stages[0].backendJobId);
    for (const program of ['api', 'workers', 'hpc-bridge']) {
      const ms = await crash(program);
      t.diagnostic(`${program}: serving again ${ms} ms after kill -9`);
      assert.ok(ms < RECOVERY_MS, `${program} took ${ms} ms`);
      const job = await client.json('GET', `/jobs/${id}`);
      assert.ok(!isTerminal(job), `the job was still running when ${program} came back`);
    }
    const job = await waitForJob(client, id, isTerminal, 180_000);
    assert.equal(job.state, 'succeeded', job.error);
    assert.equal(job.history.filter((h: any) => h.stage === null && h.to === 'succeeded').length, 1, 'succeeded once');
    for (const stage of job.stages) {
      assert.equal(job.history.filter((h: any) => h.stage === stage.name && h.to === 'succeeded').length, 1, stage.name);
    }
    const plots = await client.json('GET', '/plots?scope=mine');
    assert.equal(plots.total, 1, 'one plot');
    assert.equal(plots.items[0].id, job.plotId);
  });

  test('down.sh stops every service and the supervisor', async () => {
    const pids = await Promise.all(['supervisord', 'api', 'workers', 'hpc-bridge', 'ferretdb', 'rabbitmq'].map((p) =>
      p === 'supervisord' ? script('supervisor.sh', 'ctl', 'pid').then((r) => Number(r.stdout)) : pidOf(p)));
    await script('down.sh');
    for (const pid of pids) assert.ok(!alive(pid), `pid ${pid} still runs`);
    assert.notEqual((await fetch(`${url}/api/v1/health`).catch(() => null))?.status, 200);
  });
});
