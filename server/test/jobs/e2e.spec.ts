// End to end with the real programs (kernels/build/bin; KERNELS_BIN overrides) on a
// subset of the 16S reads, through the API, on the local backend (mpirun, 2 ranks).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gateway, REAL_KERNELS, fastaSubset, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
import { checkPlot, READS, SUBSET } from './sequence-plot.ts';

describe('sequence clustering with the real kernels (local backend)', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ kernels: process.env.KERNELS_BIN || REAL_KERNELS });
  });
  after(async () => gw?.close());

  test(`${SUBSET} reads of 16s-4640.fasta become a plot: one point per read, labelled by id, clustered by DA-PWC`, async () => {
    const client = await signedIn(gw.url);
    const { text, ids } = await fastaSubset(READS, SUBSET);
    const res = await submit(client, 'sequence-clustering', '16s-subset.fasta', text, { maxClusters: 4, ranks: 2 });
    assert.equal(res.status, 202);
    const { id } = await res.json();
    const job = await waitForJob(client, id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    await checkPlot(client, job, ids);
    const mds = job.stages.find((s: any) => s.name === 'mds');
    assert.equal(mds.metrics.ranks, 2);
    assert.equal(mds.progress.phase, 'done', 'the final summary line was parsed');
    assert.ok(mds.series.length > 0, 'stress per iteration for the chart');
  });
});
