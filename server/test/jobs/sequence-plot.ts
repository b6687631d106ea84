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
  const sequenceClusters = plot.clusters.filter((c: any) => c.label !== 'cluster centres');
  const centres = plot.clusters.find((c: any) => c.label === 'cluster centres');
  assert.ok(sequenceClusters.length >= 1 && sequenceClusters.length <= 4, `${sequenceClusters.length} clusters`);
  assert.equal(centres.count, sequenceClusters.length, 'one centre per cluster');
  assert.equal(plot.points, ids.length + sequenceClusters.length);
  assert.equal(sequenceClusters.reduce((n: number, c: any) => n + c.count, 0), ids.length, 'every read in a DA-PWC cluster');
  const labels: string[] = await client.json('GET', `/plots/${job.plotId}/frames/0/labels`);
  assert.deepEqual(labels.slice(0, ids.length), ids, 'one point per read, labelled by its id, in input order');
  const positions = new Float32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/positions`)).arrayBuffer());
  assert.equal(positions.length, plot.points * 3);
  assert.ok(positions.every(Number.isFinite));
  assert.ok(new Set(positions.slice(0, ids.length * 3)).size > ids.length, 'the points are spread out');
}
