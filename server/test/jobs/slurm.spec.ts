// The Slurm backend on a project-local single-node cluster (scripts/slurm.sh):
// the end-to-end job with the real kernels, and a cancel that reaches scancel.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FAKE_KERNELS, Gateway, REAL_KERNELS, ROOT, fastaSubset, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
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
});
