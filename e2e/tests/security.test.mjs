// The Content-Security-Policy against the real built client: the viewer runs with scripts from
// this origin only (no violation reported), the plot page's preloads still start, and only a
// public plot's ?embed=1 page can be framed by another origin.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';

const POINTS = Array.from({ length: 200 }, (_, i) => `${i} ${Math.cos(i)} ${Math.sin(i)} ${i / 100} ${i % 4}`).join('\n');

describe('security headers in the browser', () => {
  let browser, page, violations, framer, framerUrl;
  const plots = {};

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    violations = [];
    page.on('console', (m) => /Content Security Policy|Refused to (load|execute|frame)/i.test(m.text()) && violations.push(m.text()));
    await register(page, uniqueName('csp'), 'correct horse battery');
    for (const visibility of ['public', 'private']) {
      const res = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(POINTS).toString('base64'), filename: 'p.txt', fields: { name: visibility, visibility } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      plots[visibility] = res.body.id;
    }
    // Another origin (another port) whose page frames ours.
    framer = http.createServer((req, res) => {
      const src = new URL(req.url, 'http://x').searchParams.get('src');
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><iframe id="f" width="600" height="400" src="${src}"></iframe>`);
    });
    await new Promise((resolve) => framer.listen(0, '127.0.0.1', resolve));
    framerUrl = `http://127.0.0.1:${framer.address().port}/`;
  });
  after(async () => {
    framer?.close();
    await browser?.close();
  });

  test('the viewer draws a plot with no CSP violation, its data preloaded by /preload.js', async () => {
    await step(page, 'csp-viewer', async () => {
      const preloads = [];
      page.on('request', (r) => r.url().includes(`/api/v1/plots/${plots.private}/frames/0/positions`) && preloads.push(r.url()));
      await page.goto(`${BASE_URL}/plots/${plots.private}`);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.ok(preloads.length >= 1, 'the positions were requested');
      const preloadLinks = await page.evaluate(() => [...document.querySelectorAll('link[rel=preload]')].map((l) => l.getAttribute('href')));
      assert.ok(preloadLinks.some((href) => href.endsWith('/frames/0/positions')), JSON.stringify(preloadLinks));
      assert.deepEqual(violations, []);
    });
  });

  /** Whether the framed page of `path` got to run its scripts inside another origin's frame. */
  async function framedRuns(path) {
    const { page: outer } = await newPage(browser);
    await outer.goto(`${framerUrl}?src=${encodeURIComponent(BASE_URL + path)}`);
    await outer.waitForTimeout(3000);
    const frame = outer.frames().find((f) => f !== outer.mainFrame());
    const runs = frame ? await frame.evaluate(() => document.querySelector('#root')?.childElementCount > 0).catch(() => false) : false;
    await outer.close();
    return runs;
  }

  test('another origin can frame a public plot with ?embed=1, and nothing else', async () => {
    await step(page, 'csp-embed', async () => {
      assert.equal(await framedRuns(`/plots/${plots.public}?embed=1`), true, 'public plot, embed mode');
      assert.equal(await framedRuns(`/plots/${plots.public}`), false, 'public plot, normal page');
      assert.equal(await framedRuns(`/plots/${plots.private}?embed=1`), false, 'private plot');
      assert.equal(await framedRuns('/'), false, 'the library');
    });
  });
});
