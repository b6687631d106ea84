// CSV line ends (not part of the test suite): the shared CSV reader (csv-rows.ts) on
// the same 2,000,000 plain records (date,ticker,price,volume, the stock-timeseries
// job's kind) with "\n" and with "\r\n" line ends, against csv-parse alone on the CRLF
// file (how the reader took every CRLF file before it split CRLF lines itself), in
// the same run. Best of 3 runs each. Writes bench/results/csv-line-ends.md.
//   npx tsx bench/ingest/line_ends.ts
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { fileChunks } from '../../server/src/formats/chunks.ts';
import { forEachCsvRow } from '../../server/src/formats/csv-rows.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const OUT_DIR = join(ROOT, 'bench/out/ingest');
const RECORDS = 2_000_000;
const RUNS = 3;

function write(lineEnd: string): string {
  const file = join(OUT_DIR, `market${lineEnd === '\n' ? '' : '-crlf'}.csv`);
  const lines = ['date,ticker,price,volume'];
  for (let i = 0; i < RECORDS; i++) lines.push(`2004-${String((i % 12) + 1).padStart(2, '0')}-01,T${i % 7000},${(10 + (i % 997) / 7).toFixed(4)},${i * 13}`);
  writeFileSync(file, lines.join(lineEnd) + lineEnd);
  return file;
}

async function ours(file: string): Promise<number> {
  let count = 0;
  await forEachCsvRow(fileChunks(file), () => count++);
  return count;
}

async function csvParseAlone(file: string): Promise<number> {
  let count = 0;
  const sink = new Writable({ objectMode: true, highWaterMark: 1024, write: (_row, _encoding, done) => (count++, done()) });
  await pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), parse({ relax_quotes: true, relax_column_count: true }), sink);
  return count;
}

/** Best of RUNS: CPU seconds of this process (nothing else runs in it meanwhile) and records. */
async function best(read: (file: string) => Promise<number>, file: string): Promise<{ cpu: number; records: number }> {
  let cpu = Infinity;
  let records = 0;
  for (let run = 0; run < RUNS; run++) {
    const start = process.cpuUsage();
    records = await read(file);
    const used = process.cpuUsage(start);
    cpu = Math.min(cpu, (used.user + used.system) / 1e6);
  }
  return { cpu, records };
}

mkdirSync(OUT_DIR, { recursive: true });
const load = loadavg();
const simdFlags = (/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '')
  .split(' ')
  .filter((flag) => /^(sse4_2|avx|avx2|fma|avx512f|avx512bw)$/.test(flag))
  .join(' ');
const lf = write('\n');
const crlf = write('\r\n');
const rows = [
  ['this reader, LF', await best(ours, lf)],
  ['this reader, CRLF', await best(ours, crlf)],
  ['csv-parse alone, CRLF (peer; the reader before)', await best(csvParseAlone, crlf)],
] as const;
const crlfOurs = rows[1][1].cpu;
const table = rows
  .map(([name, m]) => `| ${name} | ${m.records.toLocaleString('en-US')} | ${m.cpu.toFixed(2)} | ${Math.round(m.records / m.cpu).toLocaleString('en-US')} | ${(m.cpu / crlfOurs).toFixed(1)}× |`)
  .join('\n');
const report = `# CSV line ends

\`npx tsx bench/ingest/line_ends.ts\` — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]!.model}, flags ${simdFlags}, Node ${process.version}, load average ${load.map((l) => l.toFixed(1)).join(' ')} at the start.
${RECORDS.toLocaleString('en-US')} plain records \`date,ticker,price,volume\` (plus a header), best of ${RUNS} runs, CPU seconds of the reading process.

| reader, file | records | CPU s | records per CPU s | CPU against this reader on CRLF |
| --- | ---: | ---: | ---: | ---: |
${table}
`;
writeFileSync(join(ROOT, 'bench/results/csv-line-ends.md'), report);
console.log(report);
