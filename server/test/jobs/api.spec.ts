// The jobs API with the fake kernels: validation before queueing, the whole
// pipeline of each job type, live events, logs, cancel while queued, retry.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FAKE_KERNELS, Gateway, ROOT, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';

const FASTA = '>s1 first\nACGTACGTAC\n>s2\nACGTTCGTAC\nACG\n>s3\nTTGTACGTAA\n>s4\nACGAACGTAC\n';

describe('jobs API', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ apiEnv: { JOB_MAX_ACTIVE: '3' } });
  });
  after(async () => gw?.close());

  const nothingQueued = async () => {
    assert.equal(await gw.store.jobs.countDocuments(), 0, 'no job document');
    const jobsDir = path.join(gw.env.DATA_DIR!, 'jobs');
    assert.deepEqual(existsSync(jobsDir) ? await readdir(jobsDir) : [], [], 'no job directory');
  };

  test('bad inputs of each type answer 4xx with the line, and queue nothing', async () => {
    const client = await signedIn(gw.url);
    const cases: [string, string, string | Uint8Array<ArrayBuffer>, object, number, RegExp, Record<string, Uint8Array<ArrayBuffer>>?][] = [
      ['sequence-clustering', 'x.fasta', 'ACGT\n>s1\nACGT\n', {}, 422, /line 1: expected a ">id" header/],
      ['sequence-clustering', 'x.fasta', '>s1\nACGT\n>s1\nACGA\n', {}, 422, /line 3: sequence id "s1" appears twice/],
      ['sequence-clustering', 'x.fasta', '>s1\nACGT\n>s2\n>s3\nAC\n', {}, 422, /line 3: the sequence is empty/],
      ['sequence-clustering', 'x.fasta', '>s1\nACGT\n>s2\nAC1T\n', {}, 422, /^file: line 4: "1" is not a DNA residue \(column 3\)$/],
      ['sequence-clustering', 'x.fasta', '>s1\nACGT\n>s2\nACQT\n', { alphabet: 'dna' }, 422, /line 4: "Q" is not a DNA residue/],
      ['sequence-clustering', 'x.fasta', FASTA, { gapOpen: -1 }, 400, /params.gapOpen/],
      ['sequence-clustering', 'x.fasta', FASTA, { bogus: 1 }, 400,
        /params: unknown key "bogus"; a sequence-clustering job takes dimension, maxClusters, minClusterSize, seed, ranks, threads, nodes, alphabet, distance, scoringMatrix, gapOpen, gapExtend, sampleSize, k$/],
      ['vectors', 'v.csv', 'a,b\n1,2\n3,4\n', { metric: 'euclidean', sep: ';', quote: '"' }, 400, /params: unknown keys "sep", "quote"; a vectors job takes .*metric, header, labelColumn/],
      ['distance-matrix', 'd.bin', new Uint8Array(2 * 9 - 2), { points: 3 }, 422, /16 bytes; a 3×3 int16 matrix has 18/],
      ['distance-matrix', 'd.bin', new Uint8Array(18), {}, 400, /params.points/],
      ['distance-matrix', 'd.bin', new Uint8Array(18), { points: 3, labels: ['a', 'b'] }, 422, /2 labels for 3 points/],
      ['distance-matrix', 'd.bin', new Uint8Array(18), { points: 3 }, 422, /weights: 32 bytes; a 3×3 int16 matrix has 18/, { weights: new Uint8Array(32) }],
      ['sequence-clustering', 'x.fasta', FASTA, {}, 400, /only distance-matrix jobs take a "weights" file/, { weights: new Uint8Array(18) }],
      ['distance-matrix', 'd.bin', new Uint8Array(18), { points: 3 }, 400, /file parts named "file", "weights"/, { bogus: new Uint8Array(18) }],
      ['vectors', 'v.csv', 'a,b\n1,2\n3,x\n', {}, 422, /line 3: column 2: "x" is not a number/],
      ['vectors', 'v.csv', 'a,b\n1,2\n3,4,5\n', {}, 422, /line 3: 3 cells/],
      ['vectors', 'v.csv', 'a,b\n1,2\n', {}, 422, /at least 2 vectors/],
      ['no-such-type', 'v.csv', '1,2\n', {}, 400, /type/],
    ];
    for (const [type, name, content, params, status, message, parts] of cases) {
      const res = await submit(client, type, name, content, params, parts);
      const body = await res.json();
      assert.equal(res.status, status, `${type} ${JSON.stringify(params)}: ${JSON.stringify(body)}`);
      assert.match(body.error.message, message);
      if (parts) assert.equal(body.error.field, Object.keys(parts)[0], 'the error names the file part');
    }
    const empty = await submit(client, 'sequence-clustering', 'x.fasta', '');
    assert.equal(empty.status, 400);
    const badJson = new FormData();
    badJson.set('type', 'vectors');
    badJson.set('params', '{nope');
    badJson.set('file', new Blob(['1,2\n3,4\n']), 'v.csv');
    assert.equal((await client.request('POST', '/jobs', badJson)).status, 400);
    await nothingQueued();
  });

  test('a distance matrix is checked before queueing: byte order, diagonal, symmetry (sampled rows for big N)', async () => {
    const client = await signedIn(gw.url);
    // SPIDAL's example is big-endian: read as little-endian, about half its distances are negative.
    const example = new Uint8Array(await readFile(path.resolve(ROOT, '../shared/data/damds-example/dist.bin')));
    const wrong = await submit(client, 'distance-matrix', 'dist.bin', example, { points: 1000 });
    const body = await wrong.json();
    assert.equal(wrong.status, 422, JSON.stringify(body));
    assert.equal(body.error.code, 'matrix_negative');
    assert.match(body.error.message, /^file: 50 % of the distances are negative .*; is the matrix big-endian \(params.byteOrder "big"\)\?$/);
    const square = (n: number, set: (m: Int16Array<ArrayBuffer>) => void) => {
      const m = new Int16Array(n * n);
      set(m);
      return new Uint8Array(m.buffer);
    };
    const cases: [Uint8Array<ArrayBuffer>, number, string, RegExp][] = [
      [square(3, (m) => { m[4] = 100; }), 3, 'matrix_diagonal', /^file: row 1: the diagonal is 100, not 0/],
      [square(3, (m) => { m[1] = 9000; m[3] = 1000; }), 3, 'matrix_asymmetric', /^file: d\(0, 1\) = 9000 but d\(1, 0\) = 1000/],
      // N = 2500 reads 256 sampled rows (0, 9, 19, ...): the pair (0, 9) is among them.
      [square(2500, (m) => { m[9] = 5000; }), 2500, 'matrix_asymmetric', /^file: d\(0, 9\) = 5000 but d\(9, 0\) = 0/],
    ];
    for (const [bytes, points, code, message] of cases) {
      const res = await submit(client, 'distance-matrix', 'd.bin', bytes, { points });
      const err = (await res.json()).error;
      assert.equal(res.status, 422, JSON.stringify(err));
      assert.deepEqual([err.code, err.field], [code, 'file']);
      assert.match(err.message, message);
    }
    await nothingQueued();
    const right = await submit(client, 'distance-matrix', 'dist.bin', example, { points: 1000, byteOrder: 'big' });
    assert.equal(right.status, 202, await right.clone().text());
    await waitForJob(client, (await right.json()).id, isTerminal);
  });

  test('the OpenAPI document gives each job type\'s params, one of them by type', async () => {
    const doc = await (await fetch(`${gw.url}/api/v1/openapi.json`)).json();
    const form = doc.paths['/jobs'].post.requestBody.content['multipart/form-data'].schema;
    assert.deepEqual(form.properties.type.enum, ['sequence-clustering', 'distance-matrix', 'vectors', 'stock-timeseries']);
    const oneOf = form.properties.params.contentSchema.oneOf;
    assert.deepEqual(oneOf.map((s: any) => s.title), form.properties.type.enum);
    const vectors = oneOf.find((s: any) => s.title === 'vectors');
    assert.equal(vectors.additionalProperties, false, 'unknown keys are refused');
    assert.deepEqual(vectors.properties.metric.enum, ['euclidean', 'correlation']);
    assert.match(form.properties.weights.description, /^distance-matrix: /);
  });

  test('jobs need a user, and another user sees 404', async () => {
    const owner = await signedIn(gw.url);
    const res = await submit(owner, 'sequence-clustering', 'x.fasta', FASTA);
    assert.equal(res.status, 202);
    const { id } = await res.json();
    const stranger = await signedIn(gw.url);
    assert.equal((await stranger.request('GET', `/jobs/${id}`)).status, 404);
    assert.equal((await stranger.request('POST', `/jobs/${id}/cancel`)).status, 404);
    const anonymous = await fetch(`${gw.url}/api/v1/jobs`);
    assert.equal(anonymous.status, 401);
    await waitForJob(owner, id, isTerminal);
  });

  test('a FASTA job runs SWG, then DA-MDS and DA-PWC, then assembles a labelled plot', async () => {
    const client = await signedIn(gw.url);
    const res = await submit(client, 'sequence-clustering', 'reads.fasta', FASTA, { maxClusters: 3 });
    assert.equal(res.status, 202);
    const { id } = await res.json();

    // Live events: job snapshots until the end event.
    const events = await fetch(`${gw.url}/api/v1/jobs/${id}/events`, { headers: { cookie: client.cookie } });
    assert.equal(events.headers.get('content-type'), 'text/event-stream');
    const text = await events.text();
    const snapshots = [...text.matchAll(/^event: job\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    assert.ok(snapshots.length >= 3, `several snapshots, got ${snapshots.length}`);
    assert.match(text, /event: end/);
    assert.equal(snapshots.at(-1).state, 'succeeded');

    const job = await client.json('GET', `/jobs/${id}`);
    assert.equal(job.state, 'succeeded');
    assert.deepEqual(job.stages.map((s: any) => [s.name, s.title, s.state, s.attempts]), [
      ['swg', 'Aligning sequences', 'succeeded', 1],
      ['mds', 'Mapping to 3D', 'succeeded', 1],
      ['pwc', 'Clustering', 'succeeded', 1],
      ['assemble', 'Building the plot', 'succeeded', 1],
    ]);
    const mds = job.stages[1];
    assert.equal(mds.progress.phase, 'done');
    assert.ok(mds.series.length >= 1 && typeof mds.series[0].stress === 'number');
    assert.ok(Number(mds.backendJobId) > 0);
    assert.equal(mds.exitCode, 0);
    assert.ok(mds.metrics.peakMemoryKb > 0 && mds.metrics.runSeconds >= 0 && mds.metrics.ranks === 1);
    assert.equal(job.params.alphabet, 'dna', 'alphabet detected');
    assert.deepEqual(job.history.filter((h: any) => !h.stage).map((h: any) => h.to), ['queued', 'running', 'succeeded']);
    // MDS and PWC both waited for SWG and ran side by side.
    const swgEnd = Date.parse(job.stages[0].endedAt);
    assert.ok(Date.parse(mds.startedAt) >= swgEnd && Date.parse(job.stages[2].startedAt) >= swgEnd);
    // The worker that finished it kept its seconds of work per stage, for the progress of later jobs like it.
    const kept = await gw.store.jobTimings.findOne({ jobId: id });
    assert.match(kept?._id ?? '', /^sequence-clustering\/swg\+mds\+pwc\+assemble\/\d+$/);
    assert.deepEqual(kept && { ...kept, _id: undefined }, {
      _id: undefined,
      jobId: id,
      points: 4,
      seconds: Object.fromEntries(job.stages.map((s: any) => [s.name, (Date.parse(s.endedAt) - Date.parse(s.launchedAt ?? s.startedAt)) / 1000])),
    });

    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal(plot.points, 4, 'one point per sequence, no appended centres');
    const labels = await client.json('GET', `/plots/${job.plotId}/frames/0/labels`);
    assert.deepEqual(labels, ['s1', 's2', 's3', 's4']);
    assert.deepEqual(plot.clusters.map((c: any) => [c.label, c.centre]), [
      ['cluster 0', 0],
      ['cluster 1', 1],
      ['cluster 2', 2],
    ], 'each cluster names its medoid (dapwc --centers) as a point index');
    assert.deepEqual(plot.clusters.map((c: any) => c.count), [2, 1, 1]);
    assert.deepEqual(job.warnings, []);
    assert.equal(job.params.distance, 'global', 'the default distance');
    assert.equal(job.stages[0].progress.options.distance, 'global', 'passed to swg --distance');
    assert.equal(job.stages[2].progress.options.centers, path.join(path.dirname(job.stages[2].progress.options.output), 'centers.txt'));
    // Files are named by their path in the job's directory: no server path reaches the user.
    assert.deepEqual([job.stages[0].progress.options.input, job.stages[0].progress.options.output], ['input.fasta', 'dist.bin']);
    assert.doesNotMatch(JSON.stringify(job), /"\//, 'no absolute path in the job');

    const logs = await client.json('GET', `/jobs/${id}/logs?stage=mds`);
    assert.match(logs.stdout, /"program": "damds"/);
    assert.equal((await client.request('GET', `/jobs/${id}/logs?stage=nope`)).status, 400);
    const finished = await client.request('POST', `/jobs/${id}/cancel`);
    assert.equal(finished.status, 409, 'a finished job cannot be cancelled');
    assert.equal((await finished.json()).error.message, 'the job has already succeeded');
    assert.equal((await client.request('POST', `/jobs/${id}/retry`)).status, 409, 'a succeeded job is not retried');
    const list = await client.json('GET', '/jobs');
    assert.deepEqual(list.items.map((j: any) => j.id), [id]);
  });

  test('a distance matrix and a CSV of vectors each become a plot', async () => {
    const client = await signedIn(gw.url);
    const matrix = await submit(client, 'distance-matrix', 'd.bin', new Uint8Array(2 * 5 * 5), {
      points: 5,
      labels: ['a', 'b', 'c', 'd', 'e'],
    });
    const csv = 'name,x,y\np,0,0\nq,0,1\nr,5,5\ns,5,6\n';
    const vectors = await submit(client, 'vectors', 'v.csv', csv, { labelColumn: 0, metric: 'correlation' });
    for (const res of [matrix, vectors]) assert.equal(res.status, 202);
    const [m, v] = [await matrix.json(), await vectors.json()];
    const mJob = await waitForJob(client, m.id, isTerminal);
    const vJob = await waitForJob(client, v.id, isTerminal);
    assert.equal(mJob.state, 'succeeded', JSON.stringify(mJob.stages));
    assert.equal(vJob.state, 'succeeded', JSON.stringify(vJob.stages));
    assert.deepEqual(vJob.stages.map((s: any) => s.name), ['distances', 'mds', 'pwc', 'assemble']);
    const labels = await client.json('GET', `/plots/${vJob.plotId}/frames/0/labels`);
    assert.deepEqual(labels.slice(0, 4), ['p', 'q', 'r', 's']);
    assert.deepEqual((await client.json('GET', `/plots/${mJob.plotId}/frames/0/labels`)).slice(0, 5), ['a', 'b', 'c', 'd', 'e']);
  });

  test('a job cancelled while queued never runs; the per-user limit holds; retry makes a new job', async () => {
    await gw.kill(gw.bridge, 'SIGTERM'); // nothing runs the MPI stages: jobs stay queued
    try {
      const client = await signedIn(gw.url);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json()).id);
      const over = await submit(client, 'sequence-clustering', 'x.fasta', FASTA);
      assert.equal(over.status, 429);
      await waitForJob(client, ids[0]!, (j) => j.stages[0].state === 'queued');
      const cancelled = await client.json('POST', `/jobs/${ids[0]}/cancel`);
      assert.equal(cancelled.state, 'cancelled');
      assert.deepEqual(cancelled.stages.map((s: any) => s.state), ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
      assert.equal((await client.request('POST', `/jobs/${ids[0]}/cancel`)).status, 409);
      for (const id of ids.slice(1)) await client.json('POST', `/jobs/${id}/cancel`);

      const retry = await client.json('POST', `/jobs/${ids[0]}/retry`, undefined, 202);
      await gw.startBridge();
      const again = await waitForJob(client, retry.id, isTerminal);
      assert.equal(again.state, 'succeeded');
      assert.equal(again.retryOf, ids[0]);
      // The cancelled job stayed cancelled and its stages never started.
      const first = await client.json('GET', `/jobs/${ids[0]}`);
      assert.equal(first.state, 'cancelled');
      assert.ok(first.stages.every((s: any) => s.startedAt === null));
    } finally {
      if (!gw.bridge || gw.bridge.exitCode !== null) await gw.startBridge();
    }
  });
});

