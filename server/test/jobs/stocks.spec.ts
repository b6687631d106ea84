// The stock-timeseries job end to end through the API with the real mdsseries
// (kernels/build/bin; KERNELS_BIN overrides): a generated market with planted sectors,
// a constant-price stock and a stock missing 30 % of its days becomes a time-series
// plot, one aligned frame per window; bad inputs answer 4xx and queue nothing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Gateway, REAL_KERNELS, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';

const SECTORS = ['energy', 'health', 'tech'];
const PER_SECTOR = 5;
const DAYS = 240;
const START = Date.UTC(2020, 0, 1);
const iso = (t: number) => new Date(START + t * 86_400_000).toISOString().slice(0, 10);

/** A seeded generator (mulberry32): the same market every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Long-layout CSV: each stock follows its sector's daily factor plus a little noise of its own. */
function market(): { csv: string; symbols: Map<string, string> } {
  const rand = random(7);
  const normal = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const factors = SECTORS.map(() => Array.from({ length: DAYS }, () => normal()));
  const symbols = new Map<string, string>();
  const rows = ['date,symbol,price,volume,sector'];
  SECTORS.forEach((sector, s) => {
    for (let k = 0; k < PER_SECTOR; k++) {
      const symbol = `${sector.slice(0, 2).toUpperCase()}${k}`;
      symbols.set(symbol, sector);
      let price = 50 + 10 * k;
      for (let t = 0; t < DAYS; t++) {
        price *= Math.exp(0.02 * factors[s]![t]! + 0.004 * normal());
        rows.push(`${iso(t)},${symbol},${price.toFixed(4)},${1000 + k},${sector}`);
      }
    }
  });
  for (let t = 0; t < DAYS; t++) rows.push(`${iso(t)},FLAT,20,500,energy`);
  for (let t = 0; t < DAYS; t++) if (t % 10 >= 3) rows.push(`${iso(t)},GAPPY,${(30 * Math.exp(0.01 * factors[0]![t]!)).toFixed(4)},500,energy`);
  return { csv: rows.join('\n') + '\n', symbols };
}

async function frame(client: any, plotId: string, k: number): Promise<{ labels: string[]; xyz: Float32Array }> {
  const labels = await client.json('GET', `/plots/${plotId}/frames/${k}/labels`);
  const bytes = new Uint8Array(await (await client.request('GET', `/plots/${plotId}/frames/${k}/positions`)).arrayBuffer());
  return { labels, xyz: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) };
}

const dist = (a: Float32Array, i: number, b: Float32Array, j: number) =>
  Math.hypot(a[3 * i]! - b[3 * j]!, a[3 * i + 1]! - b[3 * j + 1]!, a[3 * i + 2]! - b[3 * j + 2]!);

