// The platform as `bash scripts/up.sh` runs it: every service under supervisord, in a
// private DATA_DIR on free ports (its own FerretDB and RabbitMQ). kill -9 the API, a
// worker and the bridge during a job: each is serving again within 15 s, and the job
// finishes once, with one plot. A second up.sh finds it running; down.sh stops it all,
// the stage programs included.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FAKE_KERNELS, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
import { PROGRAMS, SupervisedPlatform, alive } from './supervision.ts';

const FASTA = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
const RECOVERY_MS = 15_000;

describe('services under the supervisor (scripts/up.sh)', () => {
  let platform: SupervisedPlatform;
  before(async () => {
    // Each program runs long enough for the three kills (up to 15 s apart) to land while the job runs.
    platform = await SupervisedPlatform.up({ KERNELS_BIN: FAKE_KERNELS, FAKE_KERNEL_SECONDS: '30', HPC_POLL_MS: '200' });
  });
  after(async () => platform?.down());

  test('a second up.sh finds the services running and leaves them alone', async () => {
    const before = await Promise.all(PROGRAMS.map((p) => platform.pidOf(p)));
    const { stdout } = await platform.script('up.sh');
    assert.match(stdout, /supervisor is already running/);
    assert.match(stdout, /WebPlotViz is running: http:\/\/localhost:\d+/);
    assert.deepEqual(await Promise.all(PROGRAMS.map((p) => platform.pidOf(p))), before);
  });

  test('kill -9 of the API, a worker and the bridge during a job: each serves again within 15 s, the job is done once', async (t) => {
    const client = await signedIn(platform.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    await waitForJob(client, id, (j) => j.stages[0].state === 'running' && j.stages[0].backendJobId);
    for (const program of ['api', 'workers', 'hpc-bridge'] as const) {
      assert.ok(!isTerminal(await client.json('GET', `/jobs/${id}`)), `the job still runs when ${program} is killed`);
      const ms = await platform.crash(program);
      t.diagnostic(`${program}: serving again ${ms} ms after kill -9`);
      assert.ok(ms < RECOVERY_MS, `${program} took ${ms} ms`);
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
    // No other local user reads a job's input or results: DATA_DIR 0700, the services' umask 077.
    const mode = async (file: string) => ((await stat(file)).mode & 0o777).toString(8);
    assert.equal(await mode(platform.dataDir), '700');
    const jobDir = path.join(platform.dataDir, 'jobs', id);
    const entries = await readdir(jobDir, { recursive: true, withFileTypes: true });
    assert.ok(entries.some((e) => e.isFile() && e.name === 'dist.bin'), 'the stages wrote their outputs');
    assert.equal(await mode(jobDir), '700');
    for (const e of entries) {
      const file = path.join(e.parentPath, e.name);
      assert.equal(await mode(file), e.isDirectory() ? '700' : '600', path.relative(jobDir, file));
    }
  });

  test('down.sh stops every service and the supervisor, and the stage programs, running or waiting for CPUs', async () => {
    // Two jobs: the second one's first stage waits in its wrapper for the CPU slots the first holds.
    const client = await signedIn(platform.url);
    const ids = [];
    for (const name of ['a.fasta', 'b.fasta']) ids.push((await (await submit(client, 'sequence-clustering', name, FASTA)).json()).id);
    for (const id of ids) await waitForJob(client, id, (j) => j.stages[0].state === 'running' && j.stages[0].backendJobId);
    assert.equal(platformProcesses(platform.dataDir, 'run-stage.sh').length, 2, 'both stages have their wrapper');
    const pids = await Promise.all([...PROGRAMS, 'supervisord' as const].map((p) => platform.pidOf(p)));
    const { stdout } = await platform.script('down.sh');
    assert.match(stdout, /stopped [2-9]\d* analysis program\(s\)/);
    for (const pid of pids) assert.ok(!alive(pid), `pid ${pid} still runs`);
    assert.notEqual((await fetch(`${platform.url}/api/v1/health`).catch(() => null))?.status, 200);
    // Nothing of the jobs runs, or starts later (a waiting stage used to start once the slots freed).
    for (let i = 0; i < 10; i++) {
      assert.deepEqual(platformProcesses(platform.dataDir), [], 'a stage program still runs after down.sh');
      await new Promise((r) => setTimeout(r, 200));
    }
    // No exit record: the next start finds the stages lost and runs them again (not failed).
    for (const id of ids) {
      const stages = path.join(platform.dataDir, 'jobs', id, 'stages');
      for (const stage of await readdir(stages)) assert.ok(!existsSync(path.join(stages, stage, 'exit.json')), `${id}/${stage} has an exit record`);
    }
  });
});

/** Live processes whose command line names the platform's data directory (and `also`, if given). */
function platformProcesses(dataDir: string, also = ''): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmdline.includes(dataDir) && cmdline.includes(also) && alive(Number(pid));
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}
