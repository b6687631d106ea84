// The SPIDAL tree sample as PlotViz drew it: its file's <pointsize> and <glyph><visible>0
// make one-point clusters plain points, so the coloured leaves and the edges show and the
// 1,819 white internal nodes (cylinders of size 5–9) stay small.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';

const TREE_SAMPLE = path.resolve(import.meta.dirname, '../../../shared/data/tree_sample.pviz');

/** Pixels of the PNG whose RGB is exactly one of `colors` ("r,g,b"), by colour, and pure white ones. */
async function countColors(page, png, colors) {
  return page.evaluate(async ({ base64, colors }) => {
    const img = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(img.width, img.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    const wanted = new Set(colors);
    const byColor = {};
    let white = 0;
    for (let i = 0; i < data.length; i += 4) {
      const rgb = `${data[i]},${data[i + 1]},${data[i + 2]}`;
      if (rgb === '255,255,255') white++;
      else if (wanted.has(rgb)) byColor[rgb] = (byColor[rgb] ?? 0) + 1;
    }
    return { byColor, white, total: data.length / 4 };
  }, { base64: png.toString('base64'), colors });
}

describe('tree_sample.pviz as the original drew it', () => {
  let browser, page;
  let plot;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await register(page, uniqueName('tree'), 'correct horse battery');
    const content = await readFile(TREE_SAMPLE);
    const created = await apiAs(page, 'POST', '/plots', { base64: content.toString('base64'), filename: 'tree_sample.pviz', fields: { name: 'tree' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
  });
  after(async () => { await browser?.close(); });

  test("the file's display settings reach the viewer: leaves coloured, internal nodes small", async () => {
    await step(page, 'tree-leaves', async () => {
      assert.deepEqual(plot.display, { pointSize: 2, glyphsVisible: false, glyphScale: 1 });
      await page.goto(`${BASE_URL}/plots/${plot.id}`);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await page.inputValue('[data-testid=point-size]'), '2', 'point size from <pointsize>');
      assert.equal(await page.isChecked('[data-testid=glyphs-toggle]'), false, 'glyphs off from <glyph><visible>0');
      const png = await canvasShot(page);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, 'tree-sample.png'), png); // for a person to look at
      const leafColors = [...new Set(plot.clusters.filter((c) => c.shape !== 6).map((c) => `${c.color.r},${c.color.g},${c.color.b}`))]
        .filter((c) => c !== '255,255,255');
      const { byColor, white, total } = await countColors(page, png, leafColors);
      const leafPixels = Object.values(byColor).reduce((a, b) => a + b, 0);
      const shownColors = Object.keys(byColor).length;
      // Before: white cylinders of 20–36 px covered the leaves (many % of the canvas white).
      assert.ok(shownColors >= 0.8 * leafColors.length, `${shownColors} of ${leafColors.length} leaf colours on screen`);
      assert.ok(leafPixels > 1000, `${leafPixels} leaf-coloured pixels`);
      assert.ok(white < 0.01 * total, `internal nodes cover ${(100 * white / total).toFixed(2)}% of the canvas`);
    });
  });

  test('glyph size and point size are separate controls kept in the link', async () => {
    await step(page, 'tree-sizes', async () => {
      await page.fill('[data-testid=point-size]', '5');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('ps') === '5');
      await page.check('[data-testid=glyphs-toggle]');
      await page.fill('[data-testid=glyph-size]', '10');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('gs') === '10' && new URL(location.href).searchParams.get('glyphs') === '1');
      await page.reload();
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await page.inputValue('[data-testid=point-size]'), '5');
      assert.equal(await page.inputValue('[data-testid=glyph-size]'), '10');
      assert.equal(await page.isChecked('[data-testid=glyphs-toggle]'), true);
    });
  });
});
