// End to end with the real programs (kernels/build/bin; KERNELS_BIN overrides) through
// the API on the local backend: a subset of the 16S reads (mpirun, 2 ranks), and a
// distance matrix with a DA-MDS weight matrix.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gateway, REAL_KERNELS, fastaSubset, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
import { checkPlot, READS, SUBSET } from './sequence-plot.ts';

/** Three well-separated groups of 10 points as a SPIDAL int16 matrix (distance × 32767). */
function threeGroups(): { n: number; matrix: Int16Array<ArrayBuffer> } {
  const n = 30;
  const points = Array.from({ length: n }, (_, i) => [Math.floor(i / 10) * 3 + Math.sin(i), Math.cos(i * 1.3), Math.sin(i * 0.7)]);
  const dist = (a: number[], b: number[]) => Math.hypot(...a.map((v, k) => v - b[k]!));
  const max = Math.max(...points.flatMap((a) => points.map((b) => dist(a, b))));
  const matrix = new Int16Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) matrix[i * n + j] = Math.round((dist(points[i]!, points[j]!) / max) * 32767);
  return { n, matrix };
}
const bytes = (a: Int16Array<ArrayBuffer>) => new Uint8Array(a.buffer); // little-endian on this machine, the default byte order

/**
 * Three tight groups of 15 points and 15 points far from everything (pairwise 0.7-0.9): DA-PWC gathers
 * those into a cluster of their own, which has no substantial structure.
 */
function groupsAndStrays(): { n: number; matrix: Int16Array<ArrayBuffer> } {
  const group = (i: number) => Math.floor(i / 15); // 3: the strays
  const n = 60;
  let seed = 7;
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const matrix = new Int16Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = group(i) === group(j) && group(i) !== 3 ? uniform(0.02, 0.08) : uniform(0.7, 0.9);
      matrix[i * n + j] = matrix[j * n + i] = Math.round(d * 32767);
    }
  }
  return { n, matrix };
}

/** Silhouettes per point and their mean per cluster key, summed pair by pair from the matrix (Rousseeuw 1987), as the oracle. */
function silhouettes(n: number, matrix: Int16Array, keys: Uint32Array): { perPoint: number[]; perCluster: Map<number, number> } {
  const members = new Map<number, number[]>();
  keys.forEach((k, p) => members.set(k, [...(members.get(k) ?? []), p]));
  const meanTo = (p: number, k: number) => {
    const others = members.get(k)!.filter((q) => q !== p);
    return others.reduce((sum, q) => sum + matrix[p * n + q]! / 32767, 0) / others.length;
  };
  const perPoint = new Array<number>(n).fill(0);
  const perCluster = new Map<number, number>();
  for (const [k, points] of members) {
    let sum = 0;
    for (const p of points) {
      if (points.length < 2) continue;
      const a = meanTo(p, k);
      const b = Math.min(...[...members.keys()].filter((o) => o !== k).map((o) => meanTo(p, o)));
      perPoint[p] = (b - a) / Math.max(a, b);
      sum += perPoint[p]!;
    }
    perCluster.set(k, sum / points.length);
  }
  return { perPoint, perCluster };
}