describe('the stock-timeseries job', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ kernels: process.env.KERNELS_BIN || REAL_KERNELS });
  });
  after(async () => gw?.close());

  test('a generated market becomes one aligned frame per window: symbols as labels, the bad stocks left out, sectors together', async () => {
    const client = await signedIn(gw.url);
    const { csv, symbols } = market();
    const res = await submit(client, 'stock-timeseries', 'market.csv', csv, { windowDays: 90, stepDays: 30 });
    assert.equal(res.status, 202, await res.clone().text());
    const { id } = await res.json();
    const job = await waitForJob(client, id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${JSON.stringify(job.stages, null, 1)}\n${gw.logOf('worker0')}`);
    assert.deepEqual(job.stages.map((s: any) => s.name), ['prepare', 'series', 'assemble']);
    assert.equal(job.params.weights, 'tradedValue', 'a volume column makes traded-value weights the default');
    assert.equal(job.params.clusterBy, 'sector');
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    // Windows of 90 days starting every 30 days inside 240 days: starts 0, 30, …, 150.
    assert.equal(plot.frames, 6);
    assert.deepEqual(plot.clusters.map((c: any) => c.label).sort(), SECTORS);
    let previous: { labels: string[]; xyz: Float32Array } | null = null;
    for (let k = 0; k < plot.frames; k++) {
      const f = await frame(client, job.plotId, k);
      assert.deepEqual([...f.labels].sort(), [...symbols.keys()].sort(), `frame ${k}: the constant and the gappy stock are left out`);
      // Most stocks' nearest 3-D neighbour is of their sector.
      let same = 0;
      f.labels.forEach((label, i) => {
        let best = -1;
        f.labels.forEach((_, j) => {
          if (j !== i && (best < 0 || dist(f.xyz, i, f.xyz, j) < dist(f.xyz, i, f.xyz, best))) best = j;
        });
        if (symbols.get(f.labels[best]!) === symbols.get(label)) same++;
      });
      assert.ok(same >= 0.8 * f.labels.length, `frame ${k}: ${same} of ${f.labels.length} nearest neighbours share the sector`);
      if (previous) {
        // Aligned: a stock moves little between frames compared with the map's extent.
        let extent = 0;
        for (let i = 0; i < f.labels.length; i++) for (let j = 0; j < i; j++) extent = Math.max(extent, dist(f.xyz, i, f.xyz, j));
        const moves = f.labels.map((label, i) => dist(f.xyz, i, previous!.xyz, previous!.labels.indexOf(label))).sort((a, b) => a - b);
        const median = moves[Math.floor(moves.length / 2)]!;
        assert.ok(median < 0.25 * extent, `frame ${k}: median displacement ${median.toFixed(3)} of extent ${extent.toFixed(3)}`);
      }
      previous = f;
    }
    // JOB_CLEANUP (on-success) removes the price records and mdsseries's matrices once the job
    // succeeded (just after it is recorded); the input and the program's frames stay.
    const { workdir } = (await gw.store.jobs.findOne({ _id: id }))!;
    const intermediates = ['observations.bin', 'prices.bin', 'volumes.bin'];
    const left = async () => intermediates.filter((file) => existsSync(path.join(workdir, file)));
    for (let waited = 0; (await left()).length && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await left(), [], 'intermediates removed');
    assert.deepEqual((await readdir(workdir)).filter((f) => ['input.csv', 'frames.txt'].includes(f)).sort(), ['frames.txt', 'input.csv']);
  });

  test('referenceStocks adds the five REF: series to every frame in their own cluster, the flat one despite the constant-price rule', async () => {
    const client = await signedIn(gw.url);
    const { symbols } = market();
    const res = await submit(client, 'stock-timeseries', 'market.csv', market().csv, { windowDays: 90, stepDays: 75, referenceStocks: true });
    assert.equal(res.status, 202, await res.clone().text());
    const job = await waitForJob(client, (await res.json()).id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${gw.logOf('worker0')}`);
    const plot = await client.json('GET', `/plots/${job.plotId}`);
    assert.equal(plot.frames, 3);
    assert.ok(plot.clusters.some((c: any) => c.label === 'reference series'), JSON.stringify(plot.clusters));
    const references = ['REF:+0.1%/day', 'REF:+0.2%/day', 'REF:-0.1%/day', 'REF:-0.2%/day', 'REF:flat'];
    for (let k = 0; k < plot.frames; k++) {
      const { labels } = await frame(client, job.plotId, k);
      // FLAT (a stock whose price did not move) is still left out; REF:flat is constant by design.
      assert.deepEqual([...labels].sort(), [...symbols.keys(), ...references].sort(), `frame ${k}`);
    }
  });

  test('the CSV is read once, by the input check: a retry of the job runs from its records with the CSV emptied', async () => {
    const client = await signedIn(gw.url);
    const res = await submit(client, 'stock-timeseries', 'market.csv', market().csv, { windowDays: 90, stepDays: 75 });
    assert.equal(res.status, 202, await res.clone().text());
    const { id } = await res.json();
    await client.json('POST', `/jobs/${id}/cancel`);
    const cancelled = (await gw.store.jobs.findOne({ _id: id }))!;
    await writeFile(path.join(cancelled.workdir, cancelled.input.file), 'date,symbol,price\n');
    const retry = await client.json('POST', `/jobs/${id}/retry`, undefined, 202);
    const job = await waitForJob(client, retry.id, isTerminal, 240_000);
    assert.equal(job.state, 'succeeded', `${job.error}\n${gw.logOf('worker0')}`);
    assert.equal((await client.json('GET', `/plots/${job.plotId}`)).frames, 3, 'prepare placed the records the check wrote');
  });

  test('bad inputs answer 4xx naming the line or field, and queue nothing', async () => {
    const client = await signedIn(gw.url);
    const before = await gw.store.jobs.countDocuments();
    const jobDirs = async () => (await readdir(path.join(gw.env.DATA_DIR!, 'jobs')).catch(() => [])).sort();
    const dirsBefore = await jobDirs();
    const good = (rows: string[]) => ['date,symbol,price', ...rows].join('\n') + '\n';
    const three = ['01', '02', '03'].flatMap((d, t) => ['A', 'B', 'C'].map((sym, i) => `2020-01-${d},${sym},${i + 1 + t / 10}`));
    const cases: [string, object, number, RegExp][] = [
      ['date,symbol,close\n2020-01-01,A,1\n', {}, 422, /line 1: the header has no "price" column/],
      ['day,symbol,price\n2020-01-01,A,1\n', {}, 422, /line 1: the header has no "date" column/],
      ['when,A,B,C\n2020-01-01,1,2,3\n', {}, 422, /line 1: the header needs "date", "symbol" and "price" columns/],
      [good(['2020-01-01,A,1', '2020-13-01,B,2']), {}, 422, /line 3: date "2020-13-01" is not a YYYY-MM-DD date/],
      [good(['2020-01-01,A,1', '01/02/2020,B,2']), {}, 422, /line 3: date "01\/02\/2020" is not a YYYY-MM-DD date/],
      [good(['2020-01-01,A,1', '2020-01-02,B,-2']), {}, 422, /line 3: price "-2" is not a positive number/],
      [good(['2020-01-01,A,1', '2020-01-02,B,0']), {}, 422, /line 3: price "0" is not a positive number/],
      [good(['2020-01-01,A,1', '2020-01-02,B,n/a']), {}, 422, /line 3: price "n\/a" is not a positive number/],
      ['date,A,B,C\n2020-01-01,1,2,3\n2020-01-02,1,x,3\n', {}, 422, /line 3: price of B "x" is not a positive number/],
      [good(['2020-01-01,A,1', '2020-01-02,B,2', '2020-01-03,A,1.2']), { windowDays: 3 }, 422, /2 symbols; at least 3 are needed/],
      [good(three), { windowDays: 30 }, 422, /params.windowDays: a window of 30 days is longer than the data \(3 days, 2020-01-01 to 2020-01-03\)/],
      [good(three), { windowDays: 3, weights: 'tradedValue' }, 422, /"tradedValue" needs a volume column/],
      [good(three), { windowDays: 3, window: 3 }, 400, /unknown key "window"; a stock-timeseries job takes windowDays, stepDays/],
    ];
    for (const [csv, params, status, message] of cases) {
      const res = await submit(client, 'stock-timeseries', 'prices.csv', csv, params);
      const body = await res.json();
      assert.equal(res.status, status, `${csv.slice(0, 60)} ${JSON.stringify(params)}: ${JSON.stringify(body)}`);
      assert.match(body.error.message, message);
    }
    assert.equal(await gw.store.jobs.countDocuments(), before, 'nothing queued');
    assert.deepEqual(await jobDirs(), dirsBefore, 'no job directory left by a failed check');
    // The wide layout (one column per symbol, empty cells for missing days) is accepted.
    const wide = await submit(client, 'stock-timeseries', 'wide.csv', 'date,A,B,C\n2020-01-01,1,2,3\n2020-01-02,1.1,,3.3\n2020-01-03,1.2,2.2,3.1\n', { windowDays: 3 });
    assert.equal(wide.status, 202, await wide.clone().text());
    await client.json('POST', `/jobs/${(await wide.json()).id}/cancel`);
  });
});
