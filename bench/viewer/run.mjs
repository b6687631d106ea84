// Viewer benchmarks in headless Chromium (SwiftShader WebGL), each against its floor in
// the same run; writes bench/results/viewer.md.
//   node bench/viewer/run.mjs [--quick]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { startMockServer } from './mockApi.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'bench/out/viewer');
const quick = process.argv.includes('--quick');
const REPEATS = quick ? 1 : 9; // alternating floor and viewer; single runs vary ±20 % on this shared machine
const SIZES = quick ? [100_000] : [100_000, 1_000_000];
const TAG = `--wpv-bench-run=${process.pid}`; // tells this run's browser from others on the machine
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', TAG];

if (!existsSync(path.join(root, 'client/dist/index.html'))) execFileSync('npm', ['run', 'build', '-w', 'client'], { cwd: root, stdio: 'inherit' });
mkdirSync(out, { recursive: true });
await build({ entryPoints: [path.join(import.meta.dirname, 'pickBench.ts')], bundle: true, format: 'iife', outfile: path.join(out, 'pick-bench.js'), logLevel: 'warning' });

const server = await startMockServer([path.join(root, 'client/dist'), path.join(import.meta.dirname, 'pages'), out]);
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

/**
 * CPU ms used so far by this run's browser and every process under it (renderer, GPU with
 * SwiftShader's threads, network), from /proc: unlike wall time, not inflated by a busy machine.
 */
function browserCpuMs() {
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), ours: readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(TAG) }];
    } catch { return []; } // the process ended meanwhile
  });
  const ours = new Set(procs.filter((p) => p.ours).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!ours.has(p.pid) && ours.has(p.ppid)) { ours.add(p.pid); grew = true; }
  }
  return procs.filter((p) => ours.has(p.pid)).reduce((sum, p) => sum + p.ticks, 0) * 10; // USER_HZ = 100
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

async function withPage(fn) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try { return await fn(page); } finally { await context.close(); }
}

/** Navigation → first frame, with the page's own fetch/decode/upload/draw measures. */
async function firstFrame(url) {
  return withPage(async (page) => {
    const cpu0 = browserCpuMs();
    await page.goto(base + url);
    await page.waitForFunction(() => performance.getEntriesByName('wpv:first-frame').length > 0, null, { timeout: 120_000 });
    const cpu = browserCpuMs() - cpu0;
    const measures = await page.evaluate(() => {
      const m = (name) => performance.getEntriesByName(name)[0]?.duration ?? 0;
      const canvas = document.querySelector('canvas');
      return {
        total: performance.getEntriesByName('wpv:first-frame')[0].startTime, fetch: m('wpv:fetch'), decode: m('wpv:decode'), upload: m('wpv:upload'), draw: m('wpv:draw'),
        canvas: `${canvas.width}×${canvas.height}`,
      };
    });
    return { ...measures, cpu };
  });
}

async function warm(plot) {
  for (const what of ['positions', 'clusters']) await fetch(`${base}/api/v1/plots/${plot}/frames/0/${what}`);
}

const rows = [];
for (const n of SIZES) {
  const plot = `points-${n}`;
  await warm(plot);
  const runs = { floor: [], viewer: [] };
  for (let r = 0; r < REPEATS; r++) {
    runs.floor.push(await firstFrame(`/floor.html?plot=${plot}`));
    runs.viewer.push(await firstFrame(`/plots/${plot}`));
  }
  const pick = (list) => list.find((x) => x.total === median(list.map((y) => y.total)));
  const cpu = (list) => median(list.map((x) => x.cpu));
  rows.push({ n, floor: pick(runs.floor), viewer: pick(runs.viewer), cpu: { floor: cpu(runs.floor), viewer: cpu(runs.viewer) } });
  console.log(n, JSON.stringify(rows.at(-1)));
}

// Frame switches while playing the stock-study-sized series.
const series = quick ? 'series-100x7000' : 'series-575x7000';
const playback = await withPage(async (page) => {
  await page.goto(`${base}/plots/${series}`);
  await page.waitForSelector('[data-testid=play]', { timeout: 120_000 });
  await page.selectOption('.timebar select', '20');
  await page.click('[data-testid=play]');
  const seconds = quick ? 5 : 15;
  await page.waitForTimeout(seconds * 1000);
  return page.evaluate((s) => {
    const stats = (name) => {
      const d = performance.getEntriesByName(name).map((e) => e.duration).sort((a, b) => a - b);
      return { count: d.length, mean: d.reduce((a, b) => a + b, 0) / d.length, p50: d[Math.floor(d.length / 2)], p95: d[Math.floor(d.length * 0.95)], max: d.at(-1) };
    };
    return { seconds: s, switch: stats('wpv:frame-switch'), render: stats('wpv:render') };
  }, seconds);
});
console.log('playback', JSON.stringify(playback));

