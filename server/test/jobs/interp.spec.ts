// Interpolation for large inputs (issue 18) end to end with the real programs: a
// distance-matrix job with more points than its sampleSize cuts a sample, runs damds and
// dapwc on it and interp for the rest; the plot keeps every point in input order, in its
// planted group, at its planted distances, and marks the interpolated ones in a column;
// every point has its silhouette.
// A sequence-clustering job aligns its sample all-pairs and the rest against the sample.
// Under HPC_MEMORY_PER_RANK the three programs stream their matrices from disk.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gateway, REAL_KERNELS, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';

/** n points in three separated balls of planted 3-D positions, as a SPIDAL int16 matrix (distance × 32767). */
function plantedBlobs(n: number) {
  const centres = [[0.1, 0.1, 0.1], [0.55, 0.1, 0.3], [0.2, 0.55, 0.4]];
  const points = Array.from({ length: n }, (_, i) => centres[i % 3]!.map((c, k) => c + 0.07 * Math.sin(i * (k + 1.7) + k)));
  const dist = (a: number[], b: number[]) => Math.hypot(...a.map((v, k) => v - b[k]!));
  const matrix = new Int16Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) matrix[i * n + j] = Math.round(dist(points[i]!, points[j]!) * 32767);
  return { points, group: (i: number) => i % 3, dist, bytes: new Uint8Array(matrix.buffer) };
}

/** Families of `size` reads mutated (3 % substitutions) from random 100-nt ancestors, shuffled; seeded. */
function plantedFamilies(families: number, size: number) {
  let state = 12345;
  const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const base = () => 'ACGT'[Math.floor(random() * 4)]!;
  const ancestors = Array.from({ length: families }, () => Array.from({ length: 100 }, base).join(''));
  const reads = ancestors.flatMap((a, f) => Array.from({ length: size }, (_, m) => ({
    id: `f${f}_${m}`, family: f, sequence: [...a].map((c) => (random() < 0.03 ? base() : c)).join(''),
  })));
  for (let i = reads.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [reads[i], reads[j]] = [reads[j]!, reads[i]!];
  }
  return { reads, fasta: reads.map((r) => `>${r.id} family ${r.family}\n${r.sequence}\n`).join('') };
}

/** A 300-point distance-matrix job of three planted blobs with sampleSize 60, run to success. */
async function sampledBlobsJob(gw: Gateway) {
  const n = 300;
  const sampleSize = 60;
  const planted = plantedBlobs(n);
  const client = await signedIn(gw.url);
  const res = await submit(client, 'distance-matrix', 'd.bin', planted.bytes, { points: n, sampleSize, k: 10, maxClusters: 3, seed: 2 });
  assert.equal(res.status, 202, await res.clone().text());
  const job = await waitForJob(client, (await res.json()).id, isTerminal, 180_000);
  assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
  return { n, sampleSize, planted, client, job };
}

async function interpolatedFlags(client: any, plot: any): Promise<string[]> {
  const index = plot.columns.findIndex((c: any) => c.name === 'interpolated');
  assert.ok(index >= 0, `an "interpolated" column: ${JSON.stringify(plot.columns)}`);
  const column = plot.columns[index];
  const buffer = await (await client.request('GET', `/plots/${plot.id}/frames/0/columns/${index}`)).arrayBuffer();
  const codes = column.codeBytes === 2 ? new Uint16Array(buffer) : new Uint32Array(buffer);
  return Array.from(codes, (code) => column.categories[code]);
}

