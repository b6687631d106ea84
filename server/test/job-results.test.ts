// Job submissions checked against what their plot may be (MAX_FRAMES), and a job's plot
// deleted afterwards (plotDeleted). No workers run here: a job's run is recorded by hand.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { jobPlotId } from '@wpv/jobs/model';
import { JobRepo } from '@wpv/jobs/repository';
import { stockMarketCsv } from '../src/cli/demo-data.ts';
import { parseFile } from '../src/formats/index.ts';
import { Plots } from '../src/services/plots.ts';
import { expectReply, signedIn, startServer, type Client, type TestServer } from './harness.ts';

let server: TestServer;
let client: Client;
const username = `results${randomBytes(3).toString('hex')}`;

before(async () => {
  // Queues of this file only: no worker of another suite picks these jobs up.
  process.env.JOB_QUEUE_PREFIX = `wpvtest.results.${randomBytes(4).toString('hex')}`;
  server = await startServer();
  client = await signedIn(server.url, username);
});
after(() => server.close());

function submitStocks(csv: string, params: Record<string, unknown>): Promise<Response> {
  const form = new FormData();
  form.set('type', 'stock-timeseries');
  form.set('params', JSON.stringify(params));
  form.set('file', new Blob([csv]), 'market.csv');
  return client.request('POST', '/jobs', form);
}

test('a stock job with more windows than a plot has frames (MAX_FRAMES) is refused before it is queued', async () => {
  // 2,600 weekdays from 2021-01-04: 3,638 calendar days, 3,632 windows of 7 days a day apart.
  const csv = stockMarketCsv(4, 2600);
  const before = (await client.json('GET', '/jobs')).items.length;
  const body = await expectReply(await submitStocks(csv, { windowDays: 7, stepDays: 1 }), 422, 'params.stepDays', 'too_many_frames');
  assert.match(body.error.message, /3632 frames; a plot has at most 2000 \(MAX_FRAMES\): take a step of at least 2 days/);
  assert.equal((await client.json('GET', '/jobs')).items.length, before, 'nothing queued');
  // The step it names fits: 1,816 windows.
  await expectReply(await submitStocks(csv, { windowDays: 7, stepDays: 2 }), 202);
});

/** A stock job that ran and stored its plot, as the workers record it. */
async function succeededJob(): Promise<{ id: string; plotId: string }> {
  const { id } = await expectReply(await submitStocks(stockMarketCsv(5, 300), {}), 202);
  const repo = new JobRepo(server.store);
  const job = (await repo.get(id))!;
  const plotId = jobPlotId(id);
  const file = path.join(process.env.WPV_TEST_DIR ?? '/tmp', `plot-${id}.txt`);
  await writeFile(file, '0 1 2 3 0\n1 2 3 4 1\n2 3 4 5 0\n');
  const parsed = await parseFile(file, 'plot.txt', { maxPoints: 100, maxFrames: 10, maxUncompressedBytes: 1e6, maxCompressionRatio: 100 });
  await new Plots(server.store, server.config.limits).ingestParsed(username, parsed, { name: 'stocks', description: '', visibility: 'private', tags: [] }, { format: 'text', originalName: 'plot.txt' }, plotId);
  assert.ok(await repo.moveJob(id, 'running', 'test'));
  for (const stage of job.stageOrder) {
    assert.ok(await repo.moveStage(id, stage, 'queued', 'test'));
    assert.ok(await repo.moveStage(id, stage, 'running', 'test'));
    assert.ok(await repo.moveStage(id, stage, 'succeeded', 'test', stage === 'assemble' ? { plotId } : {}));
  }
  assert.ok(await repo.moveJob(id, 'succeeded', 'test'));
  return { id, plotId };
}

test('a job whose plot was deleted says so (plotDeleted), in the job and in the list', async () => {
  const { id, plotId } = await succeededJob();
  const kept = await succeededJob();
  const listed = async (jobId: string) => (await client.json('GET', '/jobs')).items.find((j: { id: string }) => j.id === jobId);
  const job = await client.json('GET', `/jobs/${id}`);
  assert.equal(job.plotId, plotId);
  assert.equal(job.plotDeleted, false);
  assert.equal((await listed(id)).plotDeleted, false);

  assert.equal((await client.request('DELETE', `/plots/${plotId}`)).status, 204);
  const after = await client.json('GET', `/jobs/${id}`);
  assert.equal(after.plotId, plotId, 'the job still names the plot it made');
  assert.equal(after.plotDeleted, true);
  assert.equal((await listed(id)).plotDeleted, true);
  assert.equal((await client.json('GET', `/jobs/${kept.id}`)).plotDeleted, false, 'another job\'s plot is untouched');

  // A job that made no plot (yet) has none deleted.
  const { id: queued } = await expectReply(await submitStocks(stockMarketCsv(5, 300), {}), 202);
  assert.equal((await client.json('GET', `/jobs/${queued}`)).plotDeleted, false);
});
