// Stage shares of a job's time, from recent succeeded jobs of its type and graph: the pure
// choice of shares, their history in the store, and the API serving them with each stage.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { JobDoc } from '@wpv/jobs/model';
import { StageTimings, expectedSeconds, fitLine, secondsToShow, timingSample, workUnits, type TimingSample } from '@wpv/jobs/timings';
import { Client, startServer, type TestServer } from './harness.ts';

const ORDER = ['swg', 'mds', 'pwc', 'assemble'];
const sample = (points: number, seconds: number[]): TimingSample =>
  ({ points, seconds: Object.fromEntries(ORDER.map((name, k) => [name, seconds[k]!])) });
/** Each stage's share of the expected seconds (what the API serves as `share`). */
const stageShares = (...args: Parameters<typeof expectedSeconds>) => {
  const seconds = expectedSeconds(...args);
  const total = seconds && Object.values(seconds).reduce((a, b) => a + b, 0);
  return seconds && Object.fromEntries(Object.entries(seconds).map(([name, s]) => [name, s / total!]));
};
const rounded = (shares: Record<string, number> | null) =>
  shares && Object.fromEntries(Object.entries(shares).map(([name, share]) => [name, Math.round(share * 1000) / 1000]));

// sequence-clustering's graph: alignment, DA-MDS and DA-PWC grow with the pairs, the plot with the points.
const GRAPH = [
  { name: 'swg', work: 'pairs' }, { name: 'mds', work: 'pairs' }, { name: 'pwc', work: 'pairs' }, { name: 'assemble', work: 'points' },
] as const;
/** A remembered job whose stages took exactly these seconds per unit of work (planted rates). */
const planted = (points: number, rates: number[]) => sample(points, GRAPH.map(({ work }, k) => rates[k]! * workUnits(work, { points })));

