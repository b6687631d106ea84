// The Slurm backend on a project-local single-node cluster (scripts/slurm.sh):
// the end-to-end job with the real kernels, a cancel that reaches scancel, and a
// bridge that died between sbatch and recording the Slurm job id.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SlurmBackend } from '../../../hpc-bridge/src/backends/slurm.ts';
import { JobRepo } from '@wpv/jobs/repository';
import { STAGE_FILES, stageDir } from '@wpv/jobs/workdir';
import { FAKE_KERNELS, Gateway, REAL_KERNELS, ROOT, fastaSubset, isTerminal, signedIn, sleep, submit, waitForJob } from './gateway.ts';
import { checkPlot, READS, SUBSET } from './sequence-plot.ts';

const stateDir = path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'slurm');
const slurm = (command: string) => execFileSync('bash', [path.join(ROOT, 'scripts/slurm.sh'), command, stateDir], { stdio: 'inherit' });

describe('Slurm backend', () => {
  before(() => {
    slurm('start');
    process.env.SLURM_CONF = /SLURM_CONF=(\S+)/.exec(readFileSync(path.join(stateDir, 'env'), 'utf8'))![1]!.replace(/^'|'$/g, '');
  });
  after(() => slurm('stop'));

  test('the sequence clustering job runs through sbatch and gives the same kind of plot', async () => {
    const gw = await Gateway.start({ backend: 'slurm', kernels: process.env.KERNELS_BIN || REAL_KERNELS });
    try {
      const client = await signedIn(gw.url);
      const { text, ids } = await fastaSubset(READS, SUBSET);
      const { id } = await (await submit(client, 'sequence-clustering', 'reads.fasta', text, { maxClusters: 4 })).json();
      const job = await waitForJob(client, id, isTerminal, 240_000);
      assert.equal(job.state, 'succeeded', `${job.error}\n${gw.logOf('bridge')}`);
      await checkPlot(client, job, ids);
      for (const stage of job.stages.filter((s: any) => s.name !== 'assemble')) {
        assert.match(stage.backendJobId, /^\d+$/, 'a Slurm job id');
        const comment = execFileSync('scontrol', ['show', 'job', stage.backendJobId], { encoding: 'utf8' });
        assert.match(comment, new RegExp(`JobName=wpv-${id}-${stage.name}`));
        // JOB_STAGE_TIME_LIMIT's default, 86,400 s, rounded up to minutes plus one as Slurm's backstop.
        assert.match(comment, /TimeLimit=1-00:01:00/);
      }
    } finally {
      await gw.close();
    }
  });

  test('cancelling a running job scancels its Slurm job', async () => {
    const gw = await Gateway.start({ backend: 'slurm', kernels: FAKE_KERNELS, env: { FAKE_KERNEL_SECONDS: '60' } });
    try {
      const client = await signedIn(gw.url);
      const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', '>a\nACGT\n>b\nACGA\n')).json();
      const running = await waitForJob(client, id, (j) => j.stages[0].progress !== null);
      const slurmId = running.stages[0].backendJobId;
      await client.json('POST', `/jobs/${id}/cancel`);
      const job = await waitForJob(client, id, (j) => j.stages[0].state === 'cancelled', 20_000);
      assert.equal(job.state, 'cancelled');
      // Slurm passes through COMPLETING while the cancelled job's processes end.
      let info = '';
      for (let tries = 0; tries < 50; tries++) {
        info = execFileSync('scontrol', ['show', 'job', slurmId], { encoding: 'utf8' });
        if (!/JobState=COMPLETING/.test(info)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.match(info, /JobState=CANCELLED/);
    } finally {
      await gw.close();
    }
  });

  test('a submission the bridge never recorded (it died after sbatch) is found by name: collected once, not resubmitted', async () => {
    const gw = await Gateway.start({ backend: 'slurm', kernels: FAKE_KERNELS, bridge: false });
    try {
      const client = await signedIn(gw.url);
      const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', '>a\nACGT\n>b\nACGA\n>c\nTTGA\n')).json();
      await waitForJob(client, id, (j) => j.stages[0].state === 'queued');
      // What the bridge does up to its crash: open the track, claim the stage, sbatch; no id recorded.
      const repo = new JobRepo(gw.store);
      const job = (await repo.get(id))!;
      const command = job.stages.swg!.command!;
      await repo.track(id, 'swg', { open: true });
      assert.ok(await repo.moveStage(id, 'swg', 'running', 'attempt 1 submitted to slurm', { startedAt: new Date(), attempts: 1, exitCode: null }));
      const dir = stageDir(job.workdir, 'swg');
      await mkdir(dir, { recursive: true });
      const slurmId = await new SlurmBackend().submit({ jobId: id, stage: 'swg', dir, command });
      // It even ends before a bridge comes back: Slurm still knows it (MinJobAge), squeue's default view does not.
      for (let i = 0; i < 600 && !existsSync(path.join(dir, STAGE_FILES.exit)); i++) await sleep(100);
      assert.ok(existsSync(path.join(dir, STAGE_FILES.exit)), `Slurm job ${slurmId} did not end`);

      await gw.startBridge();
      const done = await waitForJob(client, id, isTerminal, 120_000);
      assert.equal(done.state, 'succeeded', `${done.error}\n${gw.logOf('bridge')}`);
      const swg = done.stages[0];
      assert.equal(swg.backendJobId, slurmId, 'the hand-submitted Slurm job was collected');
      assert.equal(swg.attempts, 1);
      const named = execFileSync('squeue', ['--noheader', '--all', '--states=all', `--name=wpv-${id}-swg`, '--format=%i'], { encoding: 'utf8' });
      assert.deepEqual(named.trim().split(/\s+/), [slurmId], 'exactly one Slurm job for the stage');
      assert.match(gw.logOf('bridge'), new RegExp(`${id}/swg: re-attached to slurm ${slurmId}`));
      const plots = await client.json('GET', '/plots?scope=mine');
      assert.equal(plots.total, 1, 'one plot');
      assert.equal(plots.items[0].id, done.plotId);
    } finally {
      await gw.close();
    }
  });

  test('a job Slurm requeued and held (as after a failed launch) is cancelled and reported lost, so the stage is resubmitted', async () => {
    const dir = path.join(stateDir, 'held-job');
    await mkdir(dir, { recursive: true });
    const id = execFileSync('sbatch', ['--parsable', `--chdir=${dir}`, '--wrap', 'sleep 120'], { encoding: 'utf8' }).trim();
    const squeue = () => execFileSync('squeue', ['--noheader', '--all', `--jobs=${id}`, '--format=%T|%r'], { encoding: 'utf8' }).trim();
    for (let i = 0; i < 200 && !squeue().startsWith('RUNNING'); i++) await sleep(100);
    execFileSync('scontrol', ['requeuehold', id]);
    for (let i = 0; i < 100 && !/held/i.test(squeue()); i++) await sleep(100);
    assert.match(squeue(), /held/i, 'Slurm holds the requeued job');
    const states = await new SlurmBackend().poll([{ id, dir }]);
    assert.equal(states.get(id)?.state, 'lost');
    for (let i = 0; i < 100 && squeue().startsWith('PENDING'); i++) await sleep(100);
    assert.doesNotMatch(squeue(), /^PENDING/, 'the held job was cancelled');
  });
});
