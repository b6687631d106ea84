// The job pages after the job ends: a cancelled job's stages all stopped (none left running or
// waiting for CPUs), a deleted plot named as such instead of linked, and the submission form's
// error cleared when the field it is about changes.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

const SCREENSHOTS = process.env.JOB_SCREENSHOTS; // e.g. /tmp/s19/jobs: the cancelled job's page, 1400×900

/** `rows` random 8-D vectors as CSV (a name column first): 1,500 run for seconds, 20 in a moment. */
function vectors(rows) {
  let seed = 7;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const lines = Array.from({ length: rows }, (_, i) => [`v${i}`, ...Array.from({ length: 8 }, () => random().toFixed(4))].join(','));
  return ['name,a,b,c,d,e,f,g,h', ...lines].join('\n') + '\n';
}

async function submit(page, rows, name) {
  const base64 = Buffer.from(vectors(rows)).toString('base64');
  const res = await apiAs(page, 'POST', '/jobs', { base64, filename: 'vectors.csv', fields: { type: 'vectors', name, params: '{"labelColumn":0}' } });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.id;
}

/** The stages as the page shows them: name, state and badge. */
const shownStages = (page) => page.$$eval('.job-stage', (stages) => stages.map((s) => ({
  name: s.dataset.testid, state: s.dataset.state, badge: s.querySelector('.badge')?.textContent ?? '',
})));

describe('job pages after the job ends', () => {
  let browser, page, problems;

  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('jobsend'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('a job cancelled while a stage runs ends with every stage stopped, without reloading', async () => {
    const id = await submit(page, 1500, 'e2e cancelled');
    await page.goto(`${BASE_URL}/jobs/${id}`);
    await step(page, 'jobs-cancel-running', async () => {
      await page.waitForSelector('.job-stage[data-state=running]', { timeout: 120_000 });
      await page.click('text=Cancel job');
      await page.waitForSelector('[data-testid=job-state]:has-text("cancelled")');
      // At once, while the bridge stops the programs: 'stopping…', no bar or time left (a card
      // read 'running · 63 % · about 4.4 s left', rising, for 3 s after the cancel).
      const stages = await shownStages(page);
      assert.deepEqual(stages.filter((s) => s.badge === 'running' || s.badge === 'waiting for CPUs'), [], JSON.stringify(stages));
      assert.equal(await page.$$eval('.job-stage [data-testid^=progress-]', (bars) => bars.length), 0, 'no live bar after the cancel');
    });
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'cancelled-job-stopping.png') });
    await step(page, 'jobs-cancel-settled', async () => {
      // The bridge records the running programs cancelled 1-3 s after the job; the stream shows it.
      await page.waitForFunction(() => [...document.querySelectorAll('.job-stage')].every((s) => s.dataset.state === 'succeeded' || s.dataset.state === 'cancelled'),
        undefined, { timeout: 15_000 });
      const stages = await shownStages(page);
      assert.deepEqual(stages.filter((s) => s.badge === 'waiting for CPUs' || s.badge === 'running'), [], JSON.stringify(stages));
      assert.equal(await page.$$eval('.job-stage [data-testid^=progress-]', (bars) => bars.length), 0, 'no live bar is left');
      // The plot was never built: that stage has no logs to open (an empty 'Logs' was shown).
      assert.equal(await page.$('[data-testid=stage-assemble] details.logs'), null);
      // No stage stopped with the job ran or waited longer than the job lasted (8.7 s and 6.6 s in a 5.1 s job).
      const total = await page.$eval('.job-meta', (p) => Number(/total ([\d.]+) s/.exec(p.textContent)[1]));
      const times = await page.$$eval('.job-stage[data-state=cancelled] .figures div', (figures) => figures
        .filter((f) => ['run time', 'waited for'].includes(f.querySelector('dt').textContent))
        .map((f) => parseFloat(f.querySelector('dd').textContent)));
      assert.ok(times.every((t) => t <= total), `stage times ${times} in a job of ${total} s`);
    });
    if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'cancelled-job.png') });
    assert.deepEqual(problems, []);
  });

  test('a job whose plot was deleted says so on its page and in the list, instead of linking to it', async () => {
    const id = await submit(page, 20, 'e2e deleted plot');
    const deadline = Date.now() + 120_000;
    let job;
    do {
      await page.waitForTimeout(250);
      job = (await apiAs(page, 'GET', `/jobs/${id}`)).body;
    } while (!['succeeded', 'failed', 'cancelled'].includes(job.state) && Date.now() < deadline);
    assert.equal(job.state, 'succeeded', JSON.stringify(job.error));
    assert.equal((await apiAs(page, 'DELETE', `/plots/${job.plotId}`)).status, 204);
    await step(page, 'jobs-plot-deleted', async () => {
      await page.goto(`${BASE_URL}/jobs/${id}`);
      await page.waitForSelector('[data-testid=job-plot-deleted]');
      assert.equal(await page.$('[data-testid=job-plot]'), null);
      await page.goto(`${BASE_URL}/jobs`);
      const row = await page.waitForSelector(`tr:has(a[href="/jobs/${id}"])`);
      assert.match(await row.textContent(), /plot deleted/);
      assert.equal(await row.$(`a[href^="/plots/"]`), null);
    });
    assert.deepEqual(problems, []);
  });

  test('the form\'s error goes when the field it is about changes, not before', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'wpv-e2e-jobform-'));
    const bad = path.join(tmp, 'bad.fasta');
    const good = path.join(tmp, 'good.fasta');
    await writeFile(bad, 'ACGT without a header\n');
    await writeFile(good, '>s1\nACGT\n');
    await step(page, 'jobs-form-error', async () => {
      await page.goto(`${BASE_URL}/jobs`);
      await page.selectOption('select[name=type]', 'sequence-clustering');
      await page.setInputFiles('[data-testid=job-file]', bad);
      await page.click('[data-testid=job-submit]');
      await page.waitForSelector('.job-form [role=alert]:has-text("line 1")');
      await page.fill('input[name=name]', 'another name');
      assert.ok(await page.isVisible('.job-form [role=alert]'), 'a change to another field keeps it');
      await page.setInputFiles('[data-testid=job-file]', good);
      assert.equal(await page.$('.job-form [role=alert]'), null, 'a new file clears the old file\'s error');
    });
    assert.deepEqual(problems, []);
  });
});
