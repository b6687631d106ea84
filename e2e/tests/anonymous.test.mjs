// An anonymous visitor: a public plot's page and the library work and the browser console stays
// clean (no 401 from a session check or an owner's list, no other errors); pages that need an
// account ask to log in; an unknown address gets the app's not-found page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';

describe('anonymous visitor', () => {
  let browser, owner;
  let plotId;

  before(async () => {
    browser = await launch();
    ({ page: owner } = await newPage(browser));
    await register(owner, uniqueName('anon'), 'correct horse battery');
    const csv = 'x,y,z,cluster,label\n0,0,0,a,p0\n1,1,1,b,p1\n2,0,1,a,p2\n';
    const created = await apiAs(owner, 'POST', '/plots', { base64: Buffer.from(csv).toString('base64'), filename: 'anon.csv', fields: { name: 'anon', visibility: 'public' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plotId = created.body.id;
  });
  after(async () => { await browser?.close(); });

  test('opens a public plot with no console errors', async () => {
    const { page, problems } = await newPage(browser); // a fresh context: no session cookie
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await step(page, 'anonymous-console', async () => {
      const session = await page.request.get(`${BASE_URL}/api/v1/auth/session`);
      assert.equal(session.status(), 200);
      assert.deepEqual(await session.json(), { username: null });
      await page.goto(`${BASE_URL}/plots/${plotId}`);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      await page.waitForSelector('a:has-text("Log in")');
      await page.waitForTimeout(500); // late requests (labels, edges) have answered
      assert.deepEqual(errors, []);
      assert.deepEqual(problems, []);
    });
  });

  /** A fresh context (no session cookie) whose console errors and page errors are collected. */
  async function anonymousPage() {
    const { page, problems } = await newPage(browser);
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    return { page, problems };
  }

  test('the library home page asks for nothing an anonymous visitor may not see', async () => {
    const { page, problems } = await anonymousPage();
    await step(page, 'anonymous-home', async () => {
      const answered = [];
      page.on('response', (r) => { if (r.url().includes('/api/')) answered.push(`${r.status()} ${new URL(r.url()).pathname}`); });
      await page.goto(`${BASE_URL}/`);
      await page.waitForSelector('[data-testid=plot-card]');
      await page.waitForTimeout(500); // the tag list and anything else late has answered
      assert.deepEqual(answered.filter((a) => !a.startsWith('200')), []);
      assert.deepEqual(problems, []);
    });
  });

  test('a job page asks to log in, with a link, rather than showing the API\'s refusal', async () => {
    const { page, problems } = await anonymousPage();
    await step(page, 'anonymous-job', async () => {
      await page.goto(`${BASE_URL}/jobs/some-job`);
      const prompt = page.locator('main [data-testid=login-prompt]');
      assert.equal(await prompt.textContent(), 'Log in to see this job.');
      assert.equal(await prompt.locator('a').getAttribute('href'), '/login');
      assert.equal(await page.locator('main [role=alert]').count(), 0);
      assert.deepEqual(problems, []);
    });
  });

  test('an unknown address gets the app\'s not-found page with a 404; an unknown API path a JSON 404', async () => {
    const { page } = await anonymousPage();
    await step(page, 'not-found', async () => {
      const response = await page.goto(`${BASE_URL}/no/such/page`);
      assert.equal(response.status(), 404);
      await page.waitForSelector('header.nav');
      assert.equal(await page.textContent('main h1'), 'Page not found');
      assert.equal(await page.getAttribute('main a', 'href'), '/');
      const api = await page.request.get(`${BASE_URL}/api/no/such`);
      assert.equal(api.status(), 404);
      assert.equal((await api.json()).error.code, 'not_found');
    });
  });

  test('embed mode (?embed=1): canvas and a link out, no bars, and the page may be framed', async () => {
    const { page } = await newPage(browser);
    await step(page, 'embed', async () => {
      const response = await page.goto(`${BASE_URL}/plots/${plotId}?embed=1`);
      assert.match(response.headers()['content-security-policy'] ?? '', /frame-ancestors \*/);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await page.locator('header.nav').count(), 0);
      assert.equal(await page.locator('aside.sidebar').count(), 0);
      assert.equal(await page.locator('.toolbar').count(), 0);
      const link = await page.getAttribute('[data-testid=embed-link]', 'href');
      assert.ok(link.startsWith(`/plots/${plotId}`) && !link.includes('embed'), link);
      await page.waitForTimeout(600); // the URL follows the view and keeps the embed flag
      assert.equal(new URL(page.url()).searchParams.get('embed'), '1');
    });
  });
});
