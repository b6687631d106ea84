// The viewer's sidebar and messages stay put and say what they should: search results open over
// the panels, Find frames only the matches that are shown (and says when all are hidden), the
// parent/children line keeps its place while it loads, "Saved views" has no gap under it,
// notices go by themselves (not while hovered) and are announced, and a single-frame plot's link
// drops a link's trails and speed.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';

const SHOTS = process.env.VIEWER_SHOTS; // a folder for screenshots at 1400×900, when set
// Three clusters; "beta" holds the one point p1.
const CSV = 'x,y,z,cluster,label\n-1,0,0,alpha,p0\n1,0.5,0,beta,p1\n0,-1,0,gamma,p2\n0.5,0.5,0,alpha,q3\n';

describe('viewer: steady layout, search of hidden points, notices', () => {
  let browser, page, plot, beta;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('steady'), 'correct horse battery');
    const created = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(CSV).toString('base64'), filename: 'steady.csv', fields: { name: 'e2e steady' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
    beta = plot.clusters.find((c) => c.label === 'beta').key;
  });
  after(async () => { await browser?.close(); });

  async function open(query = '') {
    await page.goto(`${BASE_URL}/plots/${plot.id}${query}`);
    await waitFirstFrame(page);
    await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
  }
  const box = (selector) => page.locator(selector).boundingBox();
  const settledCamera = async () => { await page.waitForTimeout(1500); return new URL(page.url()).searchParams.get('cam'); }; // flight, then the link after 250 ms
  async function shot(name) {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}.png` });
  }
  async function find(text) {
    await page.fill('[data-testid=label-search]', text);
    await page.press('[data-testid=label-search]', 'Enter');
    await page.waitForSelector(`[data-testid=search-results] h3:has-text("for “${text}”")`);
  }

  test('search results open over the panels; a search whose matches are all hidden leaves the view and says so', async () => {
    await step(page, 'search-hidden', async () => {
      await open(`?hide=${beta}`);
      const clusters = await box('[data-testid=clusters-panel]');
      await find('p');
      assert.deepEqual(await box('[data-testid=clusters-panel]'), clusters, 'the results did not push the clusters down');
      assert.equal(await page.locator('[data-testid=search-all-hidden]').count(), 0, 'two of three matches are shown');

      const camera = await settledCamera();
      await find('p1');
      await page.getByTestId('search-all-hidden').waitFor();
      assert.match(await page.getByTestId('search-all-hidden').innerText(), /^It is in a hidden cluster, so the view stays: pick it to show its cluster\.$/);
      assert.equal(await settledCamera(), camera, 'the camera did not fly to the hidden point');
      await shot('search-all-hidden');

      await page.fill('[data-testid=label-search]', 'zzz');
      await page.press('[data-testid=label-search]', 'Enter');
      await page.getByTestId('search-not-found').waitFor();
      assert.deepEqual(await box('[data-testid=clusters-panel]'), clusters, '"not found" did not push the clusters down');
    });
  });

  test('no gap under "Saved views"', async () => {
    await step(page, 'saved-views-gap', async () => {
      await open();
      const heading = await box('.views h3');
      const form = await box('.views form');
      const gap = form.y - (heading.y + heading.height);
      assert.ok(gap <= 8, `${gap} px between the heading and the form`);
    });
  });

  test('the parent/children line keeps its place while their names load', async () => {
    await step(page, 'plot-links-loading', async () => {
      // The plot is shown as the re-clustering of another, whose name comes late.
      const parent = `${plot.id}-parent`;
      await page.route(`**/api/v1/plots/${plot.id}`, async (route) => {
        const response = await route.fetch();
        await route.fulfill({ response, json: { ...(await response.json()), parent } });
      });
      let answer;
      const answered = new Promise((resolve) => { answer = resolve; });
      await page.route(`**/api/v1/plots/${parent}`, async (route) => { await answered; await route.fulfill({ json: { ...plot, id: parent, name: 'the parent plot' } }); });
      try {
        await page.goto(`${BASE_URL}/plots/${plot.id}`);
        await page.getByTestId('clusters-panel').waitFor();
        const loading = await box('[data-testid=clusters-panel]');
        answer();
        await page.getByTestId('plot-parent').waitFor();
        assert.match(await page.getByTestId('plot-parent').innerText(), /re-clustered from the parent plot/);
        assert.deepEqual(await box('[data-testid=clusters-panel]'), loading, 'the links line did not push the panels down');
      } finally {
        await page.unrouteAll({ behavior: 'ignoreErrors' });
      }
    });
  });

  test('a notice is announced, stays while hovered and goes by itself; a single frame\'s link drops trails and speed', async () => {
    await step(page, 'notice-goes', async () => {
      const said = page.waitForSelector('[data-testid=notice]:has-text("no column")');
      const opened = open('?colorby=nosuch&trail=p1&fps=20');
      const notice = await said;
      await notice.hover(); // at once: the notice's time runs while the page loads
      await opened;
      assert.equal(await page.locator('[role=status]:has([data-testid=notice])').count(), 1, 'in a live region');
      await page.waitForTimeout(8000); // longer than the notice's time
      assert.equal(await page.getByTestId('notice').count(), 1, 'kept while hovered');
      await page.mouse.move(100, 600);
      await page.getByTestId('notice').waitFor({ state: 'detached', timeout: 12_000 });
      assert.equal(await page.locator('[role=status]').count(), 1, 'the live region stays for the next notice');

      const params = new URL(page.url()).searchParams;
      assert.deepEqual([params.getAll('trail'), params.get('fps')], [[], null], `no trails or speed in the link of a single frame: ${page.url()}`);
    });
  });
});
