// Viewer benchmarks in headless Chromium (SwiftShader WebGL), each against its floor in
// the same run; writes bench/results/viewer.md. Frame switches: frames.mjs.
//   node bench/viewer/run.mjs [--quick]
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { TAG, openBench } from './browser.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'bench/out/viewer');
const quick = process.argv.includes('--quick');
const REPEATS = quick ? 1 : 9; // alternating floor and viewer; single runs vary ±20 % on this shared machine
const SIZES = quick ? [100_000] : [100_000, 1_000_000];

mkdirSync(out, { recursive: true });
await build({ entryPoints: [path.join(import.meta.dirname, 'pickBench.ts')], bundle: true, format: 'iife', outfile: path.join(out, 'pick-bench.js'), logLevel: 'warning' });

const bench = await openBench([out]);
const { base, browser, withPage } = bench;

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

const picking = [];
for (const n of SIZES) {
  picking.push(await withPage(async (page) => {
    await page.goto(`${base}/pick.html?n=${n}`);
    await page.waitForFunction(() => window.pickResult, null, { timeout: 300_000 });
    return page.evaluate(() => window.pickResult);
  }));
  console.log('picking', JSON.stringify(picking.at(-1)));
}

const version = browser.version();
await bench.close();

const lines = [
  '# Viewer benchmarks',
  '',
  `Headless Chromium ${version} with SwiftShader (software WebGL), 1280×800 window, synthetic data served by \`bench/viewer/mockApi.mjs\` over HTTP on localhost (the browser side only; the real server's fetch speed is in its own results). Run: \`node bench/viewer/run.mjs\` (${new Date().toISOString().slice(0, 16)}Z, median of ${REPEATS}).`,
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
  'In `viewer-frames.md` (`node bench/viewer/frames.mjs`), against a bare WebGL buffer-swap page.',
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
