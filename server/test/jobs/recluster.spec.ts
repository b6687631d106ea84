// Re-clustering (SPIDAL's multistage DA-PWC) through the API with the real programs
// (KERNELS_BIN) on the local backend: a planted family of two subfamilies, grown from
// real reads of 16s-4640.fasta beside two other families, is one cluster of its
// sequence-clustering job; re-clustering that cluster must separate the subfamilies.
// Then the API's rules: owner only, bad requests, the parent's matrix kept and dropped.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../harness.ts';
import { Gateway, REAL_KERNELS, ROOT, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';
import { READS } from './sequence-plot.ts';

interface Planted {
  id: string;
  sequence: string;
  family: number;
}

/** Families 1 and 2 are subfamilies of one family; 3 and 4 other families (kernels/dapwc/tests/families.py). */
function plantedSubfamilies(seed: number): Planted[] {
  const script = path.join(ROOT, 'kernels/dapwc/tests/families.py');
  return JSON.parse(execFileSync('python3', [script, 'subfamilies', READS, String(seed)], { encoding: 'utf8' }));
}

/** Adjusted Rand index of two labelings. */
function adjustedRand(a: number[], b: number[]): number {
  const count = (keys: string[]) => keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());
  const pairs = (m: Map<string, number>) => [...m.values()].reduce((s, c) => s + (c * (c - 1)) / 2, 0);
  const index = pairs(count(a.map((x, i) => `${x}:${b[i]}`)));
  const rows = pairs(count(a.map(String)));
  const cols = pairs(count(b.map(String)));
  const expected = (rows * cols) / ((a.length * (a.length - 1)) / 2);
  return rows + cols === 2 * expected ? 1 : (index - expected) / ((rows + cols) / 2 - expected);
}

async function frameKeys(client: Client, plotId: string): Promise<number[]> {
  return [...new Uint32Array(await (await client.request('GET', `/plots/${plotId}/frames/0/clusters`)).arrayBuffer())];
}

const matrixOf = async (file: string) => new Int16Array((await readFile(file)).buffer.slice(0));

