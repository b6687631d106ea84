// Job gateway benchmarks (issue 4), on real FerretDB, RabbitMQ and mpirun:
//   1. overhead: a small sequence-clustering job end to end through the API versus
//      the same programs run by hand (swg, then damds ∥ dapwc) on the same input;
//   2. burst: 200 small jobs submitted at once by 10 users → all succeed, none lost
//      or duplicated; throughput, queue wait, CPU per job of each process
//      (BURST_JOBS_PER_USER=2,20 runs a 20-job burst first: the store's CPU per job of both);
//   3. layout: jobs of 500 to 4,640 reads end to end with every local slot as a thread
//      against 1 rank × 1 thread, alternating (where the default's POINTS_PER_THREAD comes from);
//   4. eta: how far the job page's "time left" is from the truth, with the API's stage shares
//      (from the jobs before) against equal shares, computed by the page's own functions.
// Run:  bash bench/with-stack.sh node --import tsx bench/gateway/run.ts [results.md]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  FAKE_KERNELS,
  Gateway,
  REAL_KERNELS,
  fastaSubset,
  isTerminal,
  signedIn,
  sleep,
  submit,
  waitForJob,
} from '../../server/test/jobs/gateway.ts';
import { READS } from '../../server/test/jobs/sequence-plot.ts';
import type { Client } from '../../server/test/harness.ts';
import { JOB_ETA_FROM, countdown, jobEtaSeconds, jobOverview } from '../../client/src/jobs/jobProgress.ts';

const OVERHEAD_RUNS = 5;
const LAYOUT_ROUNDS = Number(process.env.LAYOUT_ROUNDS ?? 3);
const LAYOUT_SIZES = (process.env.LAYOUT_SIZES ?? '500,1000,2000,4640').split(',').map(Number);
const ETA_SIZES = (process.env.ETA_SIZES ?? '1000,2000,4000,4640').split(',').map(Number);
const ETA_RUNS = Number(process.env.ETA_RUNS ?? 3);
const OVERHEAD_READS = 40;
const BURST_USERS = 10;
/** Jobs per user of each burst, e.g. "2,20": a small and a large burst, to see whether a job's cost grows with the jobs stored. */
const BURST_SIZES = (process.env.BURST_JOBS_PER_USER ?? '20').split(',').map(Number);
const POLL_MS = 1000;
const BURST_POLL_MS = 500;
const WATCH_MS = 5000;

const kernels = process.env.KERNELS_BIN || REAL_KERNELS;
const realKernels = ['swg', 'damds', 'dapwc'].every((p) => existsSync(path.join(kernels, p)));
/** "swg real, damds real, dapwc fake": a compiled program or a fixture script. */
const kernelKinds = ['swg', 'damds', 'dapwc']
  .map((p) => `${p} ${realKernels && readFileSync(realpathSync(path.join(kernels, p))).subarray(0, 4).toString('latin1') === '\x7fELF' ? 'real' : 'fake'}`)
  .join(', ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const seconds = (job: any, field: string) => Date.parse(job[field]) / 1000;
const stage = (job: any, name: string) => job.stages.find((s: any) => s.name === name);

const TICKS_PER_SECOND = 100; // USER_HZ of /proc/<pid>/stat on Linux

/** CPU seconds (user + system) so far of the processes whose id or process group is in `ids`. */
function cpuSeconds(ids: number[]): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state ppid pgrp … utime(12th) stime(13th)
    if (ids.includes(Number(entry)) || ids.includes(Number(fields[2]))) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}