describe('a program missing from KERNELS_BIN', () => {
  let gw: Gateway;
  let kernels: string;
  before(async () => {
    // The fake kernels without dapwc, as a gateway whose kernels were built only in part.
    kernels = await mkdtemp(path.join(process.env.WPV_TEST_DIR ?? os.tmpdir(), 'kernels-'));
    for (const name of ['swg', 'damds', 'fake_kernel.py']) await symlink(path.join(FAKE_KERNELS, name), path.join(kernels, name));
    gw = await Gateway.start({ kernels });
  });
  after(async () => {
    await gw?.close();
    if (kernels) await rm(kernels, { recursive: true, force: true });
  });

  test('fails its stage at once, naming the program, and the job with it', async () => {
    const client = await signedIn(gw.url);
    const res = await submit(client, 'distance-matrix', 'd.bin', new Uint8Array(2 * 4 * 4), { points: 4 });
    assert.equal(res.status, 202);
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 60_000);
    assert.equal(job.state, 'failed');
    const pwc = job.stages.find((s: any) => s.name === 'pwc');
    assert.equal(pwc.state, 'failed');
    assert.equal(pwc.attempts, 1, 'no retry: a missing program does not come back by itself');
    assert.match(pwc.error, /the program dapwc is not built or not executable in KERNELS_BIN/);
    assert.doesNotMatch(job.error, /132|mpirun/);
  });
});
