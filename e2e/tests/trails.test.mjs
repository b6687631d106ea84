// Trails for analysts: a small stock-like time series, two points selected on the canvas,
// trails started from the selection, played, and the trail colour looked for in the pixels.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { cameraFromUrl, projector } from '../lib/project.mjs';
import { storedZip } from '../lib/zip.mjs';

const FRAMES = 12;
const STOCKS = 24;
// The first trail colour (client/src/viewer/trails.ts) and the canvas background it fades to.
const TRAIL = [255, 230, 0];
const BACKGROUND = [0x11, 0x14, 0x18];

/** Stock i of frame f: on a circle, the first two spiralling outwards week by week. */
function position(i, f) {
  const a = (2 * Math.PI * i) / STOCKS + (i < 2 ? 0.12 * f : 0);
  const r = 1 + (i < 2 ? 0.06 * f : 0);
  return [r * Math.cos(a), r * Math.sin(a), 0];
}

/**
 * Pixels of the trail's colour in a PNG, by how much of it they carry: "full" near the head,
 * "faded" for steps mixed with the background (older segments).
 */
async function trailPixels(page, png) {
  return page.evaluate(async ({ base64, color, bg }) => {
    const img = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
    const c = new OffscreenCanvas(img.width, img.height);
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, img.width, img.height).data;
    let full = 0, faded = 0;
    for (let i = 0; i < d.length; i += 4) {
      const w = (d[i] - bg[0]) / (color[0] - bg[0]); // share of the trail colour, from red
      if (w < 0.15) continue;
      const fits = [1, 2].every((k) => Math.abs(d[i + k] - (bg[k] + (color[k] - bg[k]) * w)) <= 14);
      if (fits && w > 0.9) full++;
      else if (fits && w < 0.8) faded++;
    }
    return { full, faded };
  }, { base64: png.toString('base64'), color: TRAIL, bg: BACKGROUND });
}