/** The pipeline run by hand: what a user without the gateway would type. */
async function byHand(fasta: string, dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  const bin = (p: string) => path.join(realKernels ? kernels : FAKE_KERNELS, p);
  const input = path.join(dir, 'in.fasta');
  await writeFile(input, fasta);
  const mpi = ['--allow-run-as-root', '--oversubscribe', '--bind-to', 'none', '-np', '1'];
  const run = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('mpirun', [...mpi, ...args], { stdio: 'ignore', env: { ...process.env, FAKE_KERNEL_SECONDS: '0' } });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} exited ${code}`))));
    });
  const n = String(fasta.split('>').length - 1);
  const start = performance.now();
  await run([bin('swg'), '--input', input, '--output', `${dir}/dist.bin`, '--alphabet', 'dna']);
  await Promise.all([
    run([bin('damds'), '--distances', `${dir}/dist.bin`, '--points', n, '--output', `${dir}/points.txt`, '--dim', '3']),
    run([bin('dapwc'), '--distances', `${dir}/dist.bin`, '--points', n, '--output', `${dir}/clusters.txt`, '--max-clusters', '4']),
  ]);
  return (performance.now() - start) / 1000;
}

async function overhead(): Promise<string[]> {
  const gw = await Gateway.start({ kernels: realKernels ? kernels : FAKE_KERNELS, env: { HPC_POLL_MS: String(POLL_MS), FAKE_KERNEL_SECONDS: '0' } });
  try {
    const client = await signedIn(gw.url);
    const { text } = await fastaSubset(READS, OVERHEAD_READS);
    const rows: { e2e: number; programs: number; hand: number }[] = [];
    for (let i = 0; i < OVERHEAD_RUNS; i++) {
      const hand = await byHand(text, path.join(gw.env.DATA_DIR!, `hand-${i}`));
      const t0 = performance.now();
      const { id } = await (await submit(client, 'sequence-clustering', 'small.fasta', text, { maxClusters: 4 })).json();
      const job = await waitForJob(client, id, isTerminal, 120_000);
      const e2e = (performance.now() - t0) / 1000;
      if (job.state !== 'succeeded') throw new Error(`overhead job failed: ${job.error}`);
      const run = (name: string) => stage(job, name).metrics.runSeconds as number;
      rows.push({ e2e, programs: run('swg') + Math.max(run('mds'), run('pwc')), hand });
    }
    const e2e = median(rows.map((r) => r.e2e));
    const programs = median(rows.map((r) => r.programs));
    const hand = median(rows.map((r) => r.hand));
    const over = median(rows.map((r) => r.e2e - r.programs));
    return [
      `## Gateway overhead (local backend, poll interval ${POLL_MS} ms)`,
      '',
      `${OVERHEAD_READS} reads of 16s-4640.fasta; programs: ${kernelKinds} ("fake" = the test fixture script); 1 rank each; median of ${OVERHEAD_RUNS} runs.`,
      '',
      '| measure | seconds |',
      '| --- | ---: |',
      `| end to end through the API (submit → succeeded seen by the client) | ${e2e.toFixed(2)} |`,
      `| programs' own run time on the critical path (swg + max(damds, dapwc), under mpirun, from exit records) | ${programs.toFixed(2)} |`,
      `| **gateway overhead** (end to end − programs) | **${over.toFixed(2)}** |`,
      `| peer: the same three programs run by hand (mpirun, damds ∥ dapwc) | ${hand.toFixed(2)} |`,
      `| ratio gateway / by hand | ${(e2e / hand).toFixed(2)}× |`,
      '',
      `Target: overhead ≤ 1 s + one poll interval (${(1 + POLL_MS / 1000).toFixed(1)} s): ${over <= 1 + POLL_MS / 1000 ? 'met' : 'NOT met'}.`,
      'The overhead holds the stage hand-offs (RabbitMQ messages, event-log writes, mpirun-wrapper start, the exit seen on the wrapper\'s exit), plot assembly and ingest.',
      '',
    ];
  } finally {
    await gw.close();
  }
}

/**
 * Waits for every user's jobs through the API, reading one user's job list every
 * WATCH_MS (round robin) so that the watching does not load the store more than the jobs do;
 * the figures come from the jobs' own timestamps, not from when they were seen.
 */
async function allDone(clients: Client[], count: number): Promise<any[]> {
  const done = new Map<Client, any[]>();
  const deadline = Date.now() + 1_200_000;
  for (let i = 0; done.size < clients.length; i++) {
    if (Date.now() > deadline) throw new Error('the burst did not finish in 20 minutes');
    const client = clients.filter((c) => !done.has(c))[0]!;
    const { items } = await client.json('GET', '/jobs');
    if (items.length === count && items.every(isTerminal)) done.set(client, items);
    else await sleep(WATCH_MS);
  }
  return [...done.values()].flat();
}

async function burst(): Promise<string[]> {
  const lines: string[] = [];
  const storeCpu: number[] = [];
  for (const perUser of BURST_SIZES) {
    const one = await burstOf(perUser);
    lines.push(...one.lines);
    storeCpu.push(one.storeCpuPerJob);
  }
  if (BURST_SIZES.length > 1) {
    const [small, large] = [0, BURST_SIZES.length - 1];
    lines.push(
      `Store CPU per job, ${BURST_USERS * BURST_SIZES[large]!} jobs against ${BURST_USERS * BURST_SIZES[small]!} (same run): ` +
        `${(storeCpu[large]! * 1000).toFixed(0)} / ${(storeCpu[small]! * 1000).toFixed(0)} ms = ${(storeCpu[large]! / storeCpu[small]!).toFixed(2)}× ` +
        '(1× when a job costs the store the same however many jobs it holds).',
      '',
    );
  }
  return lines;
}

