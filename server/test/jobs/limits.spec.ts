// The gateway's abuse limits (issue 13): the per-user active-job limit under 30
// parallel submissions and with retries, the global queue cap, per-job input limits,
// ranks × threads against the backend's CPUs, logs of stages only, and the per-stage
// wall-time limit that stops a program, ranks included, and fails its job with the reason.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sessionMembers } from '../../../hpc-bridge/src/backends/local.ts';
import type { Client } from '../harness.ts';
import { Gateway, isTerminal, signedIn, submit, waitForJob } from './gateway.ts';

const FASTA = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
const fasta = (lengths: number[]) => lengths.map((n, i) => `>s${i}\n${'ACGT'.repeat(n).slice(0, n)}\n`).join('');

describe('job limits', () => {
  let gw: Gateway;
  /** A user and one of its jobs, from the first test. */
  let first: [Client, string] | null = null;
  before(async () => {
    // No bridge: accepted jobs stay queued, holding their slots.
    gw = await Gateway.start({
      bridge: false,
      apiEnv: {
        JOB_MAX_ACTIVE: '3',
        JOB_MAX_QUEUED: '5',
        JOB_MAX_POINTS: '4',
        JOB_MAX_SEQUENCE_LENGTH: '50',
        JOB_MAX_RESIDUES: '100',
        JOB_MAX_VECTOR_ROWS: '3',
        HPC_MAX_CPUS: '2',
      },
    });
  });
  after(async () => gw?.close());

  test('30 parallel submissions of one user give exactly the 3 active jobs allowed; a retry counts too', async () => {
    const client = await signedIn(gw.url);
    const answers = await Promise.all(Array.from({ length: 30 }, () => submit(client, 'sequence-clustering', 'x.fasta', FASTA)));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(3).fill(202), ...Array(27).fill(429)]);
    const refused = await answers.find((r) => r.status === 429)!.json();
    assert.match(refused.error.message, /limit \(JOB_MAX_ACTIVE\)/);
    const ids = (await Promise.all(answers.filter((r) => r.status === 202).map((r) => r.json()))).map((b) => b.id);
    first = [client, ids[1]];
    const list = await client.json('GET', '/jobs');
    assert.equal(list.items.length, 3, 'refused submissions left no job behind');

    // A cancelled job frees its slot; retrying it takes the slot again, and a second retry is over the limit.
    await client.json('POST', `/jobs/${ids[0]}/cancel`);
    const retried = await client.request('POST', `/jobs/${ids[0]}/retry`);
    assert.equal(retried.status, 202);
    assert.equal((await client.request('POST', `/jobs/${ids[0]}/retry`)).status, 429, 'a retry is refused at the limit');
    assert.equal((await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).status, 429);
  });

  test('the global queue cap refuses submissions of anyone once that many jobs wait', async () => {
    // The first test left 3 active jobs; the cap is 5.
    const client = await signedIn(gw.url);
    for (let i = 0; i < 2; i++) assert.equal((await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).status, 202);
    const full = await submit(client, 'sequence-clustering', 'x.fasta', FASTA);
    assert.equal(full.status, 503);
    assert.match((await full.json()).error.message, /queue is full .*JOB_MAX_QUEUED/);
  });

  /** A long-layout market CSV of `symbols` stocks over 3 days. */
  const stocks = (symbols: number) =>
    ['date,symbol,price', ...Array.from({ length: symbols * 3 }, (_, i) => `2024-01-0${1 + (i % 3)},S${Math.floor(i / 3)},${10 + i}`)].join('\n') + '\n';

  test('input limits and ranks × threads answer 413/422 naming the limit, before anything is queued', async () => {
    const client = await signedIn(gw.url);
    const before = await gw.store.jobs.countDocuments();
    const cases: [string, string, string | Uint8Array<ArrayBuffer>, object, number, RegExp][] = [
      ['sequence-clustering', 'x.fasta', fasta([5, 5, 5, 5, 5]), {}, 413, /line 9: more than 4 sequences.*JOB_MAX_POINTS/],
      ['sequence-clustering', 'x.fasta', fasta([10, 60]), {}, 413, /line 4: sequence longer than 50 residues.*JOB_MAX_SEQUENCE_LENGTH/],
      ['sequence-clustering', 'x.fasta', fasta([40, 40, 40]), {}, 413, /line 6: more than 100 residues in all.*JOB_MAX_RESIDUES/],
      ['distance-matrix', 'd.bin', new Uint8Array(2 * 25), { points: 5 }, 413, /points: 5; .*at most 4 \(JOB_MAX_POINTS\)/],
      ['vectors', 'v.csv', 'a,b\n1,2\n3,4\n5,6\n7,8\n', {}, 413, /line 5: more than 3 vectors.*JOB_MAX_VECTOR_ROWS/],
      // A message about the file starts with `file: `, so the browser adds no "(field file)".
      ['stock-timeseries', 'm.csv', stocks(5), { windowDays: 3, stepDays: 1 }, 413, /^file: 5 symbols; a job has at most 4 \(JOB_MAX_POINTS\)$/],
      ['sequence-clustering', 'x.fasta', FASTA, { ranks: 64, threads: 64 }, 422, /ranks × threads = 4096; .*at most 2 CPUs \(HPC_MAX_CPUS\)/],
    ];
    for (const [type, name, content, params, status, message] of cases) {
      const res = await submit(client, type, name, content, params);
      const body = await res.json();
      assert.equal(res.status, status, `${type} ${JSON.stringify(params)}: ${JSON.stringify(body)}`);
      assert.match(body.error.message, message);
    }
    assert.equal(await gw.store.jobs.countDocuments(), before, 'nothing queued');
  });

  test('logs are read for the job\'s own stages only', async () => {
    const [owner, jobId] = first!;
    for (const stage of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await owner.request('GET', `/jobs/${jobId}/logs?stage=${stage}`);
      assert.equal(res.status, 400, stage);
      assert.match((await res.json()).error.message, /stage must be one of swg, mds, pwc, assemble/);
    }
    assert.equal((await owner.request('GET', `/jobs/${jobId}/logs?stage=swg`)).status, 200);
  });
});

