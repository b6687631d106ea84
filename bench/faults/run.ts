// Fault suite (issue 13): the platform as scripts/up.sh runs it (every service under its
// supervisord, in a private DATA_DIR on free ports), several jobs in flight, and one
// process killed with SIGKILL mid-job per round: the API, the worker, the hpc-bridge,
// FerretDB, RabbitMQ; with FAULTS_BACKEND=slurm also slurmctld and slurmd of a
// single-node cluster (scripts/slurm.sh), which the suite restarts itself 2 s later as
// an operator or systemd would. A first round without a fault is the peer.
// Per round: jobs submitted / succeeded / lost / duplicated, plots half-written, the
// time until the killed process serves again, the round's time against the peer's, and
// which other processes the supervisor had to restart.
// Run:  node --import tsx bench/faults/run.ts [results.md]   (FAULTS_BACKEND=slurm needs root)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { FAKE_KERNELS, ROOT, signedIn, sleep, submit } from '../../server/test/jobs/gateway.ts';
import { PROGRAMS, SupervisedPlatform, alive, type Program } from '../../server/test/jobs/supervision.ts';
import type { Client } from '../../server/test/harness.ts';

const backend = process.env.FAULTS_BACKEND === 'slurm' ? 'slurm' : 'local';
const SEQUENCE_JOBS = 4;
const VECTOR_JOBS = 2; // their distances stage runs in the worker: a worker kill can hit it
const KERNEL_SECONDS = 4;
const ROUND_TIMEOUT_MS = 3 * 60_000;
const SLURM_RESTART_DELAY_MS = 2000;
const out = process.argv[2] ?? path.join(ROOT, 'bench/results/faults.md');

type Fault = 'none' | Program | 'slurmctld' | 'slurmd';
// FAULTS=slurmctld,slurmctld repeats chosen rounds (after the peer round); the default is every one once.
const faults: Fault[] = ['none', ...((process.env.FAULTS?.split(',') as Fault[] | undefined) ??
  [...PROGRAMS, ...(backend === 'slurm' ? (['slurmctld', 'slurmd'] as const) : [])])];

const FASTA = Array.from({ length: 6 }, (_, i) => `>s${i}\n${'ACGT'.repeat(5 + i)}TTGA\n`).join('');
const VECTORS = Array.from({ length: 1500 }, (_, i) => Array.from({ length: 60 }, (_, k) => Math.sin(i * 0.7 + k).toFixed(4)).join(',')).join('\n');

interface Round {
  fault: Fault;
  submitted: number;
  succeeded: number;
  failed: string[];
  unfinished: number;
  duplicated: number;
  halfWritten: number;
  /** Stages run more than once (a redelivery, a lost Slurm job resubmitted): the faults' cost that the counts hide. */
  retriedStages: number;
  recoveryMs: number | null;
  roundMs: number;
  restarted: string[];
  /** What went wrong beyond the counts: a process that did not come back, an operator's step. */
  notes: string[];
}