async function burstOf(perUser: number): Promise<{ lines: string[]; storeCpuPerJob: number }> {
  const total = BURST_USERS * perUser;
  const gw = await Gateway.start({
    kernels: FAKE_KERNELS,
    workers: 2,
    env: { FAKE_KERNEL_SECONDS: '0', HPC_POLL_MS: String(BURST_POLL_MS) },
    apiEnv: { JOB_MAX_ACTIVE: String(perUser) },
  });
  try {
    const clients = await Promise.all(Array.from({ length: BURST_USERS }, (_, i) => signedIn(gw.url, `burst${i}`)));
    const fasta = '>a\nACGTACGTAC\n>b\nACGTTCGTAC\n>c\nTTGTACGTAA\n';
    // Where the CPU goes: the store and the broker (their process groups, from scripts/stack.sh), the API (this process), the services.
    const stack = path.join(process.env.WPV_TEST_DIR!, 'stack');
    const groupOf = (name: string) => Number(readFileSync(path.join(stack, `${name}.pid`), 'utf8'));
    const parts: [string, number[]][] = [
      ['FerretDB (store)', [groupOf('ferretdb')]],
      ['RabbitMQ', [groupOf('rabbitmq')]],
      ['workers (2)', gw.workers.map((w) => w.pid!)],
      ['hpc-bridge', [gw.bridge!.pid!]],
    ];
    const cpuBefore = parts.map(([, ids]) => cpuSeconds(ids));
    const apiBefore = process.cpuUsage();
    const t0 = performance.now();
    const submitted = await Promise.all(
      clients.map((client) =>
        Promise.all(
          Array.from({ length: perUser }, async () => {
            const res = await submit(client, 'sequence-clustering', 'tiny.fasta', fasta);
            if (res.status !== 202) throw new Error(`submit: ${res.status} ${await res.text()}`);
            return { client, id: (await res.json()).id as string };
          }),
        ),
      ),
    );
    const submitSeconds = (performance.now() - t0) / 1000;
    const jobs = await allDone(clients, perUser);
    const wall = (performance.now() - t0) / 1000;
    const api = process.cpuUsage(apiBefore);
    const cpu = [...parts.map(([name, ids], i) => [name, cpuSeconds(ids) - cpuBefore[i]!] as const), ['API server + this client', (api.user + api.system) / 1e6] as const];
    const succeeded = jobs.filter((j) => j.state === 'succeeded').length;
    const ids = new Set(jobs.map((j) => j.id));
    const plotIds = new Set(jobs.map((j) => j.plotId));
    const plots = await gw.store.plots.countDocuments({});
    const reruns = jobs.flatMap((j) => j.stages).filter((s: any) => s.attempts !== 1).length;
    const waits = jobs.map((j) => j.queueWaitSeconds as number);
    const slotWaits = jobs.flatMap((j) => j.stages).map((s: any) => s.metrics?.queueWaitSeconds).filter((v: any) => typeof v === 'number');
    const span = Math.max(...jobs.map((j) => seconds(j, 'endedAt'))) - Math.min(...jobs.map((j) => seconds(j, 'createdAt')));
    const lines = [
      `## Burst: ${total} jobs by ${BURST_USERS} users at once (local backend, ${os.availableParallelism()} program slots)`,
      '',
      `Tiny sequence-clustering jobs (3 reads; fake kernels with zero run time, so the figures are the gateway's own: three mpirun launches, messages, event log, plot ingest per job); 2 workers, 1 bridge, poll ${BURST_POLL_MS} ms; one user's job list read every ${WATCH_MS / 1000} s.`,
      '',
      '| measure | value |',
      '| --- | ---: |',
      `| jobs accepted (202) | ${jobs.length} / ${total} in ${submitSeconds.toFixed(2)} s |`,
      `| succeeded | ${succeeded} |`,
      `| distinct job ids / distinct plots linked / plots stored | ${ids.size} / ${plotIds.size} / ${plots} |`,
      `| stages run more than once | ${reruns} |`,
      `| wall time, first submit → last job done | ${wall.toFixed(1)} s |`,
      `| throughput | ${(total / span).toFixed(2)} jobs/s (${((total * 3) / span).toFixed(1)} MPI programs/s) |`,
      `| queue wait, submit → first stage started: median / p95 / max | ${median(waits).toFixed(2)} / ${percentile(waits, 0.95).toFixed(2)} / ${Math.max(...waits).toFixed(2)} s |`,
      `| MPI stage wait, dispatched → program started (RabbitMQ back-pressure + slot), median / p95 | ${median(slotWaits).toFixed(2)} / ${percentile(slotWaits, 0.95).toFixed(2)} s |`,
      `| CPU per job: ${cpu.map(([name]) => name).join(' / ')} | ${cpu.map(([, s]) => ((s * 1000) / total).toFixed(0)).join(' / ')} ms |`,
      '',
      succeeded === total && plots === total && plotIds.size === total && reruns === 0
        ? 'All succeeded, none lost, none duplicated.'
        : '**NOT all succeeded exactly once — see the figures above.**',
      '',
    ];
    return { lines, storeCpuPerJob: cpu[0]![1] / total };
  } finally {
    await gw.close();
  }
}

