// Server benchmarks (issue 2 §5): storage bytes per point, positions fetch vs the
// original WebPlotViz JSON, and 50 concurrent readers. Run:
//   bash bench/with-stack.sh npx tsx bench/server/run.ts
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client, startServer } from '../../server/test/harness.ts';
import { clusteredBlobsText, seededRandom } from '../../server/src/cli/demo-data.ts';

// Inputs are generated before any request: a long synchronous stretch between requests
// lets the server close an idle keep-alive socket that the client then reuses.
const inputs = new Map([1_000_000, 100_000].map((points) => [points, pointsWithLabels(points)]));
const server = await startServer({ MAX_UPLOAD_BYTES: String(512 * 1024 * 1024) });
const client = new Client(server.url);
await client.signUp('bench');
const lines: string[] = [];
const log = (line = '') => {
  console.log(line);
  lines.push(line);
};

/** The SIMD flags that matter to the store and Node's memcpy, from /proc/cpuinfo. */
function cpuFlags(): string {
  const flags = /^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim().split(/\s+/) ?? [];
  return ['sse4_2', 'avx', 'avx2', 'avx512f'].filter((f) => flags.includes(f)).join(' ') || 'flags unknown';
}

/** `idx x y z cluster label` lines, labels like sequence ids. */
function pointsWithLabels(points: number): string {
  const random = seededRandom(points);
  return clusteredBlobsText(points, 16)
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l, i) => `${l} seq_${i}_${Math.floor(random() * 1e6)}`)
    .join('\n');
}

async function uploadPoints(points: number): Promise<{ id: string }> {
  const res = await client.upload('points.txt', inputs.get(points)!);
  const body = await res.json();
  if (res.status !== 201) throw new Error(JSON.stringify(body));
  return { id: body.id };
}

async function time<T>(fn: () => Promise<T>, runs = 5): Promise<{ ms: number; value: T }> {
  let best = Infinity;
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    value = await fn();
    best = Math.min(best, performance.now() - start);
  }
  return { ms: best, value };
}

// --- storage
const million = await uploadPoints(1_000_000);
const files = await server.store.blobs.meta.find({ plotId: million.id }).toArray();
const size = (kind: string) => files.find((f) => f._id.endsWith(`/frames/0/${kind}`))!.length;
const pointBytes = size('positions') + size('clusters');
const labelBytes = size('labels');
const positions = new Float32Array(await (await client.request('GET', `/plots/${million.id}/frames/0/positions`)).arrayBuffer());
const clusters = new Uint32Array(await (await client.request('GET', `/plots/${million.id}/frames/0/clusters`)).arrayBuffer());
// The original stored each point as {"key":["x","y","z","cluster"]} strings in JSON maps,
// the numbers as written in the uploaded file (4 decimals here).
const originalPoints: Record<string, string[]> = {};
for (let i = 0; i < 1_000_000; i++) {
  const xyz = [0, 1, 2].map((axis) => positions[3 * i + axis]!.toFixed(4));
  originalPoints[String(i)] = [...xyz, String(clusters[i])];
}
const originalJson = JSON.stringify(originalPoints);
const originalBytes = Buffer.byteLength(originalJson);
log('## Server: storage, fetch and concurrency');
log();
const loadAtStart = loadavg().map((x) => x.toFixed(1)).join(' ');
log(`Measured ${new Date().toISOString().slice(0, 16)}Z on ${cpus()[0]!.model} × ${cpus().length} (${cpuFlags()}), FerretDB (SQLite) store, Node ${process.version}; load average ${loadAtStart} at the start.`);
log();
log('### Storage per point (1,000,000 points)');
log();
log('| what | bytes/point |');
log('| --- | --- |');
log(`| xyz + cluster, binary (this platform) | ${(pointBytes / 1e6).toFixed(2)} |`);
log(`| labels (JSON string table, ~14-char ids) | ${(labelBytes / 1e6).toFixed(2)} |`);
log(`| original WebPlotViz JSON \`{"key":["x","y","z","cluster"]}\` (4-decimal strings), no labels | ${(originalBytes / 1e6).toFixed(2)} |`);
log(`| ratio original / this (xyz + cluster) | ${(originalBytes / pointBytes).toFixed(2)}× |`);
log();

