// The stock-timeseries job end to end (issue 14 §4's target: 7,000 stocks × 2,750 trading
// days in ≤ 10 minutes on this machine): a generated market written as the long CSV an analyst
// uploads (date,symbol,price,volume,sector), submitted through the API to a gateway on the real
// FerretDB, RabbitMQ and mpirun, timed from the upload's start to the plot, with each stage's time
// and the peak memory of the API (this process, which streams the upload from disk), the worker and mdsseries.
// Run:  bash bench/with-stack.sh node --import tsx bench/mdsseries/job.ts [STOCKS] [DAYS] [RANKS] [THREADS]
import { createWriteStream, openAsBlob, readFileSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { stockMarketLines } from '../../server/src/cli/demo-data.ts';
import { Gateway, REAL_KERNELS, isTerminal, signedIn, waitForJob } from '../../server/test/jobs/gateway.ts';
import type { Client } from '../../server/test/harness.ts';

// One rank with two OpenMP threads: on 2 cores two ranks cost several times the CPU (bench/RESULTS.md, mdsseries).
const [stocks, days, ranks, threads] = [7000, 2750, 1, 2].map((fallback, i) => Number(process.argv[2 + i] ?? fallback));
const csv = path.join(process.env.WPV_TEST_DIR ?? '/tmp', `market-${stocks}x${days}.csv`);

async function writeMarket(): Promise<void> {
  const out = createWriteStream(csv);
  let batch: string[] = [];
  for (const line of stockMarketLines(stocks, days)) {
    batch.push(line);
    if (batch.length === 100_000) {
      if (!out.write(batch.join('\n') + '\n')) await new Promise((resolve) => out.once('drain', resolve));
      batch = [];
    }
  }
  out.end(batch.join('\n') + '\n');
  await new Promise((resolve) => out.once('finish', resolve));
}

const seconds = (from: string | null, to: string | null) => (from && to ? (Date.parse(to) - Date.parse(from)) / 1000 : NaN);
/**
 * Submits the job through node:http rather than fetch, which gives up after 300 s without
 * response headers: the check of a 7,000-stock market on a loaded machine can take longer.
 */
async function submitMarket(client: Client, params: object): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.set('type', 'stock-timeseries');
  form.set('params', JSON.stringify(params));
  form.set('file', await openAsBlob(csv), 'market.csv'); // read from disk as it is sent
  const encoded = new Response(form);
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': encoded.headers.get('content-type')!, cookie: client.cookie, 'x-csrf-token': client.csrf };
    const req = request(`${client.base}/api/v1/jobs`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (part) => (text += part)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    Readable.fromWeb(encoded.body! as any).pipe(req);
  });
}

/** Peak resident memory of a live process in MB (VmHWM). */
const peakMb = (pid: number | undefined) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

await writeMarket();
const bytes = (await stat(csv)).size;
const gw = await Gateway.start({
  kernels: process.env.KERNELS_BIN || REAL_KERNELS,
  apiEnv: { JOB_MAX_INPUT_BYTES: String(2 * 1024 ** 3) }, // an 860 MB market: above the default 256 MiB
});
try {
  const client = await signedIn(gw.url);
  const loadAtStart = loadavg()[0]!.toFixed(1);
  const started = performance.now();
  const { status, body } = await submitMarket(client, { ranks, threads });
  if (status !== 202) throw new Error(`submission: ${status} ${JSON.stringify(body)}`);
  const accepted = (performance.now() - started) / 1000;
  const job = await waitForJob(client, body.id, isTerminal, 3600_000);
  const total = (performance.now() - started) / 1000;
  if (job.state !== 'succeeded') throw new Error(`job ${job.state}: ${job.error}`);
  const plot = await client.json('GET', `/plots/${job.plotId}`);
  const series = job.stages.find((s: any) => s.name === 'series')?.metrics;
  const lines = [
    `### stock-timeseries job end to end: ${stocks.toLocaleString('en')} stocks × ${days.toLocaleString('en')} trading days`,
    '',
    `${new Date().toISOString().slice(0, 16)}Z, ${cpus()[0]!.model} × ${cpus().length}, load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end; ` +
      `\`bash bench/with-stack.sh node --import tsx bench/mdsseries/job.ts ${stocks} ${days} ${ranks} ${threads}\`. ` +
      `Long CSV of ${(bytes / 1e6).toFixed(0)} MB (${(stocks * days).toLocaleString('en')} rows), default params (one-year windows by 7 days, traded-value weights), ranks ${ranks} × threads ${threads}.`,
    '',
    '| step | seconds |',
    '| --- | ---: |',
    `| upload and input check (until 202) | ${accepted.toFixed(1)} |`,
    ...job.stages.map((s: any) => `| stage ${s.name} (queued → ended) | ${seconds(s.queuedAt ?? s.startedAt, s.endedAt).toFixed(1)} |`),
    `| **total, upload to plot** | **${total.toFixed(1)}** |`,
    '',
    `Plot: ${plot.frames} frames, ${plot.points} points. Peak RSS: API process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, ` +
      `worker ${peakMb(gw.workers[0]!.pid).toFixed(0)} MB, mdsseries ${series?.peakMemoryKb ? (series.peakMemoryKb / 1024).toFixed(0) : '?'} MB.`,
  ];
  console.log(lines.join('\n'));
} finally {
  await gw.close();
  await rm(csv, { force: true });
}