/** Reads of the 16S set end to end on every local slot as a thread against one thread, in alternating rounds, at each size. */
async function layout(): Promise<string[]> {
  const slots = os.availableParallelism();
  const gw = await Gateway.start({ kernels, env: { HPC_POLL_MS: String(POLL_MS) } });
  try {
    const client = await signedIn(gw.url);
    const layouts = [{ ranks: 1, threads: slots }, { ranks: 1, threads: 1 }];
    const lines = [
      `## Job layout: 1 × ${slots} against 1 × 1 end to end (local backend, ${slots} slots)`,
      '',
      `sequence-clustering of the first N reads of 16s-4640.fasta, default parameters otherwise (beyond 4,000 reads a 4,000-read sample and the rest interpolated). ${LAYOUT_ROUNDS} rounds, the two layouts alternating; seconds.`,
      '',
      '| reads | round | ranks × threads | end to end | programs\' run time |',
      '| ---: | ---: | --- | ---: | --- |',
    ];
    const summary: string[] = [];
    for (const size of LAYOUT_SIZES) {
      const { text, ids } = await fastaSubset(READS, size);
      const times = layouts.map(() => [] as number[]);
      for (let round = 1; round <= LAYOUT_ROUNDS; round++) {
        for (const i of round % 2 ? [0, 1] : [1, 0]) {
          const t0 = performance.now();
          const { id } = await (await submit(client, 'sequence-clustering', '16s.fasta', text, layouts[i])).json();
          const job = await waitForJob(client, id, isTerminal, 1_800_000);
          const e2e = (performance.now() - t0) / 1000;
          if (job.state !== 'succeeded') throw new Error(`layout job failed: ${job.error}`);
          times[i]!.push(e2e);
          const programs = job.stages.filter((s: any) => s.backendJobId !== null).map((s: any) => `${s.name} ${s.metrics.runSeconds.toFixed(1)}`);
          lines.push(`| ${ids.length} | ${round} | ${layouts[i]!.ranks} × ${layouts[i]!.threads} | ${e2e.toFixed(1)} | ${programs.join(', ')} |`);
        }
      }
      const [wide, narrow] = times.map(median);
      summary.push(`- ${ids.length} reads: median 1 × ${slots} ${wide!.toFixed(1)} s, 1 × 1 ${narrow!.toFixed(1)} s: **${(narrow! / wide!).toFixed(2)}×**`);
    }
    return [...lines, '', ...summary, ''];
  } finally {
    await gw.close();
  }
}

/**
 * Jobs of each size one after another on a fresh gateway (the first has no history), polled
 * every 250 ms as the job page is; at each poll, the page's time left against the time the job
 * then really had left, with the shares the API served and with equal ones.
 */
