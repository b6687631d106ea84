// The SPIDAL tree sample as PlotViz drew it: its file's <pointsize> and <glyph><visible>0
// make one-point clusters plain points, so the coloured leaves and the edges show and the
// 1,819 white internal nodes (cylinders of size 5–9) stay small.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { countExactColors } from '../lib/pixels.mjs';

const TREE_SAMPLE = path.resolve(import.meta.dirname, '../../../shared/data/tree_sample.pviz');

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
      const counts = await countExactColors(page, png, [...leafColors, '255,255,255']);
      const white = counts['255,255,255'];
      const total = png.readUInt32BE(16) * png.readUInt32BE(20); // the PNG header's width × height
      const leafPixels = leafColors.reduce((sum, c) => sum + counts[c], 0);
      const shownColors = leafColors.filter((c) => counts[c] > 0).length;
      // Before: white cylinders of 20–36 px covered the leaves (many % of the canvas white).
      assert.ok(shownColors >= 0.8 * leafColors.length, `${shownColors} of ${leafColors.length} leaf colours on screen`);
      assert.ok(leafPixels > 1000, `${leafPixels} leaf-coloured pixels`);
      assert.ok(white < 0.01 * total, `internal nodes cover ${(100 * white / total).toFixed(2)}% of the canvas`);
    });
  });

  test('the toolbar, edges toggle included, fits on one line beside the sidebar at 1400 px; its controls say what they do', async () => {
    await step(page, 'tree-toolbar', async () => {
      await page.setViewportSize({ width: 1400, height: 900 });
      try {
        const height = (await page.locator('.toolbar').boundingBox()).height;
        const button = (await page.locator('[data-testid=tool-orbit]').boundingBox()).height;
        assert.ok(height < 2 * button, `the toolbar is ${height} px high: it wrapped`);
        assert.equal(await page.getByLabel('Glyphs', { exact: true }).getAttribute('data-testid'), 'glyphs-toggle');
        await page.click('button:text-is("2D")');
        assert.equal(await page.textContent('[data-testid=tool-orbit]'), 'Pan');
        await page.click('button:text-is("3D")');
        assert.equal(await page.textContent('[data-testid=tool-orbit]'), 'Rotate');
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    });
  });

  test('search lists every match, flies to a picked one, rings the hits and says "not found"', async () => {
    await step(page, 'tree-search', async () => {
      const labels = (await apiAs(page, 'GET', `/plots/${plot.id}/frames/0/labels`)).body;
      const matches = labels.filter((l) => l.toLowerCase().includes('_rac_')).length; // the search ignores case
      assert.ok(matches > 1, 'the sample has several _Rac_ leaves');
      await page.fill('[data-testid=label-search]', '_Rac_');
      await page.press('[data-testid=label-search]', 'Enter');
      await page.waitForSelector('[data-testid=search-results]');
      assert.equal(await page.locator('[data-testid=search-hit]').count(), matches);
      const camera = () => new URL(page.url()).searchParams.get('cam');
      await page.waitForTimeout(900); // the flight to all matches ends and the URL follows
      // Hits are drawn at least 9 px with a yellow ring (1.0, 0.9, 0.1).
      const ring = await page.evaluate(async (base64) => {
        const img = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
        const ctx = new OffscreenCanvas(img.width, img.height).getContext('2d');
        ctx.drawImage(img, 0, 0);
        const d = ctx.getImageData(0, 0, img.width, img.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] === 255 && Math.abs(d[i + 1] - 230) <= 2 && Math.abs(d[i + 2] - 26) <= 2) n++;
        return n;
      }, (await canvasShot(page)).toString('base64'));
      assert.ok(ring >= 10 * matches, `${ring} ring pixels around ${matches} hits`);
      const before = camera();
      await page.locator('[data-testid=search-hit]').nth(1).click();
      await page.waitForFunction((c) => new URL(location.href).searchParams.get('cam') !== c, before);
      await page.waitForTimeout(900);
      await page.fill('[data-testid=label-search]', 'NO_SUCH_LEAF');
      await page.press('[data-testid=label-search]', 'Enter');
      await page.waitForSelector('[data-testid=search-not-found]:has-text("NO_SUCH_LEAF")');
      assert.equal(await page.locator('[data-testid=search-results]').count(), 0);
    });
  });

  test('a selection saved with the plot loads back in the viewer and reads as indices', async () => {
    await step(page, 'tree-named-selection', async () => {
      await page.click('[data-testid=tool-box]');
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.8, { steps: 5 });
      await page.mouse.up();
      const count = Number(await page.textContent('[data-testid=selection-count]'));
      assert.ok(count > 0, 'the box selected points');
      await page.fill('[data-testid=selection-name]', 'middle');
      await page.click('[data-testid=save-selection]');
      await page.waitForSelector('[data-testid=load-selection]:has-text("middle")');
      const stored = await apiAs(page, 'GET', `/plots/${plot.id}/selections/middle`);
      assert.equal(stored.status, 200);
      assert.equal(stored.body.indices.length, count);
      await page.click('[data-testid=tool-orbit]');
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=selection-panel]', { state: 'detached' });
      await page.click('[data-testid=load-selection]:has-text("middle")');
      await page.waitForSelector(`[data-testid=selection-count]:text-is("${count}")`);
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

  test('the screenshot PNG carries the title and a legend of the visible clusters', async () => {
    await step(page, 'tree-screenshot', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=screenshot]')]);
      const png = await readFile(await download.path());
      writeFileSync(path.join(ARTIFACTS, 'tree-screenshot.png'), png); // for a person to look at
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const found = await page.evaluate(async (base64) => {
        const img = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
        const ctx = new OffscreenCanvas(img.width, img.height).getContext('2d');
        ctx.drawImage(img, 0, 0);
        const count = (x0, y0, w, h, test) => {
          const d = ctx.getImageData(x0, y0, w, h).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (test(d[i], d[i + 1], d[i + 2])) n++;
          return n;
        };
        const grey = (r, g, b) => r > 200 && Math.abs(r - g) < 8 && Math.abs(g - b) < 8;
        // Title text in the top band; legend text (light grey) in the lower left.
        return { width: img.width, title: count(0, 0, 200, 40, grey), legend: count(0, img.height - 200, 300, 200, grey) };
      }, png.toString('base64'));
      assert.equal(found.width, Math.round(box.width) * 2);
      assert.ok(found.title > 40, `${found.title} title pixels`);
      assert.ok(found.legend > 200, `${found.legend} legend text pixels`);
    });
  });

  test('"Copy link" on a private plot copies it, warns and offers to make it public', async () => {
    await step(page, 'tree-copy-link', async () => {
      const dialogs = [];
      const answer = (d) => { dialogs.push(d); void (d.type() === 'confirm' ? d.accept() : d.dismiss()); };
      page.on('dialog', answer);
      try {
        await page.click('[data-testid=copy-link]');
        await page.waitForSelector('[data-testid=notice]:has-text("The plot is now public: anyone with the link can open it.")');
      } finally { page.off('dialog', answer); }
      assert.match(dialogs.find((d) => d.type() === 'confirm').message(), /private/);
      assert.equal((await apiAs(page, 'GET', `/plots/${plot.id}`)).body.visibility, 'public');
      await page.waitForSelector('p.muted:has-text("public")');
    });
  });
});