/** GET that rides out the API's own restart and the store's: null while it cannot answer. */
async function tryJson(client: Client, url: string): Promise<any> {
  try {
    const response = await client.request('GET', url);
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

const terminal = (job: any) => job && ['succeeded', 'failed', 'cancelled'].includes(job.state);
const moves = (job: any, stage: string | null, to: string) => job.history.filter((h: any) => h.stage === stage && h.to === to).length;

// A single-node Slurm cluster for the slurm backend; its daemons' pid files name what to kill.
const slurmDir = backend === 'slurm' ? await mkdtemp('/tmp/wpv-faults-slurm.') : '';
const slurm = (command: string) => execFileSync('bash', [path.join(ROOT, 'scripts/slurm.sh'), command, slurmDir], { stdio: 'ignore' });
const slurmEnv: Record<string, string> = {};
if (backend === 'slurm') {
  slurm('start');
  slurmEnv.SLURM_CONF = path.join(slurmDir, 'slurm.conf');
  slurmEnv.HPC_BACKEND = 'slurm';
}
const scontrol = (...args: string[]) => execFileSync('scontrol', args, { env: { ...process.env, ...slurmEnv }, encoding: 'utf8' });

/** Why the cluster's node is drained (it then runs nothing until resumed), or null. */
function drainedReason(): string | null {
  if (backend !== 'slurm') return null;
  const node = scontrol('show', 'node');
  return /State=\S*DRAIN/.test(node) ? (/Reason=(.*?)(?: \[|$)/m.exec(node)?.[1] ?? 'unknown') : null;
}
function resumeNode(): void {
  const name = /NodeName=(\S+)/.exec(scontrol('show', 'node'))![1]!;
  scontrol('update', `NodeName=${name}`, 'State=RESUME');
}

const platform = await SupervisedPlatform.up({
  KERNELS_BIN: FAKE_KERNELS,
  FAKE_KERNEL_SECONDS: String(KERNEL_SECONDS),
  HPC_POLL_MS: '200',
  ...slurmEnv,
}, os.tmpdir());
const store = new MongoClient(platform.mongodbUri, { serverSelectionTimeoutMS: 60_000 });

/** Kills the fault's process mid-job; the ms until it serves again (Slurm: until the cluster answers). */
async function inject(fault: Fault): Promise<number | null> {
  if (fault === 'none') return null;
  if (fault === 'slurmctld' || fault === 'slurmd') {
    // slurmd's pid file is named after its node (the host here: a single-node cluster).
    const pidFile = fault === 'slurmd' ? `slurmd-${os.hostname().split('.')[0]}.pid` : 'slurmctld.pid';
    const pid = Number(readFileSync(path.join(slurmDir, pidFile), 'utf8'));
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(50);
    await sleep(SLURM_RESTART_DELAY_MS);
    slurm('start'); // starts what is not running; waits for the node to be idle or allocated
    return Date.now() - killedAt;
  }
  return platform.crash(fault);
}

async function round(fault: Fault): Promise<Round> {
  const user = `faults${fault.replace(/\W/g, '')}${Date.now() % 100000}`;
  const client = await signedIn(platform.url, user);
  const pidsBefore = await Promise.all(PROGRAMS.map((p) => platform.pidOf(p)));
  const startedAt = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < SEQUENCE_JOBS + VECTOR_JOBS; i++) {
    const response = i < SEQUENCE_JOBS
      ? await submit(client, 'sequence-clustering', `s${i}.fasta`, FASTA)
      : await submit(client, 'vectors', `v${i}.csv`, VECTORS, { header: false });
    if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
    ids.push((await response.json()).id);
  }
  // Mid-job: the kill lands once a program runs (and the other jobs are queued or running).
  for (let running = false; !running; await sleep(100)) {
    const jobs = await Promise.all(ids.map((id) => tryJson(client, `/jobs/${id}`)));
    running = jobs.some((j) => j?.stages.some((s: any) => s.state === 'running'));
  }
  const notes: string[] = [];
  const recoveryMs = await inject(fault).catch((err: Error) => {
    notes.push(`did not come back: ${err.message.split('\n')[0]}`);
    return null;
  });
  const jobs = new Map<string, any>();
  let drainedSince = 0;
  for (const deadline = Date.now() + ROUND_TIMEOUT_MS; jobs.size < ids.length && Date.now() < deadline; await sleep(500)) {
    for (const id of ids.filter((i) => !jobs.has(i))) {
      const job = await tryJson(client, `/jobs/${id}`);
      if (terminal(job)) jobs.set(id, job);
    }
    // A drained node stays drained: after 30 s the suite does the operator's part.
    const drained = drainedReason();
    if (!drained) drainedSince = 0;
    else if (!drainedSince) drainedSince = Date.now();
    else if (Date.now() - drainedSince > 30_000) {
      notes.push(`drained the Slurm node ("${drained}"); jobs waited until the suite resumed it 30 s later, as an operator must`);
      resumeNode();
      drainedSince = 0;
    }
  }
  const roundMs = Date.now() - startedAt;
  const done = [...jobs.values()];
  const succeeded = done.filter((j) => j.state === 'succeeded');
  // Every plot the store holds for the user, including any the API would hide (not ready).
  const plots = await store.db().collection('plots').find({ owner: user }, { projection: { state: 1 } }).toArray();
  const linked = new Set(succeeded.map((j) => j.plotId));
  const extraPlots = plots.filter((p) => p.state === 'ready' && !linked.has(p._id)).length;
  const repeatedRuns = done.filter((j) => moves(j, null, 'succeeded') > 1 || j.stages.some((s: any) => moves(j, s.name, 'succeeded') > 1)).length;
  const pidsAfter = await Promise.all(PROGRAMS.map((p) => platform.pidOf(p)));
  return {
    fault,
    submitted: ids.length,
    succeeded: succeeded.length,
    failed: done.filter((j) => j.state !== 'succeeded').map((j) => `${j.state}: ${j.error ?? ''}`.slice(0, 160)),
    unfinished: ids.length - done.length,
    duplicated: extraPlots + repeatedRuns,
    halfWritten: plots.filter((p) => p.state !== 'ready').length,
    retriedStages: done.reduce((n, j) => n + j.stages.filter((s: any) => s.attempts > 1).length, 0),
    recoveryMs,
    roundMs,
    restarted: PROGRAMS.filter((p, i) => p !== fault && pidsAfter[i] !== pidsBefore[i]),
    notes,
  };
}

const rounds: Round[] = [];
try {
  for (const fault of faults) {
    const r = await round(fault);
    rounds.push(r);
    console.log(JSON.stringify(r));
  }
} finally {
  await store.close();
  await platform.down();
  if (backend === 'slurm') {
    slurm('stop');
    await rm(slurmDir, { recursive: true, force: true });
  }
}

const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
const flags = ['avx2', 'avx512f'].filter((f) => new RegExp(`\\b${f}\\b`).test(readFileSync('/proc/cpuinfo', 'utf8')));
const peer = rounds.find((r) => r.fault === 'none')!;
let commit = 'a tree outside git';
try {
  commit = `commit ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`;
} catch {} // not a checkout: said so in the results
const lines = [
  `## Faults, ${backend} backend`,
  '',
  `${cpu} (${os.cpus().length} cores, ${flags.join(' ') || 'no AVX2'}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${commit}.`,
  `Each round: ${SEQUENCE_JOBS} sequence-clustering + ${VECTOR_JOBS} vectors jobs submitted at once (fixture programs of ${KERNEL_SECONDS} s each,`,
  `real mpirun${backend === 'slurm' ? ' under sbatch' : ''}, real FerretDB and RabbitMQ), one process killed with SIGKILL once a program runs;`,
  'the supervisor (supervisord, scripts/up.sh) restarts it' + (backend === 'slurm' ? '; the Slurm daemons are restarted by the suite 2 s after the kill' : '') + '.',
  '"back in": kill to serving again; "round": submission to the last job ending, against the no-fault round of the same run.',
  '',
  '| killed | jobs | succeeded | lost | duplicated | half-written plots | stages redone | back in | round (× no fault) | also restarted |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ...rounds.map((r) =>
    `| ${r.fault === 'none' ? '(nothing)' : r.fault} | ${r.submitted} | ${r.succeeded} | ${r.submitted - r.succeeded} | ${r.duplicated} | ${r.halfWritten} | ${r.retriedStages} | ` +
    `${r.recoveryMs === null ? '–' : `${(r.recoveryMs / 1000).toFixed(1)} s`} | ${(r.roundMs / 1000).toFixed(1)} s (${(r.roundMs / peer.roundMs).toFixed(2)}×) | ${r.restarted.join(', ') || '–'} |`),
  '',
  ...rounds.flatMap((r) => [
    ...r.notes.map((n) => `- ${r.fault}: ${n}`),
    ...r.failed.map((f) => `- ${r.fault}: a job ${f}`),
    ...(r.unfinished ? [`- ${r.fault}: ${r.unfinished} jobs unfinished after ${ROUND_TIMEOUT_MS / 60000} min`] : []),
  ]),
];
await mkdir(path.dirname(out), { recursive: true });
const previous = existsSync(out) ? readFileSync(out, 'utf8') : '';
// One file for both backends: this run replaces its own backend's section, and keeps the others.
const sections = previous.split(/^(?=## )/m).filter((s) => s.trim() && !s.startsWith(`## Faults, ${backend} `) && !s.startsWith('# '));
await writeFile(out, ['# Fault suite', '', ...[...sections.map((s) => s.trimEnd() + '\n'), lines.join('\n') + '\n'].sort()].join('\n'));
console.log(lines.join('\n'));