describe('the real kernels end to end (local backend)', () => {
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
    // Real reads nest and keep splitting: the cap of 4, not the data, set the count, and the job says so.
    assert.deepEqual(job.warnings.filter((w: string) => w.startsWith('capped')),
      ['capped at 4 clusters: one was still splitting, so the data may hold more; raise maxClusters, or re-cluster a cluster from the plot']);
    const mds = job.stages.find((s: any) => s.name === 'mds');
    assert.equal(mds.metrics.ranks, 2);
    assert.equal(mds.progress.phase, 'done', 'the final summary line was parsed');
    assert.ok(mds.series.length > 0, 'stress per iteration for the chart');
  });

  test(`the score distance: ${SUBSET} reads through swg's score-only kernels become a plot`, async () => {
    const client = await signedIn(gw.url);
    const { text, ids } = await fastaSubset(READS, SUBSET);
    const res = await submit(client, 'sequence-clustering', '16s-subset.fasta', text, { maxClusters: 4, distance: 'score' });
    assert.equal(res.status, 202);
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    const logs = await client.json('GET', `/jobs/${job.id}/logs?stage=swg`);
    assert.match(logs.stdout, /"phase":"read",.*"distance":"score"/, 'swg ran with --distance score');
    await checkPlot(client, job, ids);
  });

  test('a distance matrix with a weight matrix: DA-MDS runs weighted, the plot has every point', async () => {
    const { n, matrix } = threeGroups();
    const weights = new Int16Array(n * n);
    for (let i = 0; i < n * n; i++) weights[i] = (Math.floor(i / n) + (i % n)) % 3 ? 32767 : 16384; // a third of the pairs count half
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', bytes(matrix), { points: n, maxClusters: 3 }, { weights: bytes(weights) });
    assert.equal(res.status, 202, await res.clone().text());
    const { id } = await res.json();
    const job = await waitForJob(client, id, isTerminal, 120_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    assert.deepEqual(job.input.weights, { originalName: 'weights.bin', bytes: n * n * 2 });
    const logs = await client.json('GET', `/jobs/${id}/logs?stage=mds`);
    assert.match(logs.stdout, /"phase":\s*"loaded".*"weighted":\s*true/, 'damds read the weights');
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal(plot.points, n, 'one point per row');
    assert.equal(plot.clusters.reduce((sum: number, c: any) => sum + c.count, 0), n);
  });

  test('each cluster carries its silhouette, and a cluster of strays is a job warning and marked loose', async () => {
    const { n, matrix } = groupsAndStrays();
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', bytes(matrix), { points: n, maxClusters: 4 });
    assert.equal(res.status, 202, await res.clone().text());
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 120_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    const keys = new Uint32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/clusters`)).arrayBuffer());
    const expected = silhouettes(n, matrix, keys);
    assert.equal(plot.clusters.length, 4);
    for (const c of plot.clusters) {
      assert.ok(Math.abs(c.silhouette - expected.perCluster.get(c.key)!) < 1e-6, `cluster ${c.key}: ${c.silhouette} against ${expected.perCluster.get(c.key)}`);
    }
    // Each point's, as a number column (float32) to colour by.
    const index = plot.columns.findIndex((c: any) => c.name === 'silhouette');
    assert.equal(plot.columns[index]?.kind, 'number', JSON.stringify(plot.columns));
    const perPoint = new Float32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/columns/${index}`)).arrayBuffer());
    expected.perPoint.forEach((s, p) => assert.ok(Math.abs(perPoint[p]! - s) < 1e-6, `point ${p}: ${perPoint[p]} against ${s}`));
    const strays = plot.clusters.find((c: any) => c.key === keys[45]);
    assert.ok(strays.count === 15 && strays.silhouette <= 0.25, JSON.stringify(strays));
    assert.ok(plot.clusters.filter((c: any) => c !== strays).every((c: any) => c.silhouette > 0.9), JSON.stringify(plot.clusters));
    const loose = job.warnings.filter((w: string) => w.includes('loose'));
    assert.deepEqual(loose, [`1 of 4 clusters are loose, mean silhouette ≤ 0.25: cluster ${strays.key} (15 points, ${strays.silhouette.toFixed(2)}); ` +
      'their points are about as near other clusters as each other, so read them as points that fit no cluster']);
  });

  test('fewer clusters than asked is a job warning: dapwc drops the groups of 10 under minClusterSize 15', async () => {
    const { n, matrix } = threeGroups();
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', bytes(matrix), { points: n, maxClusters: 3, minClusterSize: 15 });
    assert.equal(res.status, 202, await res.clone().text());
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 120_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    // The groups of 10 are spread enough to split further, so the cap of 3 is reported too.
    assert.equal(job.warnings.length, 2, JSON.stringify(job.warnings));
    assert.match(job.warnings[0], /^capped at 3 clusters: .*; raise maxClusters/);
    assert.match(job.warnings[1], /^\d+ of \d+ clusters dropped: under 15 points/);
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.ok(plot.clusters.length < 3, `${plot.clusters.length} clusters`);
    assert.equal(plot.points, n);
    const summary = (await client.json('GET', '/jobs')).items.find((j: any) => j.id === job.id);
    assert.deepEqual(summary.warnings, job.warnings, 'the job list carries them too');
  });
});
