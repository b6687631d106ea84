// Jobs whose MPI ranks span nodes, on a real two-node Slurm cluster made on this machine
// (scripts/slurm.sh with NODES=2: one network namespace, hostname and slurmd per node).
// The same sequence-clustering job, its ranks on two nodes and on one, gives the same plot.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../harness.ts';
import { Gateway, REAL_KERNELS, ROOT, fastaSubset, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
import { READS, SUBSET, checkPlot } from './sequence-plot.ts';

const stateDir = path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'slurm-2nodes');
const slurm = (command: string) => execFileSync('bash', [path.join(ROOT, 'scripts/slurm.sh'), command, stateDir, '2'], { stdio: 'inherit' });

/** The nodes Slurm ran a job on, expanded ("n[1-2]" → ["n1", "n2"]). */
function nodesOf(slurmJobId: string): string[] {
  const list = /\bNodeList=(\S+)/.exec(execFileSync('scontrol', ['show', 'job', slurmJobId], { encoding: 'utf8' }))![1]!;
  return execFileSync('scontrol', ['show', 'hostnames', list], { encoding: 'utf8' }).trim().split('\n');
}

async function positionsOf(client: Client, job: any): Promise<Float32Array> {
  return new Float32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/positions`)).arrayBuffer());
}

describe('Slurm backend across two nodes', () => {
  let gw: Gateway;
  let client: Client;
  before(async () => {
    slurm('start');
    process.env.SLURM_CONF = /SLURM_CONF=(\S+)/.exec(readFileSync(path.join(stateDir, 'env'), 'utf8'))![1]!.replace(/^'|'$/g, '');
    gw = await Gateway.start({ backend: 'slurm', kernels: process.env.KERNELS_BIN || REAL_KERNELS, env: { HPC_MAX_NODES: '2' },
      apiEnv: { HPC_BACKEND: 'slurm', HPC_MAX_NODES: '2' } });
    client = await signedIn(gw.url);
  });
  after(async () => {
    await gw?.close();
    slurm('stop');
  });

  test('a job asks for more nodes than the gateway allows, or than it has ranks: 422 naming params.nodes', async () => {
    for (const params of [{ nodes: 3, ranks: 3 }, { nodes: 2, ranks: 1 }]) {
      const res = await submit(client, 'sequence-clustering', 'x.fasta', '>a\nACGT\n>b\nACGA\n', params);
      const body = await res.json();
      assert.equal(res.status, 422, `${JSON.stringify(params)}: ${JSON.stringify(body)}`);
      assert.equal(body.error.field, 'params.nodes');
    }
  });

  test('ranks on two nodes give the same points and clusters as on one node', async () => {
    const { text, ids } = await fastaSubset(READS, SUBSET);
    const params = { maxClusters: 4, seed: 7, ranks: 2 };
    const ids2 = [];
    for (const nodes of [2, 1]) {
      const res = await submit(client, 'sequence-clustering', 'reads.fasta', text, { ...params, nodes });
      const body = await res.json();
      assert.equal(res.status, 202, JSON.stringify(body));
      ids2.push(body.id);
    }
    const [twoNodes, oneNode] = await Promise.all(ids2.map((id) => waitForJob(client, id, isTerminal, 300_000)));
    for (const job of [twoNodes, oneNode]) {
      assert.equal(job.state, 'succeeded', `${job.error}\n${gw.logOf('bridge')}`);
      await checkPlot(client, job, ids);
    }
    for (const stage of twoNodes.stages.filter((s: any) => s.name !== 'assemble')) {
      assert.deepEqual(nodesOf(stage.backendJobId), ['n1', 'n2'], `${stage.name}'s ranks span both nodes`);
    }
    for (const stage of oneNode.stages.filter((s: any) => s.name !== 'assemble')) {
      assert.equal(nodesOf(stage.backendJobId).length, 1, `${stage.name} on one node`);
    }
    assert.deepEqual(await positionsOf(client, twoNodes), await positionsOf(client, oneNode), 'the same DA-MDS points');
    const clusters = async (job: any) => new Uint32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/clusters`)).arrayBuffer());
    assert.deepEqual(await clusters(twoNodes), await clusters(oneNode), 'the same DA-PWC clusters');
  });
});
