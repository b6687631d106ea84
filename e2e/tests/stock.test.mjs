// Issue 14's browser test, the analyst's flow: submit a stock-timeseries job from the Jobs page
// with a generated price CSV, watch its frames progress on the job page, open the plot and
// play it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { pixelDiff } from '../lib/pixels.mjs';

// 800 tickers and a window every day (362 frames), so the series stage runs long enough to be
// seen while its frames progress: at 300 the faster mdsseries ran the whole series in 1.2 s, and
// the bridge wrote no progress in between (scripts/with-server.sh has it write every 250 ms).
const TICKERS = 800;
const TRADING_DAYS = 520;  // ~2 years of weekdays
const WINDOW_DAYS = 365;
const STEP_DAYS = 1;
const DAY_MS = 86_400_000;
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The demo's generated market (server/src/cli/demo-data.ts, run through tsx): long-layout CSV
 * where each ticker follows the market, its sector's factor and noise of its own. Returns it
 * with its tickers' sectors and the number of windows it has.
 */
function market() {
  const csv = execFileSync(process.execPath, ['--import', 'tsx', '-e',
    `import('./server/src/cli/demo-data.ts').then((m) => process.stdout.write(m.stockMarketCsv(${TICKERS}, ${TRADING_DAYS})))`],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 << 20 });
  const sectors = new Map();
  const rows = csv.trim().split('\n').slice(1).map((line) => line.split(','));
  for (const [, symbol, , , sector] of rows) sectors.set(symbol, sector);
  const span = (Date.parse(rows.at(-1)[0]) - Date.parse(rows[0][0])) / DAY_MS + 1;
  return { csv, sectors, windows: Math.floor((span - WINDOW_DAYS) / STEP_DAYS) + 1 };
}

