// When the server cannot answer (QA pass 3, F6 and F12): a signed-in user whose session cannot be
// read is not shown as logged out but told why, and the page recovers by itself once the server
// answers again; a 500 says whether to retry and keeps its request id; a lockout reads in minutes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';
import { skipWithoutStack, whileStoreDown } from '../lib/store.mjs';

const PASSWORD = 'correct horse battery';
/** The library's list of plots (a glob's `?` would not match it literally). */
const LIBRARY_LIST = (url) => url.pathname === '/api/v1/plots';
const STORE_DOWN = { error: { code: 'store_unavailable', message: "the server's database is unavailable; try again in a few seconds" } };

describe('server trouble in the browser', () => {
  let browser, page, problems, user;

  /** The nav and page show neither the user nor "logged out": the session is unknown, with `banner` saying why. */
  async function assertUnknownSession(banner) {
    await page.waitForSelector(`[data-testid=server-outage]:has-text("${banner}")`, { timeout: 30_000 });
    assert.equal(await page.locator('.nav a:has-text("Log in")').count(), 0, 'no "Log in" link');
    assert.equal(await page.locator('[data-testid=login-prompt]').count(), 0, 'no "Log in to upload plots"');
    assert.equal(await page.locator('.error').count(), 0, 'no error under the banner');
  }
  /** Back by itself: the user, the library and no banner. */
  async function assertRecovered() {
    await page.waitForSelector(`[data-testid=username]:has-text("${user}")`, { timeout: 60_000 });
    await page.waitForSelector('[data-testid=plot-card]:has-text("kept plot")', { timeout: 30_000 });
    // Gone for good within seconds: a request caught by a real store's restart may raise it once more (CI saw it).
    await page.waitForSelector('[data-testid=server-outage]', { state: 'detached', timeout: 20_000 });
    await page.waitForTimeout(1000);
    assert.equal(await page.locator('[data-testid=server-outage]').count(), 0);
  }

  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    user = uniqueName('trouble');
    await register(page, user, PASSWORD);
    const res = await apiAs(page, 'POST', '/plots', { base64: Buffer.from('0 1 2 3 1\n1 2 3 4 1\n').toString('base64'), filename: 'p.txt', fields: { name: 'kept plot' } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });
  after(async () => { await browser?.close(); });

  test('a session the server cannot read (503 store_unavailable, then unreachable) is unknown, not logged out, and comes back by itself', async () => {
    await step(page, 'trouble-session-503', async () => {
      let refused = 0;
      await page.route('**/api/v1/auth/session', (route) => {
        refused++;
        return route.fulfill({ status: 503, headers: { 'Retry-After': '5' }, contentType: 'application/json', body: JSON.stringify(STORE_DOWN) });
      });
      // The library's own reads fail the same way while the store is down.
      await page.route(LIBRARY_LIST, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(STORE_DOWN) }));
      await page.goto(`${BASE_URL}/`);
      await assertUnknownSession("The server's database is unavailable; retrying…");
      // Asked again with back-off (1 s, then 2 s), not once and given up.
      const deadline = Date.now() + 10_000;
      while (refused < 3 && Date.now() < deadline) await page.waitForTimeout(200);
      assert.ok(refused >= 3, `${refused} session requests`);
      await page.unrouteAll();
      await assertRecovered();
    });
    await step(page, 'trouble-session-unreachable', async () => {
      await page.route('**/api/v1/auth/session', (route) => route.abort('connectionrefused'));
      await page.route(LIBRARY_LIST, (route) => route.abort('connectionrefused'));
      await page.reload();
      await assertUnknownSession('The server could not be reached; retrying…');
      await page.unrouteAll();
      await assertRecovered();
    });
    assert.deepEqual(problems, []);
  });

  test('an internal error says to retry and keeps its request id', async () => {
    await step(page, 'trouble-internal', async () => {
      await page.route(LIBRARY_LIST, (route) => route.fulfill({
        status: 500, contentType: 'application/json', headers: { 'X-Request-Id': 'req-42' },
        body: JSON.stringify({ error: { code: 'internal', message: 'internal error (request req-42)', requestId: 'req-42' } }),
      }));
      await page.goto(`${BASE_URL}/`);
      const alert = page.locator('[role=alert]');
      await alert.waitFor();
      assert.equal(await alert.textContent(),
        'Something went wrong on the server (request req-42). Try again; if it keeps happening, send the request id to the operator.');
      // Not an outage: the user stays signed in and no banner claims the server is unreachable.
      await page.waitForSelector(`[data-testid=username]:has-text("${user}")`);
      assert.equal(await page.locator('[data-testid=server-outage]').count(), 0);
      await page.unrouteAll();
    });
  });

  test('a locked account is told to wait in minutes, not seconds', async () => {
    const { page: other } = await newPage(browser);
    try {
      await step(other, 'trouble-lockout', async () => {
        await other.goto(`${BASE_URL}/login`);
        const statuses = await other.evaluate(async (username) => {
          const tries = [];
          for (let i = 0; i < 10; i++) {
            const res = await fetch('/api/v1/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password: 'not the password 1' }) });
            tries.push(res.status);
          }
          return tries;
        }, user);
        assert.deepEqual(statuses, Array(10).fill(401));
        await other.fill('input[name=username]', user);
        await other.fill('input[name=password]', PASSWORD);
        await other.click('button[type=submit]');
        const text = await other.locator('[role=alert]').textContent();
        assert.match(text, /try again in about 15 minutes$/);
        assert.doesNotMatch(text, /\d+ s\b/);
      });
    } finally {
      await other.context().close();
    }
  });

  test('a real store outage: the signed-in user is told the database is down, and the page recovers when it is back', skipWithoutStack, async () => {
    await page.goto(`${BASE_URL}/`);
    await page.waitForSelector('[data-testid=plot-card]:has-text("kept plot")');
    await whileStoreDown(async () => {
      await step(page, 'trouble-store-down', async () => {
        await page.reload();
        await assertUnknownSession("The server's database is unavailable; retrying…");
      });
    });
    await step(page, 'trouble-store-back', assertRecovered);
    assert.deepEqual(problems, []);
  });
});