async function eta(): Promise<string[]> {
  const gw = await Gateway.start({ kernels });
  try {
    const client = await signedIn(gw.url);
    const lines = [
      '## Job page: time left against the truth',
      '',
      `sequence-clustering of the first N reads of 16s-4640.fasta, default parameters (4,640 reads: a 4,000-read sample, the rest interpolated: 7 stages), ${ETA_RUNS} jobs per size, the sizes in turn, one after another on a fresh gateway; the page's time left (client/src/jobs/jobProgress.ts, jobEtaSeconds) at each poll (250 ms), against the job's real end. "History + pace": as the page has it, the remembered jobs' seconds for the work left, blended with the job's own pace (from ${JOB_ETA_FROM * 100} % done) by the share done, reckoned as of the job's last change (updatedAt) and counted down since the page received it; "same, page's clock": the same figures reckoned at each poll from the last report's progress (the page before, which stood still or climbed between the bridge's 2 s progress writes); "pace, shares": the pace alone with the served shares; "pace, equal": the pace alone, every stage the same weight (the page before the shares). The history is that of the jobs before, of the same graph: none for the first 1,000- and 4,640-read jobs; the first 2,000-read jobs' comes from 1,000-read ones (one size: shares only, no seconds), the first 4,000-read jobs' from 1,000 and 2,000 (seconds from a start-up + rate line fitted per stage, jobs/src/timings.ts secondsToShow). Absolute error in seconds, median / largest over the polls where the page shows a time left.`,
      '',
      '| reads | job | seconds | shares served | history + pace | same, page\'s clock | pace, shares | pace, equal |',
      '| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |',
    ];
    for (const size of ETA_SIZES) {
      const { text, ids } = await fastaSubset(READS, size);
      for (let run = 1; run <= ETA_RUNS; run++) {
        await sleep(10_500); // the API reads a graph's history again after 10 s
        const { id } = await (await submit(client, 'sequence-clustering', '16s.fasta', text, {})).json();
        // receivedAt: when this revision first reached the bench, as the events stream brings it to the page.
        const polls: { at: number; receivedAt: number; job: any }[] = [];
        let job: any;
        for (;;) {
          job = await client.json('GET', `/jobs/${id}`);
          if (isTerminal(job)) break;
          const at = Date.now() / 1000;
          const last = polls.at(-1);
          if (job.startedAt) polls.push({ at, receivedAt: last?.job.revision === job.revision ? last.receivedAt : at, job });
          await sleep(250);
        }
        if (job.state !== 'succeeded') throw new Error(`eta job failed: ${job.error}`);
        const end = seconds(job, 'endedAt');
        // clock 'report': as the page has it, reckoned as of the job's last change and counted down since;
        // 'page': reckoned at each poll with the progress of the last report (the page before).
        const errors = (weights: 'history' | 'shares' | 'equal', clock: 'report' | 'page' = 'report') => polls.flatMap(({ at, receivedAt, job: seen }) => {
          const stages = seen.stages.map((s: any) => ({
            ...s,
            ...(weights !== 'history' && { expectedSeconds: null }),
            ...(weights === 'equal' && { share: 1 / seen.stages.length }),
          }));
          const overview = jobOverview(stages);
          const left = clock === 'report'
            ? countdown(jobEtaSeconds(overview, seconds(seen, 'updatedAt') - seconds(seen, 'startedAt')), at - receivedAt)
            : jobEtaSeconds(overview, at - seconds(seen, 'startedAt'));
          return left === null ? [] : [Math.abs(left - (end - at))];
        });
        const cell = (xs: number[]) => (xs.length ? `${median(xs).toFixed(1)} / ${Math.max(...xs).toFixed(1)}` : '–');
        const shares = job.stages.map((s: any) => `${s.name} ${(s.share * 100).toFixed(0)}`).join(', ');
        lines.push(`| ${ids.length} | ${run} | ${(end - seconds(job, 'startedAt')).toFixed(1)} | ${shares} | ${cell(errors('history'))} | ${cell(errors('history', 'page'))} | ${cell(errors('shares'))} | ${cell(errors('equal'))} |`);
        console.log(lines.at(-1));
      }
    }
    return [...lines, ''];
  } finally {
    await gw.close();
  }
}

const out = process.argv[2] ?? path.resolve(import.meta.dirname, '../results/gateway.md');
const sections = process.env.GATEWAY_BENCH ? process.env.GATEWAY_BENCH.split(',') : ['overhead', 'burst'];
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
const loadAtStart = load();
const lines = [
  '# Job gateway benchmarks',
  '',
  `Measured by \`bash bench/with-stack.sh node --import tsx bench/gateway/run.ts\` on ${new Date().toISOString().slice(0, 10)}, ${os.availableParallelism()} cores (${cpu}), FerretDB + RabbitMQ from scripts/stack.sh, OpenMPI ${execFileSync('mpirun', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.replace(/.*\) /, '')}.`,
  '',
];
for (const section of [overhead, burst, layout, eta].filter((f) => sections.includes(f.name))) {
  const part = await section();
  console.log(part.join('\n'));
  lines.push(...part);
}
lines.push('', `Load average (1, 5, 15 min) at the start: ${loadAtStart}; at the end: ${load()} (2 cores, shared with other work).`, '');
await writeFile(out, lines.join('\n'));
