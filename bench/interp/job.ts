// A sequence-clustering job on a large FASTA end to end through the gateway (issue 18 part 1's
// scale targets: 100,000 reads in ≤ 30 minutes), on the real FerretDB, RabbitMQ, local mpirun
// backend and workers: per stage the time queued → ended, the program's run and CPU seconds and
// the peak memory of its largest process (run-stage.sh), the workers' and the API's peak RSS,
// and the job's points and clusters copied to OUTDIR for bench/interp/scale.py to score.
// Run (a stack's MONGODB_URI and AMQP_URL set, or through bench/with-stack.sh):
//   node --import tsx bench/interp/job.ts FASTA OUTDIR [RANKS] [PARAMS_JSON]
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { Gateway, REAL_KERNELS, isTerminal, signedIn, submit, waitForJob } from '../../server/test/jobs/gateway.ts';

const [fasta, outDir, ranksArg, paramsArg] = process.argv.slice(2);
if (!fasta || !outDir) throw new Error('usage: job.ts FASTA OUTDIR [RANKS] [PARAMS_JSON]');
const params = { ranks: Number(ranksArg ?? 2), ...JSON.parse(paramsArg ?? '{}') };

/** Peak resident memory (VmHWM, KiB) of a live process. */
async function peakKb(pid: number | undefined): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) : null;
}

const seconds = (from: string | null, to: string | null) => (from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : null);

const content = new Uint8Array(await readFile(fasta));
const reads = content.reduce((count, byte) => count + (byte === 62 ? 1 : 0), 0); // '>'
const gw = await Gateway.start({
  kernels: process.env.KERNELS_BIN || REAL_KERNELS,
  apiEnv: { JOB_MAX_POINTS: String(Math.max(reads, 100_000)) },
});
try {
  const client = await signedIn(gw.url);
  const load = [loadavg()[0]!];
  const started = performance.now();
  const res = await submit(client, 'sequence-clustering', path.basename(fasta), content, params);
  const body = await res.json();
  if (res.status !== 202) throw new Error(`submission: ${res.status} ${JSON.stringify(body)}`);
  const accepted = (performance.now() - started) / 1000;
  const job = await waitForJob(client, body.id, isTerminal, 3 * 3600_000);
  const total = (performance.now() - started) / 1000;
  load.push(loadavg()[0]!);
  if (job.state !== 'succeeded') throw new Error(`job ${job.state}: ${job.error}`);
  const { workdir } = (await gw.store.jobs.findOne({ _id: body.id }))!;
  await mkdir(outDir, { recursive: true });
  for (const file of ['points.txt', 'clusters.txt']) await copyFile(path.join(workdir, file), path.join(outDir, file));
  const result = {
    reads,
    params,
    cpu: `${cpus()[0]!.model} × ${cpus().length}`,
    load,
    acceptedSeconds: accepted,
    totalSeconds: total,
    stages: job.stages.map((s: any) => ({
      name: s.name,
      runner: s.runner,
      seconds: seconds(s.startedAt, s.endedAt),
      runSeconds: s.metrics?.runSeconds ?? null,
      cpuSeconds: s.metrics?.cpuSeconds ?? null,
      peakMemoryKb: s.metrics?.peakMemoryKb ?? null,
      ranks: s.metrics?.ranks ?? null,
    })),
    peakKb: {
      api: process.resourceUsage().maxRSS,
      workers: await Promise.all(gw.workers.map((w) => peakKb(w.pid))),
      bridge: await peakKb(gw.bridge?.pid),
    },
  };
  await writeFile(path.join(outDir, 'job.json'), JSON.stringify(result, null, 1));
  console.log(JSON.stringify(result, null, 1));
} finally {
  await gw.close();
}