describe('trails', () => {
  let browser, page;
  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
  });
  after(async () => { await browser?.close(); });

  test('trails start from the selection, follow the points with their labels, fade, and name unknown labels', async () => {
    await step(page, 'trails', async () => {
      await register(page, uniqueName('analyst'), 'correct horse battery');
      const frames = Array.from({ length: FRAMES }, (_, f) => ({
        name: `week${String(f + 1).padStart(2, '0')}.txt`,
        text: Array.from({ length: STOCKS }, (_, i) => `${i} ${position(i, f).join(' ')} ${i % 3} T${String(i).padStart(2, '0')}`).join('\n') + '\n',
      }));
      const created = await apiAs(page, 'POST', '/plots', {
        base64: storedZip(frames).toString('base64'), filename: 'stocks.zip', fields: { name: 'e2e trails', visibility: 'private' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await page.goto(`${BASE_URL}/plots/${created.body.id}`);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      await page.waitForSelector('[data-testid=play]');

      // Select T00 and T01 by clicking them (shift adds), where the camera in the link puts them.
      await page.waitForTimeout(600); // the link follows the view after 250 ms
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const camera = cameraFromUrl(page.url());
      assert.ok(camera, 'the link carries the camera');
      const project = projector(camera, box.width, box.height);
      for (const i of [0, 1]) {
        const [x, y] = project(position(i, 0));
        if (i) await page.keyboard.down('Shift');
        await page.mouse.click(box.x + x, box.y + y);
      }
      await page.keyboard.up('Shift');
      await page.waitForSelector('[data-testid=trails-from-selection]:has-text("(2)")');
      const before = await trailPixels(page, await canvasShot(page));

      await page.click('[data-testid=trails-from-selection]');
      await page.waitForSelector('[data-testid=trail-following]:has-text("following 2")');
      await page.click('[data-testid=play]');
      await page.waitForFunction(() => Number(document.querySelector('[data-testid=frame-number]')?.textContent.split('/')[0]) >= 9, null, { timeout: 90_000 });
      await page.click('[data-testid=pause]');
      await page.waitForTimeout(300);

      // The clusters panel counts the frame shown (8 stocks each), not all 12 frames (96).
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=cluster-row] .count')].map((e) => e.textContent).join() === '8,8,8');

      // Name tags at the heads, next to where the points are now.
      const tags = await page.locator('[data-testid=trail-tag]').allTextContents();
      assert.deepEqual(tags.sort(), ['T00', 'T01']);
      const shot = await canvasShot(page);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, 'trails.png'), shot);
      const drawn = await trailPixels(page, shot);
      assert.ok(before.full + before.faded < 20, `no trail colour before the trails: ${JSON.stringify(before)}`);
      assert.ok(drawn.full > 60, `the trail colour near the head: ${JSON.stringify(drawn)}`);
      assert.ok(drawn.faded > 60, `older steps faded towards the background: ${JSON.stringify(drawn)}`);

      // Wider lines cover more pixels.
      await page.locator('[data-testid=trail-width]').fill('9');
      await page.waitForTimeout(300);
      const wide = await trailPixels(page, await canvasShot(page));
      assert.ok(wide.full + wide.faded > 1.8 * (drawn.full + drawn.faded), `width 9 against 3: ${JSON.stringify({ wide, drawn })}`);

      // Labels typed by hand: the unknown one is named, the known one followed.
      await page.fill('[data-testid=trail-labels]', 'AAPL, T05');
      await page.press('[data-testid=trail-labels]', 'Enter');
      await page.waitForSelector('[data-testid=trail-not-found]:has-text("AAPL")');
      await page.waitForSelector('[data-testid=trail-following]:has-text("following 1")');
      assert.deepEqual(await page.locator('[data-testid=trail-tag]').allTextContents(), ['T05']);

      // Smooth playback: between frames the head glides with its point, on the step from the
      // frame shown towards the next (it once stayed put while the point moved on).
      await page.fill('[data-testid=trail-labels]', 'T00');
      await page.press('[data-testid=trail-labels]', 'Enter');
      await page.waitForSelector('[data-testid=trail-following]:has-text("following 1")');
      await page.locator('[data-testid=timebar] label:has-text("Speed") select').selectOption('1');
      await page.check('[data-testid=timebar] label:has-text("smooth") input');
      const frameShown = () => page.textContent('[data-testid=frame-number]');
      const startFrame = await frameShown();
      await page.click('[data-testid=play]');
      await page.waitForFunction((f) => document.querySelector('[data-testid=frame-number]')?.textContent !== f, startFrame);
      await page.waitForTimeout(450); // about half way to the next frame at 1 frame/s
      await page.click('[data-testid=pause]');
      const from = parseInt(await frameShown(), 10) - 1;
      await page.waitForTimeout(400); // the link carries the camera
      const glideCamera = projector(cameraFromUrl(page.url()), box.width, box.height);
      const canvasBox = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const tagBox = await page.locator('[data-testid=trail-tag]').boundingBox();
      // TrailTags puts a tag 8 px right of and above its head.
      const head = [tagBox.x - canvasBox.x - 8, tagBox.y - canvasBox.y + 8];
      const [a, b] = [from, (from + 1) % FRAMES].map((f) => glideCamera(position(0, f)));
      const along = ((head[0] - a[0]) * (b[0] - a[0]) + (head[1] - a[1]) * (b[1] - a[1])) / ((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2);
      const off = Math.abs((head[0] - a[0]) * (b[1] - a[1]) - (head[1] - a[1]) * (b[0] - a[0])) / Math.hypot(b[0] - a[0], b[1] - a[1]);
      const glide = `head at ${head.map(Math.round)}, frame ${from + 1} at ${a.slice(0, 2).map(Math.round)}, next at ${b.slice(0, 2).map(Math.round)}`;
      assert.ok(along > 0.1 && along < 0.95, `the head is between the frames, ${along.toFixed(2)} of the way: ${glide}`);
      assert.ok(off < 2.5, `the head is on the step, ${off.toFixed(1)} px off: ${glide}`);
      writeFileSync(path.join(ARTIFACTS, 'trails-glide.png'), await canvasShot(page));

      await page.click('[data-testid=trails-clear]');
      await page.waitForSelector('[data-testid=trail-tag]', { state: 'detached' });
      await page.waitForTimeout(300);
      const cleared = await trailPixels(page, await canvasShot(page));
      assert.ok(cleared.full + cleared.faded < 20, `no trail colour once cleared: ${JSON.stringify(cleared)}`);
    });
  });
});