describe('stock time series end to end', () => {
  let browser, page, problems, tmp;

  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    tmp = await mkdtemp(path.join(os.tmpdir(), 'wpv-e2e-stock-'));
    await register(page, uniqueName('stock'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('submit a price CSV, watch the frames progress, open and play the series', async (t) => {
    const { csv, sectors, windows } = market();
    const input = path.join(tmp, 'prices.csv');
    await writeFile(input, csv);

    await step(page, 'stock-submit', async () => {
      await page.goto(`${BASE_URL}/jobs`);
      await page.selectOption('select[name=type]', 'stock-timeseries');
      await page.fill('input[name=name]', 'e2e market');
      // The form's fields come from the type's params schema.
      await page.fill('input[name=windowDays]', String(WINDOW_DAYS));
      await page.fill('input[name=stepDays]', String(STEP_DAYS));
      await page.selectOption('select[name=clusterBy]', 'sector');
      await page.setInputFiles('[data-testid=job-file]', input);
      // A double-click submits once: the button gives way to the upload's progress at once.
      await page.dblclick('[data-testid=job-submit]');
      await page.waitForURL(/\/jobs\/[^/]+$/);
      assert.equal((await apiAs(page, 'GET', '/jobs')).body.items.length, 1, 'one job submitted');
    });

    // What the page showed while the job ran: the overall "Stage i of n" line, and the series
    // stage's bar (percent of the frames done, ETA) while it ran.
    const stageLines = new Set();
    const seriesBars = [];
    await step(page, 'stock-progress', async () => {
      const deadline = Date.now() + 360_000;
      let state = '', error = '';
      while (Date.now() < deadline) {
        const shown = await page.evaluate(() => ({
          job: document.querySelector('[data-testid=job-state]')?.textContent ?? '',
          error: document.querySelector('[data-testid=job-error]')?.textContent ?? '',
          overall: document.querySelector('[data-testid=job-progress] p')?.textContent ?? '',
          series: document.querySelector('[data-testid=progress-series]')?.getAttribute('aria-valuetext') ?? null,
        }));
        ({ job: state, error } = shown);
        if (shown.overall) stageLines.add(shown.overall.replace(/:.*/, ''));
        if (shown.series !== null) seriesBars.push(shown.series);
        if (state === 'succeeded' || state === 'failed' || state === 'cancelled') break;
        await page.waitForTimeout(50);
      }
      assert.equal(state, 'succeeded', `job ended ${state} ${error}`);
      for (const stage of ['prepare', 'series', 'assemble']) {
        assert.equal(await page.getAttribute(`[data-testid=stage-${stage}]`, 'data-state'), 'succeeded');
      }
      assert.ok(stageLines.has('Stage 2 of 3'), `overall lines seen: ${[...stageLines]}`);
      // mdsseries reports the share of frames done: the bar moved through the frames.
      const percents = seriesBars.map((text) => Number(/^(\d+) %/.exec(text)?.[1])).filter(Number.isFinite);
      assert.ok(percents.some((p) => p > 0 && p < 100), `series bar texts seen: ${[...new Set(seriesBars)]}`);
      t.diagnostic(`series bar texts seen: ${[...new Set(seriesBars)].join('; ')}`);
      assert.ok(seriesBars.some((text) => /about .* left/.test(text)), `no ETA among ${[...new Set(seriesBars)]}`);
      // The series stage's stress: the first window's annealing against iteration, and each
      // frame's fit against the frame, each line running left to right (once one line that
      // jumped back from the annealing's last iteration to the frames' numbering).
      const charts = await page.evaluate(() => Object.fromEntries(['stress-chart', 'frame-stress-chart'].map((id) => {
        const svg = document.querySelector(`[data-testid=stage-series] [data-testid=${id}]`);
        const xs = [...(svg?.querySelector('path')?.getAttribute('d') ?? '').matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
        return [id, { xs, ticks: [...(svg?.querySelectorAll('text.tick') ?? [])].map((t) => t.textContent) }];
      })));
      for (const [id, { xs }] of Object.entries(charts)) {
        assert.ok(xs.length > 1, `${id} has a line`);
        assert.ok(xs.every((x, i) => i === 0 || x >= xs[i - 1]), `${id} runs left to right: ${xs.join(' ')}`);
      }
      // From frame 1 (2 when the bridge's thinning of a long series dropped the first) to the last.
      const [firstFrame, lastFrame] = charts['frame-stress-chart'].ticks.slice(2).map(Number);
      assert.ok(firstFrame <= 2 && lastFrame === windows, `frame chart spans frames ${firstFrame}–${lastFrame} of ${windows}`);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.locator('[data-testid=stage-series]').screenshot({ path: path.join(ARTIFACTS, 'stock-stress.png') });
      await page.click('[data-testid=stage-series] .logs summary');
      await page.waitForSelector(`[data-testid=logs-series-stdout]:has-text('"frames":${windows}')`);
    });

    await step(page, 'stock-plot', async () => {
      await page.click('[data-testid=job-plot]');
      await page.waitForURL(/\/plots\/[^/]+$/);
      const plotId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]', { timeout: 120_000 });
      assert.equal(await page.textContent('[data-testid=frame-number]'), `1 / ${windows}`);
      const plot = (await apiAs(page, 'GET', `/plots/${plotId}`)).body;
      assert.deepEqual(plot.clusters.map((c) => c.label).sort(), [...new Set(sectors.values())].sort());
      const labels = (await apiAs(page, 'GET', `/plots/${plotId}/frames/0/labels`)).body;
      assert.deepEqual([...labels].sort(), [...sectors.keys()].sort(), 'every ticker is a point labelled by its symbol');
    });

    await step(page, 'stock-play', async () => {
      const firstTitle = await page.textContent('[data-testid=frame-title]');
      assert.match(firstTitle, /^\d{4}-\d{2}-\d{2}$/, 'a frame is titled by its window\'s last date');
      await page.waitForTimeout(300);
      const before = await canvasShot(page);
      await page.click('[data-testid=play]');
      await page.waitForFunction((title) => {
        const number = document.querySelector('[data-testid=frame-number]')?.textContent ?? '';
        return document.querySelector('[data-testid=frame-title]')?.textContent !== title && parseInt(number, 10) >= 40;
      }, firstTitle, { timeout: 90_000 });
      await page.click('[data-testid=pause]');
      await page.waitForTimeout(300);
      const later = await page.textContent('[data-testid=frame-title]');
      assert.ok(later > firstTitle, `the title moved on in time: ${firstTitle} → ${later}`);
      const after = await canvasShot(page);
      // The stocks drift between windows; 40 frames on, the drawn points have moved (a paused,
      // unchanged frame redraws identically).
      const moved = await pixelDiff(page, before, after);
      assert.ok(moved > 0.002, `only ${(moved * 100).toFixed(3)} % of the canvas changed`);
      const shot = path.join(tmp, 'stock-playing.png');
      await page.screenshot({ path: shot });
      t.diagnostic(`screenshot: ${shot}; ${(moved * 100).toFixed(2)} % of the canvas changed from ${firstTitle} to ${later}`);
    });
    assert.deepEqual(problems, []);
  });
});