describe('stageShares', () => {
  test('the median seconds per unit of work of the remembered jobs nearest in size, times this job\'s units', () => {
    // Alignment 4 µs per pair, DA-MDS 1, DA-PWC 1; the plot 1 ms per point.
    const rates = [4e-6, 1e-6, 1e-6, 1e-3];
    const samples = [planted(1000, rates), planted(2000, rates), planted(1500, rates.map((r) => r * 3)), planted(1200, rates)];
    // At N = 4,000: 64, 16, 16 and 4 s.
    assert.deepEqual(rounded(expectedSeconds(samples, { points: 4000 }, GRAPH)), { swg: 64, mds: 16, pwc: 16, assemble: 4 });
    assert.deepEqual(rounded(stageShares(samples, { points: 4000 }, GRAPH)), { swg: 0.64, mds: 0.16, pwc: 0.16, assemble: 0.04 });
    // Seconds to show come from jobs of the same size when there are some (within 1.25×): start-up costs weigh alike.
    assert.deepEqual(rounded(secondsToShow(samples, { points: 2200 }, GRAPH)), { swg: 19.36, mds: 4.84, pwc: 4.84, assemble: 2.2 });
    // At N = 100, pairs weigh less: 0.04, 0.01, 0.01 and 0.1 s.
    assert.deepEqual(rounded(stageShares(samples, { points: 100 }, GRAPH)), { swg: 0.25, mds: 0.063, pwc: 0.063, assemble: 0.625 });
  });

  test('seconds to show without jobs of the same size: start-up + rate × units, fitted per stage to the nearest sizes', () => {
    // Planted: each stage starts up in 0.5 s (the plot in 0.1 s), then 4, 1, 1 µs per pair, 1 ms per point.
    const startUp = [0.5, 0.5, 0.5, 0.1], rates = [4e-6, 1e-6, 1e-6, 1e-3];
    const timed = (points: number) => sample(points, GRAPH.map(({ work }, k) => startUp[k]! + rates[k]! * workUnits(work, { points })));
    const history = [timed(1000), timed(2000), timed(1000), timed(2000)];
    // At 4,000 reads: 64.5, 16.5, 16.5 and 4.1 s, where per-unit medians (the shares' basis) scale start-up too.
    assert.deepEqual(rounded(secondsToShow(history, { points: 4000 }, GRAPH)), { swg: 64.5, mds: 16.5, pwc: 16.5, assemble: 4.1 });
    assert.deepEqual(rounded(expectedSeconds(history, { points: 4000 }, GRAPH)), { swg: 69, mds: 21, pwc: 21, assemble: 4.3 });
    // Between sizes, none of them within 1.25×: the same line.
    assert.deepEqual(rounded(secondsToShow(history, { points: 1500 }, GRAPH)), { swg: 9.5, mds: 2.75, pwc: 2.75, assemble: 1.6 });
    // One size only (no line through it), or the job more than 4× beyond the sizes seen: none.
    assert.equal(secondsToShow([timed(1000), timed(1100)], { points: 4000 }, GRAPH), null);
    assert.equal(secondsToShow(history, { points: 9000 }, GRAPH), null);
    assert.equal(secondsToShow(history, { points: 200 }, GRAPH), null);
  });

  test('a fitted line is never negative: through the origin, or flat', () => {
    assert.deepEqual(fitLine([1, 2, 3], [2, 4, 6]), { startUp: 0, rate: 2 });
    assert.deepEqual(fitLine([10, 20], [0, 20]), { startUp: 0, rate: 0.8 }, 'a negative start-up: the line through the origin');
    assert.deepEqual(fitLine([10, 20, 30], [5, 4, 3.5]), { startUp: 4, rate: 0 }, 'a falling line: the median, flat');
    assert.deepEqual(fitLine([10, 10], [1, 3]), { startUp: 2, rate: 0 }, 'one size: its median');
  });

  test('jobs of a similar size (within 4×) first: their start-up costs are like this job\'s', () => {
    const small = Array.from({ length: 10 }, () => planted(100, [1e-4, 1e-4, 1e-4, 0])); // start-up dominated: 1 s per stage
    const large = [planted(50_000, [4e-9, 1e-9, 1e-9, 0])];
    assert.deepEqual(rounded(stageShares([...small, ...large], { points: 40_000 }, GRAPH)), { swg: 0.667, mds: 0.167, pwc: 0.167, assemble: 0 });
    // None within 4×: the ten nearest (here the small ones).
    assert.deepEqual(rounded(stageShares(small, { points: 40_000 }, GRAPH)), { swg: 0.333, mds: 0.333, pwc: 0.333, assemble: 0 });
  });

  test('an interpolating job: the sample\'s stages scale with the sample, the rest\'s with (N − S)·S', () => {
    const graph = [{ name: 'swg', work: 'sample pairs' }, { name: 'align', work: 'rest × sample' }, { name: 'assemble', work: 'points' }] as const;
    // 4,640 reads, a 4,000 sample: swg 16 s (1 µs per pair), align 2.56 s (1 µs per pair), assemble 0.
    const seen = { points: 4640, sample: 4000, seconds: { swg: 16, align: 2.56, assemble: 0 } };
    // 100,000 reads: align 96,000 × 4,000 pairs = 384 s beside swg's 16 s.
    assert.deepEqual(rounded(stageShares([seen], { points: 100_000, sample: 4000 }, graph)), { swg: 0.04, align: 0.96, assemble: 0 });
    // A job of the same reads with a 2,000 sample is not of the same size: its seconds come from a line, not from this job's.
    assert.equal(secondsToShow([seen], { points: 4640, sample: 2000 }, graph), null);
    assert.deepEqual(rounded(secondsToShow([seen], { points: 4640, sample: 4000 }, graph)), { swg: 16, align: 2.56, assemble: 0 });
  });

  test('an interpolating graph ignores remembered jobs without their sample size (their rest is unknown)', () => {
    const graph = [{ name: 'swg', work: 'sample pairs' }, { name: 'align', work: 'rest × sample' }, { name: 'assemble', work: 'points' }] as const;
    // Recorded before samples were kept: read as 4,640 reads with a sample of all 4,640, so a rest of 1 × 4,640
    // units for 2.3 s, it made a 640 × 4,000 rest 1,266 s (the QA pass saw "25 min left" for a 1-minute job).
    const unsized = { points: 4640, seconds: { swg: 6.4, align: 2.3, assemble: 0.2 } };
    assert.equal(expectedSeconds([unsized, unsized, unsized], { points: 4640, sample: 4000 }, graph), null);
    assert.equal(secondsToShow([unsized, unsized, unsized], { points: 4640, sample: 4000 }, graph), null);
    // A graph without sample-scaled stages takes them as before.
    assert.deepEqual(rounded(secondsToShow([sample(300, [7, 2, 1, 0.5])], { points: 300 }, GRAPH)), { swg: 7, mds: 2, pwc: 1, assemble: 0.5 });
  });

  test('no history, no usable history: null (the job shows equal shares)', () => {
    assert.equal(stageShares([], { points: 100 }, GRAPH), null);
    assert.equal(stageShares([sample(100, [0, 0, 0, 0])], { points: 100 }, GRAPH), null);
    // A remembered job without one of the stages (another graph's) is no evidence.
    assert.equal(stageShares([{ points: 100, seconds: { swg: 1, mds: 1 } }], { points: 100 }, GRAPH), null);
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
    assert.equal(timingSample({ ...job, input: { ...job.input, sample: 100 } })!.sample, 100, 'an interpolating job\'s sample is kept');
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

  test('the API serves each stage\'s share and expected seconds from jobs like it; equal shares without history', async () => {
    for (const seconds of [[7, 2, 0.5, 0.5], [8, 1, 0.5, 0.5], [6, 3, 0.5, 0.5]]) await timings.record(succeededJob('sequence-clustering', 4, seconds));
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
    // Jobs of its size (4 reads): the median seconds of each stage, 7, 2, 0.5 and 0.5.
    assert.deepEqual(await shares(sequences), { swg: 0.7, mds: 0.2, pwc: 0.05, assemble: 0.05 });
    assert.deepEqual(await shares(vectors), { distances: 0.25, mds: 0.25, pwc: 0.25, assemble: 0.25 }, 'no vectors job has run');
    const expected = async (id: string) => ((await (await user.request('GET', `/jobs/${id}`)).json()).stages as { expectedSeconds: number | null }[]).map((s) => s.expectedSeconds);
    assert.deepEqual(await expected(sequences), [7, 2, 0.5, 0.5]);
    assert.deepEqual(await expected(vectors), [null, null, null, null]);
    const listed = (await (await user.request('GET', '/jobs')).json()).items.find((job: { id: string }) => job.id === sequences);
    assert.deepEqual(listed.stages.map((s: { share: number }) => Math.round(s.share * 1000) / 1000), [0.7, 0.2, 0.05, 0.05]);
    for (const id of [sequences, vectors]) assert.equal((await user.request('POST', `/jobs/${id}/cancel`)).status, 200);
  });
});