// --- fetch: positions binary vs the same data served as WebPlotViz-style JSON from the same store
const blobs = server.store.blobs;
await blobs.putBuffer('bench-json', 'bench-json/points', Buffer.from(originalJson), 'application/json');
const jsonFile = (await blobs.find('bench-json/points'))!;
const jsonServer = http.createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  blobs.open(jsonFile).pipe(res);
});
jsonServer.keepAliveTimeout = server.keepAliveTimeout;
await new Promise<void>((resolve) => jsonServer.listen(0, '127.0.0.1', resolve));
const jsonUrl = `http://127.0.0.1:${(jsonServer.address() as { port: number }).port}/`;
const binary = await time(async () => new Float32Array(await (await client.request('GET', `/plots/${million.id}/frames/0/positions`)).arrayBuffer()).length);
const json = await time(async () => {
  const parsed: Record<string, string[]> = JSON.parse(await (await fetch(jsonUrl)).text());
  const out = new Float32Array(Object.keys(parsed).length * 3);
  let i = 0;
  for (const key in parsed) {
    const p = parsed[key]!;
    out[i++] = Number(p[0]);
    out[i++] = Number(p[1]);
    out[i++] = Number(p[2]);
  }
  return out.length;
});
jsonServer.close();
log('### Fetch a 1M-point frame over HTTP on localhost (best of 5, until usable Float32 xyz)');
log();
log('| served as | ms |');
log('| --- | --- |');
log(`| binary Float32 (\`/frames/0/positions\`) | ${binary.ms.toFixed(0)} |`);
log(`| WebPlotViz-style JSON from the same store, parsed to Float32 | ${json.ms.toFixed(0)} |`);
log(`| ratio JSON / binary | ${(json.ms / binary.ms).toFixed(1)}× |`);
log();

// --- concurrency: 50 anonymous clients reading a public 100k-point plot's positions. The peer, in
// the same run and process: a bare Node HTTP server answering every request with the same bytes
// from memory (no routing, access check or store), the most this machine can serve this way.
const hundredK = await uploadPoints(100_000);
await client.json('PATCH', `/plots/${hundredK.id}`, { visibility: 'public' });
const positionsUrl = `${server.url}/api/v1/plots/${hundredK.id}/frames/0/positions`;
const positionsBytes = Buffer.from(await (await fetch(positionsUrl)).arrayBuffer());
const bare = http.createServer((_req, res) => {
  res.setHeader('content-type', 'application/octet-stream');
  res.end(positionsBytes);
});
bare.keepAliveTimeout = server.keepAliveTimeout;
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;
// CPU time of this process (server + autocannon) per request is steadier than latency on a shared machine.
const load = async (name: string, url: string) => {
  const before = process.cpuUsage();
  const result = await autocannon({ url, connections: 50, duration: 10 });
  const { user, system } = process.cpuUsage(before);
  return { name, result, cpuMsPerRequest: (user + system) / 1000 / Math.max(1, result.requests.total) };
};
// Alternated, so a change in the machine's load hits both alike.
const rounds: Awaited<ReturnType<typeof load>>[] = [];
for (let round = 0; round < 2; round++) {
  rounds.push(await load('API `/frames/0/positions`', positionsUrl));
  rounds.push(await load('bare Node server, same bytes from memory', bareUrl));
}
bare.close();
log('### 50 concurrent anonymous clients reading the positions of a public 100k-point plot (1.2 MB per request, 10 s, autocannon)');
log();
log('| served by | round | requests/s | MB/s | p50 ms | p99 ms | errors | CPU ms/request |');
log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [index, { name, result, cpuMsPerRequest }] of rounds.entries()) {
  log(`| ${name} | ${Math.floor(index / 2) + 1} | ${result.requests.average.toFixed(0)} | ${(result.throughput.average / 1e6).toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${result.errors + result.non2xx} | ${cpuMsPerRequest.toFixed(1)} |`);
}
const worst = (prefix: string, of: (r: (typeof rounds)[number]) => number) => Math.max(...rounds.filter((r) => r.name.startsWith(prefix)).map(of));
const p99 = (r: (typeof rounds)[number]) => r.result.latency.p99;
log();
log(`Worst p99, API / bare server: ${(worst('API', p99) / worst('bare', p99)).toFixed(2)}×; CPU per request, API / bare server: ${(worst('API', (r) => r.cpuMsPerRequest) / worst('bare', (r) => r.cpuMsPerRequest)).toFixed(2)}× (worst rounds).`);
log('The API server, FerretDB and autocannon share the machine. On a warm cache a request makes no store round trip:');
log('the plot document (access check) and the blob\'s current version are remembered for 1 s per process (writes in');
log('the process forget them at once), the bytes come from the blob cache.');
log(`Load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}.`);
log();
await writeFile(path.resolve(import.meta.dirname, '../results/server.md'), lines.join('\n') + '\n');
await server.close();