const picking = [];
for (const n of SIZES) {
  picking.push(await withPage(async (page) => {
    await page.goto(`${base}/pick.html?n=${n}`);
    await page.waitForFunction(() => window.pickResult, null, { timeout: 300_000 });
    return page.evaluate(() => window.pickResult);
  }));
  console.log('picking', JSON.stringify(picking.at(-1)));
}

await browser.close();
server.close();

const lines = [
  '# Viewer benchmarks',
  '',
  `Headless Chromium ${browser.version?.() ?? ''} with SwiftShader (software WebGL), 1280×800 window, synthetic data served by \`bench/viewer/mockApi.mjs\` over HTTP on localhost (the browser side only; the real server's fetch speed is in its own results). Run: \`node bench/viewer/run.mjs\` (${new Date().toISOString().slice(0, 16)}Z, median of ${REPEATS}).`,
  '',
  '## Navigation → first rendered frame',
  `Floor: \`bench/viewer/pages/floor.html\`, a bare WebGL page that fetches the same positions and draws them as \`gl.POINTS\` (4 px, constant colour, no depth buffer) on a canvas of the viewer's size (drawing buffers: floor ${rows[0].floor.canvas}, viewer ${rows[0].viewer.canvas}). Viewer: \`/plots/{id}\` of the built client (loads the app, plot metadata, positions and cluster keys, builds colour/size/shape/visibility attributes, draws glyph points with depth test). Breakdown in ms from the pages' own \`performance.measure\`s; the upload and draw steps are each waited for with a 1-pixel \`readPixels\`.`,
  '',
  '| points | page | total ms | fetch | decode | GPU upload | draw | viewer / floor | browser CPU ms | viewer / floor (CPU) |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.flatMap(({ n, floor, viewer, cpu }) => [
    `| ${n.toLocaleString('en')} | floor | ${fmt(floor.total)} | ${fmt(floor.fetch)} | ${fmt(floor.decode)} | ${fmt(floor.upload)} | ${fmt(floor.draw)} | | ${fmt(cpu.floor)} | |`,
    `| ${n.toLocaleString('en')} | viewer | ${fmt(viewer.total)} | ${fmt(viewer.fetch)} | ${fmt(viewer.decode)} | ${fmt(viewer.upload)} | ${fmt(viewer.draw)} | **${(viewer.total / floor.total).toFixed(2)}×** | ${fmt(cpu.viewer)} | ${(cpu.viewer / cpu.floor).toFixed(2)}× |`,
  ]),
  '',
  'Browser CPU: CPU time of all the browser\'s processes (renderer, GPU process with SwiftShader\'s threads, network) from navigation to the first frame, median of the runs; a busy machine stretches wall time but hardly this.',
  '',
  '## Frame switches during playback',
  `\`/plots/${series}\` (labels shuffled in every frame, cluster keys changing), played at 20 frames/s for ${playback.seconds} s. Main-thread time of each switch (cluster attributes rebuilt, positions swapped into the GPU buffers, edges, trails, URL scheduling), from \`performance.measure('wpv:frame-switch')\`; the target is ≤ 4 ms.`,
  '',
  'The render call that follows (three.js issuing GL commands and the `bufferSubData` of the new positions and attributes; SwiftShader rasterises in the GPU process) is listed separately; the sum of both is the main-thread cost of showing a frame.',
  '',
  '| main-thread step | count | mean ms | p50 | p95 | max |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...[['frame switch (JS)', playback.switch], ['render call', playback.render]].map(([name, x]) =>
    `| ${name} | ${x.count} | ${x.mean.toFixed(2)} | ${x.p50.toFixed(2)} | ${x.p95.toFixed(2)} | ${x.max.toFixed(2)} |`),
  '',
  `${playback.switch.count} switches in ${playback.seconds} s = ${(playback.switch.count / playback.seconds).toFixed(1)} frames/s shown of the 20 requested.`,
  '',
  '## Hover picking',
  'Same points, camera and cursor positions (`bench/viewer/pickBench.ts`): the viewer\'s screen-space grid against `THREE.Raycaster.intersectObject` on a `THREE.Points` with the equivalent threshold. The grid is built once per camera pose (first hover after the camera moves); each mouse move afterwards is a grid query.',
  '',
  '| points | grid query ms | grid build ms (once per pose) | Raycaster ms per move | Raycaster / grid query | Raycaster / (build + query) |',
  '| ---: | ---: | ---: | ---: | ---: | ---: |',
  ...picking.map((p) => `| ${p.n.toLocaleString('en')} | ${p.gridMs.toFixed(4)} | ${fmt(p.buildMs)} | ${fmt(p.rayMs)} | **${(p.rayMs / p.gridMs).toFixed(0)}×** | ${(p.rayMs / (p.buildMs + p.gridMs)).toFixed(1)}× |`),
  '',
];
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/viewer.md'), lines.join('\n'));
console.log(lines.join('\n'));
