// The library's list when requests race: an older list answer landing after a newer one is not shown,
// and a plot being deleted stays "Deleting…" while a reload takes its card away and brings it back.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

const SHOTS = process.env.LIBRARY_SHOTS; // a folder for screenshots to look at, when set
const TEXT = '0 1.5 2 3 1\n1 -1 0.25 4 2\n2 7 8 9 1\n';

describe('the library page with racing requests', () => {
  let browser, page;
  const upload = async (name) => {
    const res = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(TEXT).toString('base64'), filename: 'p.txt', fields: { name } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };
  const cardNames = () => page.locator('[data-testid=plot-card] .plot-name').allTextContents();
  /** Holds the requests `matches` picks until `release()`; `held` resolves once the first is caught, `landed` once it is let through. */
  const hold = async (pattern, matches) => {
    let release, caught, landed;
    const released = new Promise((resolve) => (release = resolve));
    const held = new Promise((resolve) => (caught = resolve));
    const done = new Promise((resolve) => (landed = resolve));
    await page.route(pattern, async (route) => {
      if (!matches(route.request())) return route.fallback();
      caught();
      await released;
      // The page may have aborted it meanwhile: then there is nothing to answer.
      await route.fallback().catch(() => undefined);
      landed();
    });
    return { held, release, landed: done };
  };

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('race'), 'correct horse battery');
    for (const name of ['alpha plot', 'beta plot', 'doomed plot']) await upload(name);
    await page.goto(`${BASE_URL}/`);
    await page.click('button:has-text("My plots")');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=plot-card]').length === 3);
  });
  after(async () => { await browser?.close(); });

  test('a search\'s list answering after a newer search\'s is not shown', async () => {
    await step(page, 'library-race-search', async () => {
      const alpha = await hold('**/api/v1/plots?*', (r) => new URL(r.url()).searchParams.get('q') === 'alpha');
      await page.fill('[data-testid=library-search]', 'alpha');
      await alpha.held;
      await page.fill('[data-testid=library-search]', 'beta');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=plot-card]').length === 1);
      assert.deepEqual(await cardNames(), ['beta plot']);
      alpha.release();
      await alpha.landed;
      await page.waitForTimeout(500); // time for the late answer to be shown, were it taken
      assert.deepEqual(await cardNames(), ['beta plot'], 'the older search\'s answer, landing last, is not shown');
      assert.equal(await page.locator('[role=alert]').count(), 0, 'the aborted request shows no error');
      await page.unroute('**/api/v1/plots?*');
    });
  });

  test('a plot being deleted stays "Deleting…" when a reload takes its card away and brings it back', async () => {
    await step(page, 'library-race-delete', async () => {
      await page.fill('[data-testid=library-search]', '');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=plot-card]').length === 3);
      const card = page.locator('[data-testid=plot-card]:has-text("doomed plot")');
      const deleting = await hold('**/api/v1/plots/*', (r) => r.method() === 'DELETE');
      await card.locator('button:has-text("Edit")').click();
      page.once('dialog', (d) => void d.accept());
      await card.locator('button:has-text("Delete")').click();
      await deleting.held;
      await card.locator('button:has-text("Deleting…")').waitFor();

      await page.fill('[data-testid=library-search]', 'alpha');
      await card.waitFor({ state: 'detached' });
      await page.fill('[data-testid=library-search]', '');
      await card.waitFor();
      await card.locator('button:has-text("Deleting…")').waitFor({ timeout: 5000 });
      for (const name of ['Save', 'Cancel', 'Deleting…']) assert.ok(await card.locator(`button:has-text("${name}")`).isDisabled(), `${name} is disabled`);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: `${SHOTS}/library-deleting.png` });
      }

      deleting.release();
      await card.waitFor({ state: 'detached' });
      assert.deepEqual((await cardNames()).sort(), ['alpha plot', 'beta plot'], 'the reload after the delete keeps the filters as they are now');
      await page.unroute('**/api/v1/plots/*');
    });
  });
});
