// Frame switches while a stock-study-sized time series plays (570 frames × 7,000 points), in
// headless Chromium against a bare WebGL page that swaps the same frames into one buffer
// (pages/frames-floor.html), alternating in the same run; writes bench/results/viewer-frames.md.
//   node bench/viewer/frames.mjs [--quick]
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, openBench, stats } from './browser.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const quick = process.argv.includes('--quick');
const SERIES = quick ? 'series-100x7000' : 'series-570x7000';
const FPS = 30; // the fastest speed the time bar offers
const SECONDS = quick ? 5 : 15;
const REPEATS = quick ? 1 : 3;
const TRAILS = Array.from({ length: 10 }, (_, i) => `S${i * 700}`);
const TARGET_MS = 4;

const bench = await openBench();
const where = machine(bench.browser);
const { base } = bench;

/** Durations of the page's performance measures named `names`, after `run` has played. */
const measures = (page, names) => page.evaluate((ns) => Object.fromEntries(ns.map((n) => [n, performance.getEntriesByName(n).map((e) => e.duration)])), names);

async function floor() {
  return bench.withPage(async (page) => {
    await page.goto(`${base}/frames-floor.html?plot=${SERIES}&fps=${FPS}&seconds=${SECONDS}`);
    await page.waitForFunction(() => window.floorDone, null, { timeout: 600_000, polling: 500 });
    const m = await measures(page, ['floor:switch']);
    return { total: stats(m['floor:switch']) };
  });
}

async function viewer(trails) {
  return bench.withPage(async (page) => {
    await page.goto(`${base}/plots/${SERIES}`);
    await page.waitForSelector('[data-testid=play]', { timeout: 120_000 });
    if (trails) {
      await page.fill('[data-testid=trail-labels]', TRAILS.join(','));
      await page.press('[data-testid=trail-labels]', 'Enter');
      await page.waitForSelector('[data-testid=trail-following]', { timeout: 300_000 });
    }
    await page.selectOption('.timebar select', String(FPS));
    await page.evaluate(() => performance.clearMeasures());
    await page.click('[data-testid=play]');
    await page.waitForTimeout(SECONDS * 1000);
    await page.click('[data-testid=pause]');
    const m = await measures(page, ['wpv:frame-switch', 'wpv:render']);
    const sw = stats(m['wpv:frame-switch']), render = stats(m['wpv:render']);
    // A switch requests a render, which runs on the next animation frame (requests made within
    // one frame share it): the main-thread cost of a frame is the sum of the two, statistic by statistic.
    const sum = Object.fromEntries(['mean', 'p50', 'p95', 'max'].map((k) => [k, sw[k] + render[k]]));
    return { switch: sw, render, total: { ...sum, count: sw.count } };
  });
}

const runs = { floor: [], viewer: [], trails: [] };
for (let r = 0; r < REPEATS; r++) {
  runs.floor.push(await floor());
  runs.viewer.push(await viewer(false));
  runs.trails.push(await viewer(true));
  console.log(r, JSON.stringify({ floor: runs.floor.at(-1).total, viewer: runs.viewer.at(-1).total, trails: runs.trails.at(-1).total }));
}
await bench.close();

/** The run with the median mean total. */
const pick = (list) => [...list].sort((a, b) => a.total.mean - b.total.mean)[Math.floor(list.length / 2)];
const floorRun = pick(runs.floor), viewerRun = pick(runs.viewer), trailsRun = pick(runs.trails);
const f2 = (x) => x.toFixed(2);
const row = (name, x, ratio = '') => `| ${name} | ${x.count} | ${f2(x.mean)} | ${f2(x.p50)} | ${f2(x.p95)} | ${f2(x.max)} | ${ratio} |`;
const ratio = (x) => `**${(x.mean / floorRun.total.mean).toFixed(1)}×**`;
const meets = (x) => (x.p95 <= TARGET_MS ? 'meets' : 'misses');
const lines = [
  '# Viewer: frame switches during playback',
  '',
  `${where}. Run: \`node bench/viewer/frames.mjs\` (${new Date().toISOString().slice(0, 16)}Z; ${REPEATS} alternating runs of each page, the run with the median mean shown).`,
  '',
  `\`${SERIES}\` from \`bench/viewer/mockApi.mjs\` (${SERIES.split(/[-x]/)[1]} frames of 7,000 labelled points, labels shuffled in every frame, cluster keys changing every 50 frames), played at ${FPS} frames/s for ${SECONDS} s in a 1280×800 window.`,
  '',
  '- **Floor**: `bench/viewer/pages/frames-floor.html`, a bare WebGL page holding every frame\'s positions in memory; a switch is one `bufferSubData` of the frame into the same buffer, a clear and a `gl.POINTS` draw (no colours, sizes, labels or depth).',
  '- **Viewer**: `/plots/{id}` of the built client. A switch (`wpv:frame-switch`) moves the selection and search hits by label, rebuilds the colour/size/shape/visibility attributes, swaps the positions into the GPU buffer, and redraws the trails; the render call (`wpv:render`) that follows issues three.js\'s GL commands and buffer uploads. Their sum is the main-thread cost of a frame; SwiftShader rasterises in the GPU process.',
  `- **Viewer with trails**: the same with ${TRAILS.length} trails (length 20, frame marks on).`,
  '',
  '| page | step | frames | mean ms | p50 | p95 | max | mean / floor |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  row('floor | switch (upload + draw call)', floorRun.total),
  ...[['viewer', viewerRun], ['viewer + trails', trailsRun]].flatMap(([name, run]) => [
    row(`${name} | frame switch (JS)`, run.switch),
    row(`${name} | render call`, run.render),
    row(`${name} | **switch + render** (sum of each statistic)`, run.total, ratio(run.total)),
  ]),
  '',
  `Target: a frame switch ≤ ${TARGET_MS} ms. Viewer: p95 of switch + render ${f2(viewerRun.total.p95)} ms (${meets(viewerRun.total)} it); with trails ${f2(trailsRun.total.p95)} ms (${meets(trailsRun.total)} it). Load average at the end ${os.loadavg()[0].toFixed(1)} (2 cores shared with other work: wall-time tails grow with it). Frames shown: floor ${(floorRun.total.count / SECONDS).toFixed(1)}/s, viewer ${(viewerRun.switch.count / SECONDS).toFixed(1)}/s, with trails ${(trailsRun.switch.count / SECONDS).toFixed(1)}/s of the ${FPS} requested.`,
  '',
];
mkdirSync(path.join(root, 'bench/results'), { recursive: true });
writeFileSync(path.join(root, 'bench/results/viewer-frames.md'), lines.join('\n'));
console.log(lines.join('\n'));