describe('interpolation (MI-MDS) through the gateway, real kernels', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ kernels: process.env.KERNELS_BIN || REAL_KERNELS });
  });
  after(async () => gw?.close());

  test('a 300-point matrix job with sampleSize 60: sample → damds ∥ dapwc → interp; every point placed and clustered', async () => {
    const { n, sampleSize, planted, client, job } = await sampledBlobsJob(gw);
    assert.deepEqual(job.stages.map((s: any) => s.name), ['sample', 'mds', 'pwc', 'interp', 'assemble']);
    assert.equal(job.input.sample, sampleSize);
    const mds = await client.json('GET', `/jobs/${job.id}/logs?stage=mds`);
    assert.match(mds.stdout, new RegExp(`"phase":\\s*"loaded".*"points":\\s*${sampleSize}\\b`), 'DA-MDS ran on the sample only');
    const interp = job.stages.find((s: any) => s.name === 'interp');
    assert.equal(interp.progress.phase, 'done');
    assert.equal(interp.progress.interpolated, n - sampleSize);

    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal(plot.points, n, 'one point per row');
    const flags = await interpolatedFlags(client, plot);
    assert.equal(flags.filter((f) => f === 'yes').length, n - sampleSize);
    assert.equal(flags.filter((f) => f === 'no').length, sampleSize);
    // Silhouettes: dapwc's for the sample; interp's for the rest, each against the sample's clusters
    // (here the planted groups), from the matrix row it was placed with.
    const index = plot.columns.findIndex((c: any) => c.name === 'silhouette');
    assert.equal(plot.columns[index]?.kind, 'number', JSON.stringify(plot.columns));
    const silhouette = new Float32Array(await (await client.request('GET', `/plots/${plot.id}/frames/0/columns/${index}`)).arrayBuffer());
    const matrix = new Int16Array(planted.bytes.buffer);
    const sample = flags.flatMap((f, i) => (f === 'no' ? [i] : []));
    flags.forEach((f, i) => {
      assert.ok(silhouette[i]! > 0.5, `point ${i} (${f}): ${silhouette[i]}`);
      if (f === 'no') return;
      const mean = (group: number) => {
        const members = sample.filter((j) => planted.group(j) === group);
        return members.reduce((sum, j) => sum + matrix[i * n + j]!, 0) / members.length;
      };
      const a = mean(planted.group(i));
      const b = Math.min(...[0, 1, 2].filter((g) => g !== planted.group(i)).map(mean));
      assert.ok(Math.abs(silhouette[i]! - (b - a) / Math.max(a, b)) < 1e-6, `point ${i}: ${silhouette[i]} against ${(b - a) / Math.max(a, b)}`);
    });

    // Clusters: each planted group is one cluster, interpolated points included.
    const keys = new Uint32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/clusters`)).arrayBuffer());
    const clusterOf = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const group = planted.group(i);
      if (!clusterOf.has(group)) clusterOf.set(group, keys[i]!);
      assert.equal(keys[i], clusterOf.get(group), `point ${i} (${flags[i]}) is not in its group's cluster`);
    }
    assert.equal(new Set(clusterOf.values()).size, 3);
    // A cluster's silhouette is the mean over all its points, the interpolated ones included.
    for (const cluster of plot.clusters) {
      const members = [...keys.keys()].filter((i) => keys[i] === cluster.key);
      const mean = members.reduce((sum, i) => sum + silhouette[i]!, 0) / members.length;
      assert.ok(Math.abs(cluster.silhouette - mean) < 1e-6, `${cluster.label}: ${cluster.silhouette} against ${mean} over ${members.length} points`);
    }
    // Positions: the whole map keeps the planted distances (normalised stress over all pairs).
    const xyz = new Float32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/positions`)).arrayBuffer());
    let num = 0;
    let den = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < i; j++) {
        const delta = planted.dist(planted.points[i]!, planted.points[j]!);
        const d = Math.hypot(xyz[3 * i]! - xyz[3 * j]!, xyz[3 * i + 1]! - xyz[3 * j + 1]!, xyz[3 * i + 2]! - xyz[3 * j + 2]!);
        num += (delta - d) ** 2;
        den += delta ** 2;
      }
    }
    assert.ok(num / den < 1e-3, `normalised stress ${num / den}`);
  });

  test('120 reads in 3 planted families with sampleSize 45: sample → swg ∥ align → damds ∥ dapwc → interp; families kept', async () => {
    const { reads, fasta } = plantedFamilies(3, 40);
    const sampleSize = 45;
    const client = await signedIn(gw.url);
    const res = await submit(client, 'sequence-clustering', 'families.fasta', fasta, { sampleSize, maxClusters: 3, seed: 1 });
    assert.equal(res.status, 202, await res.clone().text());
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    assert.deepEqual(job.stages.map((s: any) => s.name), ['sample', 'swg', 'align', 'mds', 'pwc', 'interp', 'assemble']);
    const align = await client.json('GET', `/jobs/${job.id}/logs?stage=align`);
    assert.match(align.stdout, /"phase":\s*"done"/, 'swg --query wrote the block');
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal(plot.points, reads.length);
    const labels: string[] = await client.json('GET', `/plots/${job.plotId}/frames/0/labels`);
    assert.deepEqual(labels, reads.map((r) => r.id), 'labelled by id, in input order');
    const flags = await interpolatedFlags(client, plot);
    assert.equal(flags.filter((f) => f === 'yes').length, reads.length - sampleSize);
    const keys = new Uint32Array(await (await client.request('GET', `/plots/${job.plotId}/frames/0/clusters`)).arrayBuffer());
    const clusterOf = new Map<number, number>();
    reads.forEach((read, i) => {
      if (!clusterOf.has(read.family)) clusterOf.set(read.family, keys[i]!);
      assert.equal(keys[i], clusterOf.get(read.family), `${read.id} (${flags[i]}) is not in its family's cluster`);
    });
    assert.equal(new Set(clusterOf.values()).size, 3);
  });

  test('at or below sampleSize nothing changes: the plain graph, no interpolated column', async () => {
    const n = 30;
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', plantedBlobs(n).bytes, { points: n, sampleSize: n, maxClusters: 3 });
    assert.equal(res.status, 202, await res.clone().text());
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 120_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}`);
    assert.deepEqual(job.stages.map((s: any) => s.name), ['mds', 'pwc', 'assemble']);
    assert.equal(job.input.sample, undefined);
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.ok(!(plot.columns ?? []).some((c: any) => c.name === 'interpolated'));
  });
});

describe('out of core through the gateway: HPC_MEMORY_PER_RANK reaches damds, dapwc and interp', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ kernels: process.env.KERNELS_BIN || REAL_KERNELS, env: { HPC_MEMORY_PER_RANK: '4K' } });
  });
  after(async () => gw?.close());

  test('a 300-point job with sampleSize 60 under 4K per rank: the sample matrix streams, the block is read in 8-row chunks, the planted clusters come out', async () => {
    const { n, sampleSize, client, job } = await sampledBlobsJob(gw);
    // ¾ of 4K is below the sample's rows (damds: 3,600 bytes of halves; dapwc: 7,200 bytes).
    const logs: Record<string, string> = {};
    for (const stage of ['mds', 'pwc', 'interp']) logs[stage] = (await client.json('GET', `/jobs/${job.id}/logs?stage=${stage}`)).stdout;
    assert.match(logs.mds!, /"phase":\s*"loaded".*"streamed":\s*true/, 'damds streamed its matrix');
    assert.match(logs.pwc!, /"phase":\s*"loaded".*"streamed":\s*true/, 'dapwc streamed its matrix');
    assert.match(logs.pwc!, /"phase":\s*"done".*"clusters":\s*3\b/, 'the three planted groups');
    // A quarter of 4K holds 8 rows of 60 int16: 240 out-of-sample rows in 30 chunks.
    assert.equal((logs.interp!.match(/"phase":\s*"placed"/g) ?? []).length, 30);
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal((await interpolatedFlags(client, plot)).filter((f) => f === 'yes').length, n - sampleSize);
  });
});