describe('the per-stage wall-time limit', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({ env: { JOB_STAGE_TIME_LIMIT: '2', FAKE_KERNEL_SECONDS: '60' }, apiEnv: { JOB_MAX_QUEUED: '1000' } });
  });
  after(async () => gw?.close());

  test('a program over its limit is stopped and its job fails with the reason, no server path in it', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    const running = await waitForJob(client, id, (j) => j.stages[0].backendJobId !== null);
    const started = Date.now();
    const job = await waitForJob(client, id, isTerminal, 30_000);
    assert.ok(Date.now() - started < 20_000, 'stopped near the limit, not after the program\'s 60 s');
    assert.equal(job.state, 'failed');
    assert.match(job.stages[0].error, /stopped at the wall-time limit of 2 s \(JOB_STAGE_TIME_LIMIT\)/);
    assert.match(job.error, /wall-time limit of 2 s.*stage swg failed/);
    assert.doesNotMatch(job.error, new RegExp(gw.env.DATA_DIR!), 'no server path');
    const pid = running.stages[0].backendJobId;
    assert.ok(!existsSync(`/proc/${pid}`) || !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('run-stage'), 'the program is gone');
  });
});

describe('the wall-time limit with ranks that ignore SIGTERM', () => {
  let gw: Gateway;
  before(async () => {
    // A grace of 1 s: timeout's SIGKILL reaches mpirun before mpirun has killed its ranks.
    gw = await Gateway.start({
      env: { JOB_STAGE_TIME_LIMIT: '2', FAKE_KERNEL_SECONDS: '60', FAKE_KERNEL_IGNORE_TERM: '1', WPV_KILL_GRACE: '1' },
      apiEnv: { JOB_MAX_QUEUED: '1000' },
    });
  });
  after(async () => gw?.close());

  test('no rank outlives its killed launcher: the stage\'s session is empty once the job has failed', async () => {
    const client = await signedIn(gw.url);
    const { id } = await (await submit(client, 'sequence-clustering', 'x.fasta', FASTA)).json();
    const running = await waitForJob(client, id, (j) => j.stages[0].backendJobId !== null);
    const job = await waitForJob(client, id, isTerminal, 30_000);
    assert.equal(job.state, 'failed');
    assert.match(job.stages[0].error, /stopped at the wall-time limit of 2 s/);
    const left = (await sessionMembers(Number(running.stages[0].backendJobId))).filter((p) => p.state !== 'Z');
    assert.deepEqual(left, [], 'every process of the stage has ended');
  });
});

describe('the default MPI layout', () => {
  let gw: Gateway;
  before(async () => {
    gw = await Gateway.start({
      bridge: false,
      apiEnv: { HPC_LOCAL_SLOTS: '4', HPC_MAX_CPUS: '4', JOB_MAX_QUEUED: '1000', JOB_MAX_POINTS: '5000', JOB_MAX_RESIDUES: '100000' },
    });
  });
  after(async () => gw?.close());

  test('a job that names no threads gets the local slots split among its ranks, at most one per 1,000 points; one that names them keeps them', async () => {
    const cases: [number, object, number][] = [
      [4000, {}, 4], [4000, { ranks: 2 }, 2], [4000, { ranks: 3 }, 1], [4000, { threads: 1 }, 1], [4000, { ranks: 2, threads: 2 }, 2],
      [2500, {}, 2], [999, {}, 1], [999, { threads: 3 }, 3],
    ];
    for (const [points, params, threads] of cases) {
      const client = await signedIn(gw.url);
      const res = await submit(client, 'sequence-clustering', 'x.fasta', fasta(Array(points).fill(10)), params);
      assert.equal(res.status, 202, JSON.stringify(await res.clone().json()));
      const job = await client.json('GET', `/jobs/${(await res.json()).id}`);
      assert.equal(job.params.threads, threads, `${points} points, ${JSON.stringify(params)}`);
    }
  });
});