describe('re-clustering a cluster with the real kernels (local backend)', () => {
  let gw: Gateway;
  let alice: Client;
  let parent: any; // the sequence-clustering job
  let child: any; // the recluster job
  const jobsDir = () => path.join(gw.env.DATA_DIR!, 'jobs');
  before(async () => {
    gw = await Gateway.start({ kernels: process.env.KERNELS_BIN || REAL_KERNELS });
    alice = await signedIn(gw.url);
  });
  after(async () => gw?.close());

  test('re-clustering the cluster of a family separates its two subfamilies; the plots link both ways', async () => {
    const planted = plantedSubfamilies(1);
    const fasta = planted.map((p) => `>${p.id}\n${p.sequence}\n`).join('');
    const res = await submit(alice, 'sequence-clustering', 'subfamilies.fasta', fasta, { maxClusters: 3, seed: 1 });
    assert.equal(res.status, 202, await res.clone().text());
    parent = await waitForJob(alice, (await res.json()).id, isTerminal, 240_000);
    assert.equal(parent.state, 'succeeded', `${parent.error}`);

    // The parent's clusters: the family of two subfamilies is one of them, whole and alone.
    const keys = await frameKeys(alice, parent.plotId);
    const familyRows = planted.flatMap((p, i) => (p.family <= 2 ? [i] : []));
    const familyKey = keys[familyRows[0]!]!;
    assert.deepEqual(keys.flatMap((k, i) => (k === familyKey ? [i] : [])), familyRows, `the parent's cluster ${familyKey} is exactly the family`);

    // The owner named the cluster: the child is named after it.
    await alice.json('PATCH', `/plots/${parent.plotId}`, { clusters: [{ key: familyKey, label: 'Ascomycota A' }] });
    const start = await alice.request('POST', `/plots/${parent.plotId}/recluster`, { cluster: familyKey, maxClusters: 2 });
    assert.equal(start.status, 202, await start.clone().text());
    child = await waitForJob(alice, (await start.json()).jobId, isTerminal, 240_000);
    assert.equal(child.state, 'succeeded', `${child.error}\n${JSON.stringify(child.stages, null, 1)}`);
    assert.deepEqual(child.stages.map((s: any) => s.name), ['cut', 'mds', 'pwc', 'assemble']);
    assert.equal(child.type, 'recluster');
    assert.equal(child.params.parentPlot, parent.plotId);
    // Its input, as the job page shows it ("<input> (<points> points)"): the parent plot, once.
    const parentPlot = await alice.json('GET', `/plots/${parent.plotId}`);
    assert.deepEqual([child.input.originalName, child.input.points], [parentPlot.name, familyRows.length]);

    // The child: exactly the chosen points, labelled as in the parent, the subfamilies apart.
    const plot = await alice.json('GET', `/plots/${child.plotId}`);
    assert.equal(plot.points, familyRows.length);
    const named = `${parentPlot.name}: Ascomycota A (${familyRows.length} points) re-clustered`;
    assert.deepEqual([child.name, plot.name], [named, named]);
    assert.deepEqual(await alice.json('GET', `/plots/${child.plotId}/frames/0/labels`), familyRows.map((r) => planted[r]!.id));
    const ari = adjustedRand(await frameKeys(alice, child.plotId), familyRows.map((r) => planted[r]!.family));
    assert.ok(ari >= 0.95, `ARI of the re-clustering against the subfamilies: ${ari}`);
    for (const c of plot.clusters) assert.ok(c.centre >= 0 && c.centre < plot.points, 'each cluster names its medoid');

    // Linked both ways.
    assert.equal(plot.parent, parent.plotId);
    // The worker wrote the parent's link; the API process may serve its remembered parent for up to 1 s.
    const childrenOfParent = async () => (await alice.json('GET', `/plots/${parent.plotId}`)).children;
    for (const start = Date.now(); !(await childrenOfParent()) && Date.now() - start < 3_000; ) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await childrenOfParent(), [child.plotId]);

    // The cut is the parent's matrix at those rows and columns (no realignment).
    const whole = await matrixOf(path.join(jobsDir(), parent.id, 'dist.bin'));
    const cut = await matrixOf(path.join(jobsDir(), child.id, 'dist.bin'));
    const n = planted.length;
    const k = familyRows.length;
    assert.equal(cut.length, k * k);
    familyRows.forEach((r, i) => familyRows.forEach((c, j) => assert.equal(cut[i * k + j], whole[r * n + c], `(${i}, ${j})`)));
  });

  test('owner only: 404 for others on a private plot, 403 on a public one', async () => {
    assert.ok(parent, 'needs the first test\'s job');
    const bob = await signedIn(gw.url);
    assert.equal((await bob.request('POST', `/plots/${parent.plotId}/recluster`, { cluster: 1 })).status, 404);
    await alice.json('PATCH', `/plots/${parent.plotId}`, { visibility: 'public' });
    const forbidden = await bob.request('POST', `/plots/${parent.plotId}/recluster`, { cluster: 1 });
    assert.equal(forbidden.status, 403);
    assert.equal((await alice.json('GET', `/plots/${parent.plotId}`)).children.length, 1);
    assert.equal((await bob.json('GET', `/plots/${parent.plotId}`)).children, undefined, 'a private re-clustering is not listed to others');
  });

  test('bad requests name the field; an uploaded plot and POST /jobs are refused', async () => {
    assert.ok(parent, 'needs the first test\'s job');
    const post = async (body: unknown, id = parent.plotId) => {
      const res = await alice.request('POST', `/plots/${id}/recluster`, body);
      return { status: res.status, body: await res.json() };
    };
    const none = await post({ maxClusters: 3 });
    assert.equal(none.status, 400);
    assert.match(none.body.error.message, /exactly one of cluster, points, selection and mask/);
    assert.equal((await post({ cluster: 1, points: [1, 2, 3, 4] })).status, 400);
    const missing = await post({ cluster: 77 });
    assert.deepEqual([missing.status, missing.body.error.field], [400, 'cluster']);
    const outside = await post({ points: [0, 1, 2, 80] });
    assert.deepEqual([outside.status, outside.body.error.field], [400, 'points']);
    assert.match(outside.body.error.message, /index 80 is out of range/);
    const few = await post({ points: [0, 1, 2] });
    assert.deepEqual([few.status, few.body.error.code], [422, 'too_few_points']);
    assert.equal((await post({ selection: 'nope' })).status, 404);

    const uploaded = await (await alice.upload('four.txt', '0\t0\t0\t0\t1\n1\t1\t0\t0\t1\n2\t0\t1\t0\t1\n3\t0\t0\t1\t1\n')).json();
    const refused = await post({ points: [0, 1, 2, 3] }, uploaded.id);
    assert.deepEqual([refused.status, refused.body.error.code], [422, 'not_reclusterable']);

    const viaJobs = await submit(alice, 'recluster', 'rows.tsv', '0\ta\n');
    assert.equal(viaJobs.status, 400, 'recluster jobs start from a plot, not POST /jobs');
  });

  test('a re-clustering is re-clustered from a named selection (multistage); deleting a plot drops its matrix; 409 without one', async () => {
    assert.ok(child, 'needs the first test\'s re-clustering');
    const childMatrix = path.join(jobsDir(), child.id, 'dist.bin');
    assert.ok(existsSync(childMatrix), 'JOB_CLEANUP keeps a re-clusterable job\'s matrix');
    // The kept matrix counts against the owner's storage quota, with the plot's blobs.
    const blobs = await gw.store.blobs.meta.find({ plotId: child.plotId }).toArray();
    const stored = (await gw.store.plots.findOne({ _id: child.plotId }))?.storedBytes;
    assert.equal(stored, blobs.reduce((sum, blob) => sum + blob.length, 0) + (await stat(childMatrix)).size);
    await alice.request('PUT', `/plots/${child.plotId}/selections/firsts`, { frame: 0, indices: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] });
    const start = await alice.request('POST', `/plots/${child.plotId}/recluster`, { selection: 'firsts', maxClusters: 2, name: 'ten of them' });
    assert.equal(start.status, 202, await start.clone().text());
    const grandchild = await waitForJob(alice, (await start.json()).jobId, isTerminal, 240_000);
    assert.equal(grandchild.state, 'succeeded', `${grandchild.error}`);
    const plot = await alice.json('GET', `/plots/${grandchild.plotId}`);
    assert.deepEqual([plot.name, plot.points, plot.parent], ['ten of them', 10, child.plotId]);

    // Deleting the parent drops its matrix and the child's link to it.
    await alice.json('DELETE', `/plots/${parent.plotId}`, undefined, 204);
    assert.ok(!existsSync(path.join(jobsDir(), parent.id, 'dist.bin')), 'the deleted plot\'s matrix is gone');
    assert.equal((await alice.json('GET', `/plots/${child.plotId}`)).parent, undefined);

    // A matrix gone (an older gateway's JOB_CLEANUP) is a 409.
    await rm(childMatrix);
    const gone = await alice.request('POST', `/plots/${child.plotId}/recluster`, { cluster: 1 });
    assert.equal(gone.status, 409);
    assert.equal((await gone.json()).error.code, 'matrix_gone');
  });
});
