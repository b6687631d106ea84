// A job's result beyond 100,000 points (issue 18: interpolated jobs of 300,000 reads and more)
// goes through the assemble path: the DA-MDS points, DA-PWC clusters and centres, and the
// "interpolated" column are read from the job directory and the plot is stored in the real
// store. (Math.min(...rows) overflowed the call stack at 300,000 rows.)
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FILES } from '@wpv/jobs/workdir';
import type { JobDoc } from '@wpv/jobs/model';
import { mdsPlot } from '../src/jobtypes/mdsPlot.ts';
import { Plots } from '../src/services/plots.ts';
import { startServer, type TestServer } from './harness.ts';

const POINTS = 300_000;
const SAMPLE = 4_000;
const CLUSTERS = 8;

describe('assembling a 300,000-point job result', () => {
  let server: TestServer;
  let workdir: string;
  before(async () => {
    server = await startServer();
    workdir = await mkdtemp(path.join(process.env.WPV_TEST_DIR ?? os.tmpdir(), 'large-job-'));
    const lines = (row: (i: number) => string) => Array.from({ length: POINTS }, (_, i) => row(i)).join('\n') + '\n';
    // dapwc and interp number points from 1; point i sits at (i, 2i, 3i) in cluster i mod 8.
    await writeFile(path.join(workdir, FILES.points), lines((i) => `${i + 1} ${i} ${2 * i} ${3 * i}`));
    await writeFile(path.join(workdir, FILES.clusters), lines((i) => `${i + 1} ${i % CLUSTERS}`));
    await writeFile(path.join(workdir, FILES.centers), Array.from({ length: CLUSTERS }, (_, k) => `${k} ${POINTS / CLUSTERS} ${k}`).join('\n') + '\n');
    await writeFile(path.join(workdir, FILES.sampleRows), Array.from({ length: SAMPLE }, (_, i) => String(i * 75)).join('\n') + '\n');
  });
  after(async () => {
    await server?.close();
    if (workdir) await rm(workdir, { recursive: true, force: true });
  });

  test('every point keeps its place, cluster and interpolated flag', async () => {
    const job = { name: 'large', workdir, params: {}, stages: {}, input: { points: POINTS, sample: SAMPLE } } as unknown as JobDoc;
    const labels = Array.from({ length: POINTS }, (_, i) => `read${i}`);
    const parsed = await mdsPlot(job, labels);
    const [frame] = parsed.frames;
    assert.equal(frame!.clusterKeys.length, POINTS);
    assert.deepEqual([...frame!.positions.subarray(3 * 299_999, 3 * 300_000)], [299_999, 599_998, 899_997]);
    assert.equal(frame!.clusterKeys[299_999], 299_999 % CLUSTERS);
    assert.deepEqual(parsed.clusters.map((c) => c.label), Array.from({ length: CLUSTERS }, (_, k) => `cluster ${k}`));
    const flags = frame!.columns!.get('interpolated')!;
    assert.equal(flags.filter((f) => f === 'no').length, SAMPLE);
    assert.equal(flags[75], 'no');
    assert.equal(flags[76], 'yes');

    const plots = new Plots(server.store, server.config.limits);
    // As workers/src/assemble.ts stores a job's plot.
    const fields = { name: 'large', description: 'a large job', visibility: 'private' as const, tags: ['job'] };
    const created = await plots.ingestParsed('tester', parsed, fields, { format: 'pviz', originalName: 'large.pviz' });
    const doc = (await server.store.plots.findOne({ _id: created.id }))!;
    assert.equal(doc.state, 'ready');
    assert.equal(doc.points, POINTS);
  });
});
