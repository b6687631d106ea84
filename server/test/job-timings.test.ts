// Stage shares of a job's time, from recent succeeded jobs of its type and graph: the pure
// choice of shares, their history in the store, and the API serving them with each stage.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { JobDoc } from '@wpv/jobs/model';
import { StageTimings, stageShares, timingSample, type TimingSample } from '@wpv/jobs/timings';
import { Client, startServer, type TestServer } from './harness.ts';

const ORDER = ['swg', 'mds', 'pwc', 'assemble'];
const sample = (points: number, seconds: number[]): TimingSample =>
  ({ points, seconds: Object.fromEntries(ORDER.map((name, k) => [name, seconds[k]!])) });
const rounded = (shares: Record<string, number> | null) =>
  shares && Object.fromEntries(Object.entries(shares).map(([name, share]) => [name, Math.round(share * 1000) / 1000]));

describe('stageShares', () => {
  test('the median share per stage of the remembered jobs nearest in size, summing to 1', () => {
    const samples = [
      sample(1000, [6, 2, 1, 1]), // shares .6 .2 .1 .1
      sample(1200, [14, 3, 2, 1]), // .7 .15 .1 .05
      sample(900, [8, 1, 0.5, 0.5]), // .8 .1 .05 .05
      ...Array.from({ length: 10 }, () => sample(100_000, [1, 8, 1, 0])), // far in size: left out
    ];
    const shares = stageShares(samples, 1000, ORDER)!;
    // Medians .7 .15 .1 .05 (sum 1): the three of similar size, not the ten large ones.
    assert.deepEqual(rounded(shares), { swg: 0.7, mds: 0.15, pwc: 0.1, assemble: 0.05 });
    // Near the large ones, those are the nearest.
    assert.deepEqual(rounded(stageShares(samples, 80_000, ORDER)), { swg: 0.1, mds: 0.8, pwc: 0.1, assemble: 0 });
    // None of a similar size (within 4×): the ten nearest, seven of them large.
    assert.deepEqual(rounded(stageShares(samples, 10, ORDER)), { swg: 0.1, mds: 0.8, pwc: 0.1, assemble: 0 });
    assert.deepEqual(rounded(stageShares(samples.slice(0, 3), 10, ORDER)), { swg: 0.7, mds: 0.15, pwc: 0.1, assemble: 0.05 });
  });

  test('medians that do not sum to 1 are scaled to', () => {
    const shares = stageShares([sample(10, [1, 1, 0, 0]), sample(10, [0, 0, 1, 1]), sample(10, [1, 0, 1, 0])], 10, ORDER)!;
    // Medians .5 0 .5 0 of (.5 .5 0 0), (0 0 .5 .5), (.5 0 .5 0).
    assert.deepEqual(rounded(shares), { swg: 0.5, mds: 0, pwc: 0.5, assemble: 0 });
    const sums = stageShares([sample(10, [3, 1, 0, 0]), sample(10, [0, 1, 3, 0]), sample(10, [1, 1, 1, 1])], 10, ORDER)!;
    assert.ok(Math.abs(Object.values(sums).reduce((a, b) => a + b, 0) - 1) < 1e-12);
  });

  test('no history, no usable history: null (the job shows equal shares)', () => {
    assert.equal(stageShares([], 100, ORDER), null);
    assert.equal(stageShares([sample(100, [0, 0, 0, 0])], 100, ORDER), null);
    // A remembered job without one of the stages (another graph's) is no evidence.
    assert.equal(stageShares([{ points: 100, seconds: { swg: 1, mds: 1 } }], 100, ORDER), null);
  });
});

/** A succeeded job of the given seconds of work per stage (ORDER): programs wait 5 s for CPUs; assemble runs in the worker. */
function succeededJob(type: JobDoc['type'], points: number, seconds: number[]): JobDoc {
  const start = Date.UTC(2026, 10, 26, 10);
  const stages = Object.fromEntries(ORDER.map((name, k) => {
    const launchedAt = new Date(start + 1000 * k * 100);
    const program = name !== 'assemble';
    return [name, {
      name, startedAt: new Date(launchedAt.getTime() - (program ? 5000 : 0)), // a program's 5 s waiting for CPUs: not work
      launchedAt: program ? launchedAt : null,
      endedAt: new Date(launchedAt.getTime() + 1000 * seconds[k]!),
    }];
  }));
  // Only what the timings read of a job.
  return { _id: `job-${points}-${seconds.join('-')}`, type, stageOrder: ORDER, input: { points }, stages } as unknown as JobDoc;
}

