// The end-to-end list, as one user's session plus a second user, against WPV_URL.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame,
} from '../lib/browser.mjs';
import { pixelDiff } from '../lib/pixels.mjs';
import { cameraFromUrl, projector } from '../lib/project.mjs';
import { storedZip } from '../lib/zip.mjs';

const TREE_SAMPLE = path.resolve(import.meta.dirname, '../../../shared/data/tree_sample.pviz');
const PASSWORD = 'correct horse battery';

describe('viewer end to end', () => {
  let browser, page, context;
  const user = uniqueName('alice');
  let plotId;
  let data; // positions and labels of the uploaded plot, from the API
  let known; // a point with no other point within 12 px on screen
  let viewUrl;

  before(async () => {
    browser = await launch();
    ({ page, context } = await newPage(browser));
  });
  after(async () => { await browser?.close(); });

  /** Back to the plot when an earlier step left it (each step can then fail on its own). */
  async function ensureViewer() {
    if (new URL(page.url()).pathname === `/plots/${plotId}`) return;
    await page.goto(`${BASE_URL}/plots/${plotId}`);
    await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
  }

  const canvasBox = () => page.locator('[data-testid=plot-canvas]').boundingBox();
  const settledUrl = async () => { await page.waitForTimeout(600); return page.url(); }; // the URL follows the view after 250 ms

  /** Screen positions of all points for the camera in the current URL. */
  async function projected() {
    const box = await canvasBox();
    const project = projector(cameraFromUrl(await settledUrl()), box.width, box.height);
    return { box, screen: data.positions.map((p) => project(p)) };
  }

  test('register, log out and log in through the page', async () => {
    await step(page, 'register', async () => {
      await register(page, user, PASSWORD);
      await page.click('button:has-text("Log out")');
      await page.waitForSelector('a:has-text("Log in")');
      await page.goto(`${BASE_URL}/login`);
      await page.fill('input[name=username]', user);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]:has-text("Log in")');
      await page.waitForSelector(`[data-testid=username]:has-text("${user}")`);
    });
  });

  test('upload tree_sample.pviz through the page and open it', async () => {
    await step(page, 'upload', async () => {
      await page.goto(BASE_URL + '/');
      await page.setInputFiles('[data-testid=upload-file]', TREE_SAMPLE);
      await page.fill('input[name=name]', 'e2e tree');
      // The owner's first view of a plot is stored as its thumbnail.
      const thumbnailPut = page.waitForResponse((r) => r.url().endsWith('/thumbnail') && r.request().method() === 'PUT', { timeout: 300_000 }).catch((e) => e);
      await page.click('[data-testid=upload-submit]');
      await page.waitForURL(/\/plots\/[^/?]+/, { timeout: 180_000 }); // parsing and storing take a while on a busy machine
      plotId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await page.textContent('[data-testid=plot-name]'), 'e2e tree');
      data = await page.evaluate(async (id) => {
        const buf = await (await fetch(`/api/v1/plots/${id}/frames/0/positions`)).arrayBuffer();
        const flat = Array.from(new Float32Array(buf));
        const labels = await (await fetch(`/api/v1/plots/${id}/frames/0/labels`)).json();
        return { positions: labels.map((_, i) => flat.slice(3 * i, 3 * i + 3)), labels };
      }, plotId);
      assert.equal(data.labels.length, 3640);
      const put = await thumbnailPut;
      assert.ok(!(put instanceof Error), `no thumbnail upload: ${put.message}`);
      assert.equal(put.status(), 204);
    });
  });

  test('the library finds the plot by search and shows its thumbnail', async () => {
    await step(page, 'library', async () => {
      await page.goto(BASE_URL + '/');
      await page.fill('[data-testid=library-search]', 'e2e tree');
      const card = page.locator('[data-testid=plot-card]', { hasText: 'e2e tree' });
      await card.waitFor();
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=plot-card] img.thumb')].some((img) => img.naturalWidth === 256));
      await page.fill('[data-testid=library-search]', 'no-such-plot-name-xyz');
      await page.waitForSelector('text=No plots match.');
    });
  });

  test('an API token made on the tokens page works with curl-style requests until revoked', async () => {
    await step(page, 'tokens', async () => {
      await page.goto(BASE_URL + '/tokens');
      await page.fill('input[placeholder="token name"]', 'e2e');
      await page.fill('input[placeholder="your password"]', PASSWORD);
      await page.click('button:has-text("Create token")');
      const token = (await page.textContent('[data-testid=new-token]')).trim();
      const mine = () => fetch(`${BASE_URL}/api/v1/plots?scope=mine`, { headers: { Authorization: `Bearer ${token}` } });
      const res = await mine();
      assert.equal(res.status, 200);
      assert.ok((await res.json()).items.some((p) => p.id === plotId));
      await page.click('tr:has-text("e2e") button:has-text("Revoke")');
      await page.waitForSelector('tr:has-text("e2e")', { state: 'detached' });
      assert.equal((await mine()).status, 401);
    });
  });

  test('hover a known point and read its label in the tooltip', async () => {
    await step(page, 'hover', async () => {
      await ensureViewer();
      const { box, screen } = await projected();
      const inside = (s) => s && s[0] > 40 && s[0] < box.width - 40 && s[1] > 40 && s[1] < box.height - 40;
      for (let i = 0; i < screen.length && !known; i++) {
        if (!inside(screen[i])) continue;
        const isolated = screen.every((s, j) => j === i || !s || Math.hypot(s[0] - screen[i][0], s[1] - screen[i][1]) > 12);
        if (isolated) known = { index: i, x: screen[i][0], y: screen[i][1] };
      }
      assert.ok(known, 'some point stands alone on screen');
      await page.mouse.move(box.x + known.x, box.y + known.y);
      await page.waitForSelector('[data-testid=tooltip]');
      assert.equal(await page.textContent('[data-testid=tooltip-label]'), data.labels[known.index]);
      await page.mouse.move(box.x + known.x + 15, box.y + known.y + 15);
      await page.mouse.move(box.x + 2, box.y + 2);
    });
  });

  test('hide the cluster of that point and see the pixels change', async () => {
    await step(page, 'hide-cluster', async () => {
      await ensureViewer();
      const clip = { x: known.x - 10, y: known.y - 10, width: 20, height: 20 };
      const before = await canvasShot(page, clip);
      const cluster = await page.evaluate(async ({ id, index }) => {
        const keys = new Uint32Array(await (await fetch(`/api/v1/plots/${id}/frames/0/clusters`)).arrayBuffer());
        const plot = await (await fetch(`/api/v1/plots/${id}`)).json();
        return plot.clusters.find((c) => c.key === keys[index]).label;
      }, { id: plotId, index: known.index });
      await page.fill('[data-testid=clusters-panel] input[type=search]', cluster);
      const row = page.locator('[data-testid=cluster-row]').first();
      assert.equal(await row.locator('.label').textContent(), cluster);
      await row.locator('input[type=checkbox]').uncheck();
      await page.waitForTimeout(300);
      const after = await canvasShot(page, clip);
      assert.ok(await pixelDiff(page, before, after) > 0.02, 'hiding the cluster changed the pixels around its point');
      assert.match(await settledUrl(), /[?&]hide=/);
    });
  });

  test('select by box and export the selection as CSV', async () => {
    await step(page, 'box-select', async () => {
      await ensureViewer();
      const { box, screen } = await projected();
      const [x0, y0, x1, y1] = [box.width * 0.35, box.height * 0.35, box.width * 0.65, box.height * 0.65];
      const hiddenIndex = known.index;
      const expected = screen.filter((s, i) => i !== hiddenIndex && s && s[0] >= x0 && s[0] <= x1 && s[1] >= y0 && s[1] <= y1).length;
      assert.ok(expected > 0);
      await page.click('[data-testid=tool-box]');
      await page.mouse.move(box.x + x0, box.y + y0);
      await page.mouse.down();
      await page.mouse.move(box.x + (x0 + x1) / 2, box.y + (y0 + y1) / 2, { steps: 3 });
      await page.mouse.move(box.x + x1, box.y + y1, { steps: 3 });
      await page.mouse.up();
      const count = Number(await page.textContent('[data-testid=selection-count]'));
      assert.ok(Math.abs(count - expected) <= 2, `selected ${count}, expected about ${expected}`);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
      const csv = (await readFile(await download.path(), 'utf8')).trim().split('\r\n');
      assert.equal(csv[0], 'index,label,cluster,x,y,z');
      assert.equal(csv.length - 1, count);
      for (const line of csv.slice(1, 20)) {
        const [index, label] = line.split(',');
        assert.equal(label, data.labels[Number(index)]);
      }
      await page.click('[data-testid=tool-orbit]');
    });
  });

  test('search a label: matches are reported and the camera flies to them', async () => {
    await step(page, 'search', async () => {
      await ensureViewer();
      const target = data.labels[100];
      const cameraBefore = cameraFromUrl(await settledUrl());
      await page.fill('[data-testid=label-search]', target);
      await page.press('[data-testid=label-search]', 'Enter');
      await page.waitForSelector('[data-testid=search-results]');
      assert.match(await page.textContent('[data-testid=search-results] h3'), /^[1-9]\d* match/);
      assert.ok(await page.locator('[data-testid=search-hit]', { hasText: target }).count() >= 1);
      await page.waitForTimeout(800); // the flight lasts 600 ms
      assert.notDeepEqual(cameraFromUrl(await settledUrl()).target, cameraBefore.target);
    });
  });

  test('the view link opens the same view in a new page', async () => {
    await step(page, 'view-link', async () => {
      await ensureViewer();
      await page.press('[data-testid=label-search]', 'Escape');
      await page.locator('[data-testid=plot-canvas]').click({ position: { x: 5, y: 5 } }); // focus away from inputs
      viewUrl = await settledUrl();
      const selected = await page.textContent('[data-testid=selection-count]');
      const shotA = await canvasShot(page);
      const second = await context.newPage();
      await second.goto(viewUrl);
      await waitFirstFrame(second);
      await second.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      await second.waitForTimeout(300);
      assert.equal(await second.textContent('[data-testid=selection-count]'), selected);
      const shotB = await canvasShot(second);
      const diff = await pixelDiff(page, shotA, shotB);
      assert.ok(diff < 0.01, `the reopened view differs in ${(diff * 100).toFixed(2)}% of pixels`);
      await second.close();
    });
  });

  test('a time series plays: the frame title advances', async () => {
    await step(page, 'time-series', async () => {
      const frames = Array.from({ length: 6 }, (_, f) => ({
        name: `day${String(f + 1).padStart(2, '0')}.txt`,
        text: Array.from({ length: 50 }, (_, i) => `${i} ${Math.cos(i + f / 3)} ${Math.sin(i + f / 3)} ${i / 50} ${i % 3} S${i}`).join('\n') + '\n',
      }));
      const zip = storedZip(frames);
      const created = await apiAs(page, 'POST', '/plots', {
        base64: zip.toString('base64'), filename: 'series.zip', fields: { name: 'e2e series', visibility: 'private' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.frames, 6);
      await page.goto(`${BASE_URL}/plots/${created.body.id}`);
      await waitFirstFrame(page);
      const first = await page.textContent('[data-testid=frame-title]');
      await page.click('[data-testid=play]');
      await page.waitForFunction((t) => document.querySelector('[data-testid=frame-title]')?.textContent !== t, first, { timeout: 90_000 });
      const titles = new Set();
      for (let k = 0; k < 10; k++) { titles.add(await page.textContent('[data-testid=frame-title]')); await page.waitForTimeout(150); }
      assert.ok(titles.size >= 2, 'several frames were shown while playing');
    });
  });

  test('another user cannot open the private plot', async () => {
    const other = await newPage(browser);
    try {
      await step(other.page, 'private-plot', async () => {
        await register(other.page, uniqueName('bob'), PASSWORD);
        await other.page.goto(`${BASE_URL}/plots/${plotId}`);
        await other.page.waitForSelector('[role=alert]', { timeout: 120_000 });
        assert.match(await other.page.textContent('[role=alert]'), /does not exist, or it is private/);
        assert.equal((await apiAs(other.page, 'GET', `/plots/${plotId}`)).status, 404);
        assert.equal((await apiAs(other.page, 'GET', `/plots/${plotId}/frames/0/positions`)).status, 404);
      });
    } finally {
      await other.context.close();
    }
  });
});
