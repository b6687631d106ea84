// Issue 4's browser test: submit a small FASTA, see the stages progress, open the resulting plot.
// The form's distance is set to `score` (swg's score-only kernels); screenshots of the form go to
// JOBS_SHOTS when set.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

const SEQUENCES = path.resolve(import.meta.dirname, '../../../shared/data/16s-4640.fasta');
const COUNT = 40;
const MAX_CLUSTERS = 4;
const SHOTS = process.env.JOBS_SHOTS; // a folder for screenshots to look at, when set

/** The first `count` records of a FASTA file, and their ids. */
async function fastaHead(file, count) {
  const records = (await readFile(file, 'utf8')).split(/^>/m).filter((r) => r.trim()).slice(0, count);
  return { text: records.map((r) => '>' + r.trimEnd() + '\n').join(''), ids: records.map((r) => r.split(/\s/)[0]) };
}

describe('jobs end to end', () => {
  let browser, page, problems, tmp;

  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    tmp = await mkdtemp(path.join(os.tmpdir(), 'wpv-e2e-jobs-'));
    await register(page, uniqueName('jobs'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('a malformed input is refused with the server\'s reason', async () => {
    await step(page, 'jobs-bad-input', async () => {
      const bad = path.join(tmp, 'bad.fasta');
      await writeFile(bad, 'ACGT without a header\n');
      await page.goto(`${BASE_URL}/jobs`);
      await page.setInputFiles('[data-testid=job-file]', bad);
      await page.click('[data-testid=job-submit]');
      const alert = await page.waitForSelector('.job-form [role=alert]');
      assert.match(await alert.textContent(), /line 1/);
      assert.equal(new URL(page.url()).pathname, '/jobs');
    });
  });

  test('submit a small FASTA, see stages progress, open the resulting plot', async () => {
    const { text, ids } = await fastaHead(SEQUENCES, COUNT);
    const input = path.join(tmp, 'sample.fasta');
    await writeFile(input, text);

    await step(page, 'jobs-submit', async () => {
      await page.goto(`${BASE_URL}/jobs`);
      await page.selectOption('select[name=type]', 'sequence-clustering');
      await page.fill('input[name=name]', 'e2e sequences');
      await page.fill('input[name=maxClusters]', String(MAX_CLUSTERS));
      // The distances the schema offers, the server's default (global) first.
      assert.deepEqual(await page.$$eval('select[name=distance] option', (os) => os.map((o) => [o.value, o.textContent])),
        [['', 'default (global)'], ['spidal', 'spidal'], ['shorter', 'shorter'], ['global', 'global'], ['score', 'score']]);
      assert.equal(await page.inputValue('select[name=distance]'), '');
      await page.selectOption('select[name=distance]', 'score');
      await page.setInputFiles('[data-testid=job-file]', input);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'jobs-form.png'), fullPage: true });
      await page.click('[data-testid=job-submit]');
      await page.waitForURL(/\/jobs\/[^/]+$/);
    });

    // Every (stage, state) pair the page shows, sampled until the job ends.
    const seen = new Set();
    await step(page, 'jobs-progress', async () => {
      const deadline = Date.now() + 150_000;
      let state = '', error = '';
      while (Date.now() < deadline) {
        const shown = await page.evaluate(() => ({
          job: document.querySelector('[data-testid=job-state]')?.textContent ?? '',
          error: document.querySelector('[data-testid=job-error]')?.textContent ?? '',
          stages: [...document.querySelectorAll('.job-stage')].map((s) => `${s.dataset.testid}:${s.dataset.state}`),
        }));
        ({ job: state, error } = shown);
        shown.stages.forEach((s) => seen.add(s));
        if (state === 'succeeded' || state === 'failed' || state === 'cancelled') break;
        await page.waitForTimeout(100);
      }
      assert.equal(state, 'succeeded', `job ended ${state} ${error}`);
    });

    await step(page, 'jobs-stages', async () => {
      for (const stage of ['swg', 'mds', 'pwc', 'assemble']) {
        assert.equal(await page.getAttribute(`[data-testid=stage-${stage}]`, 'data-state'), 'succeeded');
        assert.ok(seen.has(`stage-${stage}:succeeded`));
      }
      // The page was live: stages were seen before they had succeeded.
      assert.ok([...seen].some((s) => !s.endsWith(':succeeded')), `only final states seen: ${[...seen]}`);
      assert.match(await page.textContent('[data-testid=stage-mds] [data-testid=backend-id]'), /\S/);
      assert.ok(await page.isVisible('[data-testid=stage-mds] [data-testid=stress-chart] path'));
      await page.click('[data-testid=stage-mds] .logs summary');
      await page.waitForSelector('[data-testid=logs-mds-stdout]:has-text("stress")');
      await page.click('[data-testid=stage-swg] .logs summary');
      await page.waitForSelector('[data-testid=logs-swg-stdout]:has-text(\'"distance":"score"\')');
      // Logs only where a program wrote them: the MPI stages, not the worker's own plot building.
      assert.deepEqual(await page.$$eval('.job-stage:has(details.logs)', (s) => s.map((e) => e.dataset.testid)), ['stage-swg', 'stage-mds', 'stage-pwc']);
    });

    await step(page, 'jobs-plot', async () => {
      await page.click('[data-testid=job-plot]');
      await page.waitForURL(/\/plots\/[^/]+$/);
      const plotId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]', { timeout: 120_000 });
      const labels = (await apiAs(page, 'GET', `/plots/${plotId}/frames/0/labels`)).body;
      assert.deepEqual(labels, ids, 'one point per sequence, in input order, labelled by its id');
      // Each cluster's centre is one of the sequences (its medoid), marked in the cluster table.
      const { clusters } = (await apiAs(page, 'GET', `/plots/${plotId}`)).body;
      assert.ok(clusters.length >= 1 && clusters.length <= MAX_CLUSTERS, `${clusters.length} clusters`);
      for (const c of clusters) assert.ok(Number.isInteger(c.centre) && c.centre >= 0 && c.centre < ids.length, JSON.stringify(c));
      // Each cluster's silhouette is in the list (the count's tooltip); the loose ones are marked.
      for (const c of clusters) assert.ok(c.silhouette >= -1 && c.silhouette <= 1, JSON.stringify(c));
      const rows = await page.$$eval('[data-testid=cluster-row]', (rs) => rs.map((r) => ({
        key: Number(r.dataset.key), loose: !!r.querySelector('[data-testid=loose-cluster]'), title: r.querySelector('.count').title,
      })));
      assert.deepEqual(rows.map((r) => [r.key, r.loose, r.title]).sort((a, b) => a[0] - b[0]),
        clusters.map((c) => [c.key, c.silhouette <= 0.25, `points in this frame; mean silhouette ${c.silhouette.toFixed(2)}`]).sort((a, b) => a[0] - b[0]));
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'jobs-plot.png') });
    });
    assert.deepEqual(problems, []);
  });
});
