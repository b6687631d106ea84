// The viewer of a stock-like time series. A plot that goes away while its viewer is open (deleted,
// or made private to someone else), and a private plot opened embedded by someone who may not see
// it: the viewer says so, in words a user understands, and stops asking the server (a 404 is not
// retried). The link: what it asks for that cannot be used is reported and dropped, and it keeps
// the followed trails and the speed. The time bar does not move the slider or resize the canvas,
// nor does waiting for a frame.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { storedZip } from '../lib/zip.mjs';

const FRAMES = 60;
const STOCKS = 24;
const SHOTS = process.env.VIEWER_SHOTS; // a folder for screenshots at 1400×900, when set

function stockZip() {
  const frames = Array.from({ length: FRAMES }, (_, f) => ({
    name: `day${String(f + 1).padStart(3, '0')}.txt`,
    text: Array.from({ length: STOCKS }, (_, i) => {
      const a = (2 * Math.PI * i) / STOCKS + 0.05 * f;
      return `${i} ${Math.cos(a)} ${Math.sin(a)} 0 ${i % 3} T${String(i).padStart(2, '0')}`;
    }).join('\n') + '\n',
  }));
  return storedZip(frames).toString('base64');
}

async function shot(page, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}

async function createPlot(page, name) {
  const created = await apiAs(page, 'POST', '/plots', { base64: stockZip(), filename: 'stocks.zip', fields: { name, visibility: 'private' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

async function openPlot(page, url) {
  await page.goto(url);
  await waitFirstFrame(page);
  await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
  await page.waitForSelector('[data-testid=play]');
}

const box = (page, selector) => page.locator(selector).boundingBox();

describe('time-series viewer', () => {
  let browser, owner;
  before(async () => {
    browser = await launch();
    ({ page: owner } = await newPage(browser));
    if (SHOTS) await owner.setViewportSize({ width: 1400, height: 900 });
    await register(owner, uniqueName('series'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('the link: a frame out of range is not asked for, what is ignored is said and dropped', async () => {
    const plotId = await createPlot(owner, 'e2e link state');
    await step(owner, 'link-ignored', async () => {
      const frameRequests = [];
      const record = (r) => { if (r.url().includes('/frames/')) frameRequests.push(new URL(r.url()).pathname); };
      owner.on('request', record);
      // Notices go after a few seconds: each is awaited while the page loads, not after.
      let said = owner.waitForSelector('[data-testid=notice]:has-text("60 frame(s); showing the first")');
      await openPlot(owner, `${BASE_URL}/plots/${plotId}?f=999`);
      await said;
      owner.off('request', record);
      assert.deepEqual(frameRequests.filter((p) => p.includes('/frames/999/')), [], 'frame 999 of 60 is never requested');
      await owner.waitForTimeout(600); // the link follows the view after 250 ms
      assert.equal(new URL(owner.url()).searchParams.get('f'), null, 'showing the first frame');

      said = owner.waitForSelector('[data-testid=notice]:has-text("no column")').then((notice) => notice.innerText());
      await openPlot(owner, `${BASE_URL}/plots/${plotId}?colorby=nosuch&labelby=nosuch`);
      // Both parameters name one column: it is named once.
      assert.match(await said, /^This plot has no column “nosuch”: the points keep their own colours and labels\./);
      await owner.waitForTimeout(600);
      const params = new URL(owner.url()).searchParams;
      assert.deepEqual([params.get('colorby'), params.get('labelby')], [null, null], `the unknown column left the link: ${owner.url()}`);

      await owner.goto(`${BASE_URL}/plots/${plotId}?f=-3`);
      assert.match(await owner.getByTestId('notice').innerText(), /"-3" is not a frame: f counts frames from 0/);
    });
  });

  test('followed trails and the speed are kept in the link and restored on reload; the time bar keeps its layout', async () => {
    const plotId = await createPlot(owner, 'e2e trails in the link');
    await step(owner, 'trails-in-link', async () => {
      await openPlot(owner, `${BASE_URL}/plots/${plotId}`);
      const scrub = await box(owner, '.timebar .scrub');
      const canvas = await box(owner, '[data-testid=plot-canvas]');
      await owner.getByTestId('speed').selectOption('20');
      await owner.getByTestId('trail-labels').fill('T00, T01, NOPE99');
      await owner.getByTestId('trail-labels').press('Enter');
      await owner.getByTestId('trail-following').waitFor();
      assert.deepEqual(await box(owner, '[data-testid=plot-canvas]'), canvas, 'the trail status line does not resize the canvas');
      await owner.getByTestId('play').click();
      assert.deepEqual(await box(owner, '.timebar .scrub'), scrub, 'Pause is as wide as Play');
      await owner.getByTestId('pause').click();
      assert.deepEqual(await box(owner, '.timebar .scrub'), scrub);

      await owner.waitForTimeout(600);
      const params = new URL(owner.url()).searchParams;
      assert.deepEqual(params.getAll('trail'), ['T00', 'T01', 'NOPE99']);
      assert.equal(params.get('fps'), '20');
      await owner.reload();
      await owner.getByTestId('trail-following').waitFor();
      assert.equal(await owner.getByTestId('trail-following').innerText(), 'following 2');
      assert.match(await owner.getByTestId('trail-not-found').innerText(), /NOPE99/);
      assert.equal(await owner.getByTestId('speed').inputValue(), '20');
    });
  });

  test('waiting for a frame ("buffering…") and the frame number do not move the slider', async () => {
    const plotId = await createPlot(owner, 'e2e buffering');
    await step(owner, 'buffering', async () => {
      const slow = /\/frames\/[3-5]\d\//; // frames 30-59 come late: playback catches up and waits
      await owner.route(slow, async (route) => {
        await new Promise((done) => setTimeout(done, 3000));
        await route.continue().catch(() => undefined); // the page may have moved on meanwhile
      });
      try {
        await openPlot(owner, `${BASE_URL}/plots/${plotId}?fps=30`);
        const scrub = await box(owner, '.timebar .scrub');
        await owner.getByTestId('play').click();
        await owner.waitForSelector('[data-testid=buffering]:not(.idle)', { timeout: 20_000 });
        await shot(owner, 'buffering');
        assert.deepEqual(await box(owner, '.timebar .scrub'), scrub, `the slider at frame ${await owner.getByTestId('frame-number').innerText()}, buffering`);
        await owner.getByTestId('pause').click();
      } finally {
        await owner.unroute(slow);
      }
    });
  });

  test('a private plot embedded for someone who may not see it says so in the frame', async () => {
    const plotId = await createPlot(owner, 'e2e private embedded');
    const { page: stranger, context } = await newPage(browser);
    if (SHOTS) await stranger.setViewportSize({ width: 1400, height: 900 });
    await step(stranger, 'embed-private', async () => {
      await stranger.goto(`${BASE_URL}/plots/${plotId}?f=30&embed=1`);
      const message = stranger.getByTestId('plot-unavailable');
      await message.waitFor();
      assert.match(await message.innerText(), /does not exist, or it is private/);
      assert.equal(await stranger.locator('.loading').count(), 0, 'no "Loading…" under the message');
      assert.equal(await stranger.getByTestId('embed-link').count(), 0, 'no "open in WebPlotViz" to the same message');
      await shot(stranger, 'embed-private');
    });
    await context.close();
  });

  test('deleted while open: one 404 stops playback and trails, the viewer says so and disables its controls', async () => {
    const plotId = await createPlot(owner, 'e2e deleted while open');
    await step(owner, 'deleted-while-open', async () => {
      await openPlot(owner, `${BASE_URL}/plots/${plotId}`);
      await owner.waitForTimeout(500); // the first frames' prefetch settles

      // Requests answered 404. Trails and playback ask for frames through one gate, which asks
      // for a frame in flight once and for none after the first 404: each is asked for once.
      const notFound = [];
      owner.on('response', (r) => { if (r.status() === 404) notFound.push(new URL(r.url()).pathname); });
      const deleted = await apiAs(owner, 'DELETE', `/plots/${plotId}`);
      assert.equal(deleted.status, 204);

      await owner.getByTestId('play').click(); // plays the frames in memory
      await owner.getByTestId('trail-labels').fill('T00'); // needs every frame
      await owner.getByTestId('trail-labels').press('Enter');
      const message = owner.getByTestId('plot-unavailable');
      await message.waitFor({ timeout: 10_000 });
      await owner.waitForTimeout(1500); // anything still firing would show up here
      await shot(owner, 'deleted-while-open');

      assert.match(await message.innerText(), /deleted, or it is no longer shared with you/);
      assert.equal(await message.getByRole('link').getAttribute('href'), '/');
      const retried = notFound.filter((p) => notFound.filter((q) => q === p).length > 1);
      assert.deepEqual(retried, [], `no request answered 404 is retried (all: ${notFound.join(' ')})`);
      assert.ok(notFound.length <= 16, `a handful of 404s, not a burst: ${notFound.length}`);
      assert.equal(await owner.locator('[data-testid=pause]').count(), 0, 'playback stopped');
      assert.equal(await owner.getByTestId('play').isDisabled(), true, 'Play is disabled');
      assert.equal(await owner.getByTestId('label-search').isDisabled(), true, 'search is disabled');
      assert.equal(await owner.locator('[data-testid=trail-following]').count(), 0, 'no trail claims to be followed');
    });
  });
});
