// A running job's page while the store (FerretDB) is down (QA pass 4, F9): the events stream says
// it cannot read the job, so the page shows the app's outage banner instead of a bar frozen without
// a word, and follows the job again once the store is back.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';
import { skipWithoutStack, whileStoreDown } from '../lib/store.mjs';

const SCREENSHOTS = process.env.JOB_SCREENSHOTS; // e.g. /tmp/s20/misc: the job page during the outage, 1400×900

/** `rows` random 8-D vectors as CSV (a name column first): 3,000 run for several seconds. */
function vectors(rows) {
  let seed = 11;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) * 2 - 1;
  const lines = Array.from({ length: rows }, (_, i) => [`v${i}`, ...Array.from({ length: 8 }, () => random().toFixed(4))].join(','));
  return ['name,a,b,c,d,e,f,g,h', ...lines].join('\n') + '\n';
}

describe('a job page during a store outage', () => {
  let browser, page, problems;

  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('jobsdown'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('a running job shows the outage banner while the store is down, and goes on once it is back', skipWithoutStack, async () => {
    const base64 = Buffer.from(vectors(3000)).toString('base64');
    const res = await apiAs(page, 'POST', '/jobs', { base64, filename: 'vectors.csv', fields: { type: 'vectors', name: 'e2e outage', params: '{"labelColumn":0}' } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await page.goto(`${BASE_URL}/jobs/${res.body.id}`);
    await page.waitForSelector('.job-stage[data-state=running]', { timeout: 120_000 });

    await whileStoreDown(async () => {
      await step(page, 'jobs-outage-banner', async () => {
        // No reload: the open page learns it from its events stream.
        await page.waitForSelector('[data-testid=server-outage]:has-text("The server\'s database is unavailable; retrying…")', { timeout: 15_000 });
        assert.equal(await page.locator('[data-testid=job-state]').textContent(), 'running');
      });
      if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, 'job-store-outage.png') });
    });
    await step(page, 'jobs-outage-over', async () => {
      await page.waitForSelector('[data-testid=server-outage]', { state: 'detached', timeout: 60_000 });
      await page.waitForSelector('[data-testid=job-state]:has-text("succeeded")', { timeout: 180_000 });
    });
    assert.deepEqual(problems, []);
  });
});