describe('stage times in the store and in the API', () => {
  let server: TestServer;
  let timings: StageTimings;
  let user: Client;
  before(async () => {
    process.env.JOB_QUEUE_PREFIX = `wpvtest.timings.${randomBytes(4).toString('hex')}`;
    server = await startServer();
    timings = new StageTimings(server.store.jobTimings);
    await server.store.jobTimings.deleteMany({});
    user = new Client(server.url);
    await user.signUp('tessa');
  });
  after(() => server.close());

  test('a job\'s sample is its seconds of work per stage (from launch, not from submission to the backend)', () => {
    const job = succeededJob('sequence-clustering', 300, [7, 2, 1, 0.5]);
    assert.deepEqual(timingSample(job), sample(300, [7, 2, 1, 0.5]));
    const unfinished = succeededJob('sequence-clustering', 300, [7, 2, 1, 0.5]);
    (unfinished.stages.pwc as { endedAt: Date | null }).endedAt = null;
    assert.equal(timingSample(unfinished), null);
  });

  test('each graph keeps its last 50 jobs; concurrent records are all kept', async () => {
    for (let i = 0; i < 55; i++) await timings.record(succeededJob('vectors', 1000 + i, [1, 1, 1, 1]));
    const kept = await timings.samples({ type: 'vectors', stageOrder: ORDER });
    assert.equal(kept.length, 50);
    assert.deepEqual([kept[0]!.points, kept.at(-1)!.points], [1005, 1054], 'the oldest dropped out');
    assert.deepEqual(await timings.samples({ type: 'distance-matrix', stageOrder: ORDER }), [], 'another type has its own history');

    await Promise.all(Array.from({ length: 4 }, (_, i) => timings.record(succeededJob('stock-timeseries', 10 + i, [1, 1, 1, 1]))));
    const raced = await timings.samples({ type: 'stock-timeseries', stageOrder: ORDER });
    assert.deepEqual(raced.map((s) => s.points).sort(), [10, 11, 12, 13]);
  });

  test('the API serves each stage\'s share from jobs like it; equal shares without history', async () => {
    for (const seconds of [[7, 2, 0.5, 0.5], [8, 1, 0.5, 0.5], [6, 3, 0.5, 0.5]]) await timings.record(succeededJob('sequence-clustering', 5, seconds));
    const submit = async (type: string, name: string, text: string) => {
      const form = new FormData();
      form.set('type', type);
      form.set('params', '{}');
      form.set('file', new Blob([text]), name);
      const res = await user.request('POST', '/jobs', form);
      assert.equal(res.status, 202, await res.clone().text());
      return (await res.json()).id as string;
    };
    const sequences = await submit('sequence-clustering', 'reads.fasta', '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n>d\nACGAACGTAC\n');
    const vectors = await submit('vectors', 'points.csv', 'x,y\n1,2\n3,4\n5,7\n');
    const shares = async (id: string) => Object.fromEntries(((await (await user.request('GET', `/jobs/${id}`)).json()).stages as { name: string; share: number }[])
      .map((s) => [s.name, Math.round(s.share * 1000) / 1000]));
    // Medians of (.7 .2 .05 .05), (.8 .1 .05 .05), (.6 .3 .05 .05).
    assert.deepEqual(await shares(sequences), { swg: 0.7, mds: 0.2, pwc: 0.05, assemble: 0.05 });
    assert.deepEqual(await shares(vectors), { distances: 0.25, mds: 0.25, pwc: 0.25, assemble: 0.25 }, 'no vectors job has run');
    const listed = (await (await user.request('GET', '/jobs')).json()).items.find((job: { id: string }) => job.id === sequences);
    assert.deepEqual(listed.stages.map((s: { share: number }) => Math.round(s.share * 1000) / 1000), [0.7, 0.2, 0.05, 0.05]);
    for (const id of [sequences, vectors]) assert.equal((await user.request('POST', `/jobs/${id}/cancel`)).status, 200);
  });
});
