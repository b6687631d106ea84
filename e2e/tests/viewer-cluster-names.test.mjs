// The viewer's cluster names and the links to points: an empty name or another cluster's is refused
// with the old name kept, a long name is readable on hover and the list takes the sidebar's free
// space, a search hit in a hidden cluster shows its cluster, and "Copy link" says it copied.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { cameraFromUrl, projector } from '../lib/project.mjs';

const SHOTS = process.env.VIEWER_SHOTS ?? '/tmp/s19/viewer2';
const LONG = 'FN547657_Div_a Ascomycota environmental sample';
// Three clusters on a line; "beta" holds the one point p1.
const CSV = `x,y,z,cluster,label\n-1,0,0,alpha,p0\n1,0.5,0,beta,p1\n0,-1,0,${LONG},p2\n`;

describe('viewer: cluster names, hidden search hits, copy link', () => {
  let browser, page, context, plot;

  before(async () => {
    browser = await launch();
    ({ page, context } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
    mkdirSync(SHOTS, { recursive: true });
    await register(page, uniqueName('names'), 'correct horse battery');
    const created = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(CSV).toString('base64'), filename: 'names.csv', fields: { name: 'e2e names' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
  });
  after(async () => { await browser?.close(); });

  async function open() {
    await page.goto(`${BASE_URL}/plots/${plot.id}`);
    await waitFirstFrame(page);
    await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
    await page.waitForFunction(() => new URL(location.href).searchParams.has('cam')); // the URL follows the view after 250 ms
  }

  const clusterRow = (label) => page.locator('[data-testid=cluster-row]', { has: page.locator('.label', { hasText: new RegExp(`^${label}$`) }) });
  const storedLabels = async () => (await apiAs(page, 'GET', `/plots/${plot.id}`)).body.clusters.map((c) => c.label);

  async function rename(from, to) {
    await clusterRow(from).locator('.label').dblclick();
    await page.fill('[data-testid=cluster-row] input.rename', to);
    await page.keyboard.press('Enter');
  }

  test('an empty name and another cluster\'s name are refused, saying why, and the old name is kept', async () => {
    await step(page, 'rename-refused', async () => {
      await open();
      const before = await storedLabels();
      await rename('beta', '   ');
      await page.waitForSelector('.messages .error:has-text("A cluster needs a name: “beta” keeps its name.")');
      await clusterRow('beta').waitFor();

      await page.click('.messages .error'); // dismissed
      await rename('beta', 'alpha');
      const refused = await page.textContent('.messages .error');
      assert.match(refused, /Another cluster \(key \d+\) is already named “alpha”: “beta” keeps its name/);
      await clusterRow('beta').waitFor();
      assert.equal(await clusterRow('alpha').count(), 1);
      assert.deepEqual(await storedLabels(), before);
    });
  });

  test('a long name is whole in the tooltip, for the owner too, and the list fills the sidebar', async () => {
    await step(page, 'long-names', async () => {
      await open();
      assert.equal(await clusterRow(LONG).locator('.label').getAttribute('title'), `${LONG} — click to pick, double-click to rename`);
      const list = await page.locator('[data-testid=clusters-panel] .vlist').boundingBox();
      const sidebar = await page.locator('.sidebar').boundingBox();
      const last = await page.locator('.sidebar fieldset > :last-child').boundingBox();
      assert.ok(list.height > 300, `the list is ${list.height} px high`);
      assert.ok(sidebar.y + sidebar.height - (last.y + last.height) < 40, 'empty space is left at the bottom of the sidebar');
      await page.screenshot({ path: `${SHOTS}/long-names.png` });
    });
  });

  test('a search hit in a hidden cluster says so, and going to it shows the cluster', async () => {
    await step(page, 'search-hidden', async () => {
      await open();
      await clusterRow('beta').locator('input[type=checkbox]').uncheck();
      await page.waitForFunction(() => new URL(location.href).searchParams.has('hide'));
      await page.fill('[data-testid=label-search]', 'p1');
      await page.press('[data-testid=label-search]', 'Enter');
      assert.equal(await page.textContent('[data-testid=search-hit-hidden]'), ' in hidden cluster “beta”');
      await page.screenshot({ path: `${SHOTS}/search-hidden-before.png` });

      await page.click('[data-testid=search-hit]');
      await page.waitForSelector('[data-testid=notice]:has-text("“p1” is in cluster “beta”, which was hidden: the cluster is shown again.")');
      assert.ok(await clusterRow('beta').locator('input[type=checkbox]').isChecked());
      await page.waitForTimeout(900); // the flight lasts 600 ms, the URL follows 250 ms later
      assert.ok(!new URL(page.url()).searchParams.has('hide'));
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const [x, y] = projector(cameraFromUrl(page.url()), box.width, box.height)([1, 0.5, 0]);
      assert.ok(Math.abs(x - box.width / 2) < 5 && Math.abs(y - box.height / 2) < 5, `p1 is drawn at ${x}, ${y}, not in the middle`);
      await page.screenshot({ path: `${SHOTS}/search-hidden-after.png` });
    });
  });

  test('"Copy link" on a private plot copies it for its owner, says so, and only offers to make it public', async () => {
    await step(page, 'copy-link-private', async () => {
      await open();
      const dialogs = [];
      const answer = (d) => { dialogs.push(d.message()); void d.dismiss(); };
      page.on('dialog', answer);
      try {
        await page.click('[data-testid=copy-link]');
        await page.waitForSelector('[data-testid=notice]:has-text("Link copied. The plot is private: only you can open it.")');
      } finally { page.off('dialog', answer); }
      assert.equal(dialogs.length, 1);
      assert.match(dialogs[0], /^Link copied\. This plot is private/);
      const copied = new URL(await page.evaluate(() => navigator.clipboard.readText()));
      assert.equal(copied.pathname, `/plots/${plot.id}`);
      assert.equal((await apiAs(page, 'GET', `/plots/${plot.id}`)).body.visibility, 'private');
    });
  });
});
