// The local backend's CPU slots with the real mpirun and run-stage.sh: a program takes
// ranks × threads of them, so two one-CPU programs share a 2-CPU machine while a
// two-CPU one runs alone; through the gateway, a stage waiting for its CPUs shows so.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STAGE_FILES } from '@wpv/jobs/workdir';
import type { StageCommand } from '@wpv/jobs/model';
import { LocalBackend } from '../../../hpc-bridge/src/backends/local.ts';
import { Gateway, isTerminal, signedIn, sleep, submit, waitForJob } from './gateway.ts';

const root = mkdtempSync(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'local-slots-'));
const backend = new LocalBackend(2, path.join(root, 'slots'));
let serial = 0;
const THREE_READS = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';

/** When each program held its slots: from the wrapper's launch record (written once it has them) to its exit record. */
async function runTogether(layouts: { ranks: number; threads: number }[]): Promise<{ start: number; end: number }[]> {
  const dirs = await Promise.all(layouts.map(async (layout) => {
    const dir = mkdtempSync(path.join(root, `stage${serial++}-`));
    const command: StageCommand = { argv: ['sleep', '1.5'], ...layout, outputs: [] };
    await backend.submit({ jobId: 'slots', stage: 'sleep', dir, command });
    return dir;
  }));
  const exits = dirs.map((dir) => path.join(dir, STAGE_FILES.exit));
  for (const started = Date.now(); !exits.every(existsSync); await sleep(100)) {
    assert.ok(Date.now() - started < 30_000, 'the programs ended within 30 s');
  }
  return dirs.map((dir, i) => {
    assert.equal(JSON.parse(readFileSync(exits[i]!, 'utf8')).exitCode, 0);
    return { start: JSON.parse(readFileSync(path.join(dir, STAGE_FILES.launch), 'utf8')).startedAt * 1000, end: statSync(exits[i]!).mtimeMs };
  });
}

const overlap = ([a, b]: { start: number; end: number }[]) => Math.min(a!.end, b!.end) - Math.max(a!.start, b!.start);

describe('CPU slots of the local backend (2 slots)', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  test('two 1 × 1 programs run side by side', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 1 }, { ranks: 1, threads: 1 }])) > 1000);
  });

  test('a 1 × 2 program and a 2 × 1 one take both slots each, so they run one after the other', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 2 }, { ranks: 2, threads: 1 }])) <= 0);
  });

  test('a 1 × 1 program waits for a 1 × 2 one, and a program asking for more than the slots takes them all', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 2 }, { ranks: 1, threads: 1 }])) <= 0);
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 1 }, { ranks: 2, threads: 4 }])) <= 0);
  });
});

describe('a stage waiting for CPUs, through the gateway (1 slot)', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ env: { HPC_LOCAL_SLOTS: '1', FAKE_KERNEL_SECONDS: '2' } });
  });
  after(async () => gw?.close());

  test('a submitted program without its slot has no launchedAt; once it runs, it has one after the other job\'s program ended', async () => {
    const client = await signedIn(gw.url);
    const [first, second] = await Promise.all([0, 1].map(async () => (await (await submit(client, 'sequence-clustering', 'x.fasta', THREE_READS)).json()).id as string));
    // One swg gets the slot and runs; the other, submitted too, waits without a launch while the first has one.
    let waitingId: string | null = null;
    for (const started = Date.now(); waitingId === null && Date.now() - started < 20_000; await sleep(100)) {
      const jobs = await Promise.all([first, second].map((id) => client.json('GET', `/jobs/${id}`)));
      const [x, y] = jobs.map((j) => j.stages[0]);
      if (x.launchedAt && y.state === 'running' && y.backendJobId !== null && y.launchedAt === null) waitingId = second;
      if (y.launchedAt && x.state === 'running' && x.backendJobId !== null && x.launchedAt === null) waitingId = first;
    }
    assert.ok(waitingId, 'one swg was seen waiting for the slot while the other ran');
    const [a, b] = await Promise.all([first, second].map((id) => waitForJob(client, id, isTerminal, 60_000)));
    for (const job of [a, b]) {
      assert.equal(job.state, 'succeeded', job.error);
      for (const stage of job.stages.filter((s: any) => s.backendJobId !== null)) {
        assert.ok(stage.launchedAt !== null && Date.parse(stage.launchedAt) >= Date.parse(stage.startedAt) - 1000, `${stage.name} launched after its submission`);
      }
    }
    const [later, other] = waitingId === a.id ? [a, b] : [b, a];
    assert.ok(Date.parse(later.stages[0].launchedAt) >= Date.parse(other.stages[0].launchedAt) + 1500, 'it started after the other swg\'s 2 s run');
  });
});

describe('a started program\'s launch, with a slow poll', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ env: { HPC_POLL_MS: '5000', FAKE_KERNEL_SECONDS: '4' } });
  });
  after(async () => gw?.close());

  test('is recorded within a second of its submission, not at the next 5 s poll', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', THREE_READS)).json();
    const submitted = await waitForJob(client, id, (j) => j.stages[0].backendJobId !== null, 20_000);
    const seen = Date.now();
    const launched = await waitForJob(client, id, (j) => j.stages[0].launchedAt !== null, 20_000);
    assert.ok(Date.now() - seen < 1500, `launch recorded ${Date.now() - seen} ms after the submission was seen`);
    assert.equal(launched.stages[0].state, 'running', 'while the 4 s program still runs');
    assert.ok(Date.parse(launched.stages[0].launchedAt) >= Date.parse(submitted.stages[0].startedAt) - 1000);
  });
});
