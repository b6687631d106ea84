// What a succeeded sequence-clustering job must have produced, shared by the local
// and Slurm end-to-end tests.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Client } from '../harness.ts';
import { ROOT } from './gateway.ts';

export const READS = path.resolve(ROOT, '../shared/data/16s-4640.fasta');
export const SUBSET = 120;

export async function checkPlot(client: Client, job: any, ids: string[]): Promise<void> {
  for (const stage of job.stages) {
    assert.equal(stage.state, 'succeeded', stage.name);
    assert.equal(stage.attempts, 1, stage.name);
  }
  const plot = await client.json('GET', `/plots/${job.plotId}`);
  const sequenceClusters = plot.clusters;
  assert.ok(sequenceClusters.length >= 1 && sequenceClusters.length <= 4, `${sequenceClusters.length} clusters`);
  assert.equal(plot.points, ids.length, 'one point per read, no appended centres');
  assert.equal(sequenceClusters.reduce((n: number, c: any) => n + c.count, 0), ids.length, 'every read in a DA-PWC cluster');
  const keys = new Uint32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/clusters`)).arrayBuffer());
  for (const c of sequenceClusters) assert.equal(keys[c.centre], c.key, `cluster ${c.key}'s centre (medoid) is one of its reads`);
  const labels: string[] = await client.json('GET', `/plots/${job.plotId}/frames/0/labels`);
  assert.deepEqual(labels, ids, 'one point per read, labelled by its id, in input order');
  const positions = new Float32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/positions`)).arrayBuffer());
  assert.equal(positions.length, plot.points * 3);
  assert.ok(positions.every(Number.isFinite));
  assert.ok(new Set(positions).size > ids.length, 'the points are spread out');
}
