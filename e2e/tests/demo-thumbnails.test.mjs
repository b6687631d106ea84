// The demo plots (scripts/up.sh loads them with server/src/cli/demo.ts) show a thumbnail in the
// library before anyone has opened them: the loader draws one on the server. The tree sample comes
// with its tree attached (made from the polylines that draw it), so its clades can be coloured.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, launch, newPage, step, waitFirstFrame } from '../lib/browser.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('demo plots in the library', { skip: !process.env.MONGODB_URI && 'the demo loader needs MONGODB_URI (the server\'s store)' }, () => {
  let browser, page, problems;

  before(async () => {
    // The stock series takes minutes of the analytics pipeline: the uploaded demos suffice here.
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'server/src/cli/demo.ts', '--without-stocks'], { cwd: ROOT, env: process.env, timeout: 300_000 });
    browser = await launch();
    ({ page, problems } = await newPage(browser));
  });
  after(async () => { await browser?.close(); });

  test('an anonymous visitor sees a drawn thumbnail on the demo plot\'s card', async () => {
    await step(page, 'demo-thumbnail', async () => {
      await page.goto(`${BASE_URL}/`);
      await page.fill('[data-testid=library-search]', 'Clustered blobs');
      const card = page.locator('[data-testid=plot-card]', { hasText: 'Clustered blobs (DA-MDS text format)' });
      const image = card.locator('img.thumb');
      await image.waitFor();
      await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await image.elementHandle());
      // Its pixels: the dark background and the clusters' colours, not a blank square.
      const colours = await image.evaluate((img) => {
        const canvas = new OffscreenCanvas(img.naturalWidth, img.naturalHeight);
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const data = ctx.getImageData(0, 0, img.naturalWidth, img.naturalHeight).data;
        const seen = new Set();
        for (let i = 0; i < data.length; i += 4) seen.add(`${data[i] >> 4},${data[i + 1] >> 4},${data[i + 2] >> 4}`);
        return { width: img.naturalWidth, colours: seen.size };
      });
      assert.equal(colours.width, 256);
      assert.ok(colours.colours >= 12, `the thumbnail has ${colours.colours} colours`);
      await card.screenshot({ path: `${ARTIFACTS}/demo-thumbnail.png` });
      assert.deepEqual(problems, []);
    });
  });

  test('the tree sample has its tree: every leaf at a point, its clades coloured', async () => {
    await step(page, 'demo-tree', async () => {
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.goto(`${BASE_URL}/`);
      await page.fill('[data-testid=library-search]', 'Phylogenetic tree sample');
      await page.locator('[data-testid=plot-card] a', { hasText: 'Phylogenetic tree sample' }).click();
      await waitFirstFrame(page);
      await page.locator('[data-testid=tree-info]').waitFor();
      assert.equal(await page.innerText('[data-testid=tree-info]'), 'tree_sample.nwk: 1,821 of 1,821 leaves at points');
      await page.check('[data-testid=tree-color]');
      await page.fill('[data-testid=tree-clades]', '6');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length >= 6);
      const counts = (await page.locator('[data-testid=clade-row] .muted').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
      assert.ok(counts.every((c) => c > 0) && counts.reduce((a, b) => a + b, 0) <= 1821, counts.join(' '));
      await page.screenshot({ path: `${ARTIFACTS}/demo-tree.png` });
      assert.deepEqual(problems, []);
    });
  });
});
