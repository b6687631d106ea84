// Metadata columns in the viewer (issue 16 part 4, issue 15 part 7): a CSV's extra columns
// colour, label, search and hover the points, and each colour scale has a legend.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { countExactColors as countColors } from '../lib/pixels.mjs';
import { cameraFromUrl, projector } from '../lib/project.mjs';
import { storedZip } from '../lib/zip.mjs';

// Three species side by side, all in one cluster: only colouring by `species` tells them apart.
const SPECIES = ['setosa', 'versicolor', 'virginica'];
const rows = [];
SPECIES.forEach((species, s) => {
  for (let i = 0; i < 64; i++) {
    const x = 3 * s + (i % 8) * 0.25, y = Math.floor(i / 8) * 0.25;
    rows.push({ x, y, species, length: (s + i / 64).toFixed(3), description: `${species} specimen ${i}` });
  }
});
const CSV = 'x,y,z,label,species,petal length,description\n' +
  rows.map((r, i) => `${r.x},${r.y},0,p${i},${r.species},${r.length},"${r.description}"`).join('\n') + '\n';
// categoricalColor(0..2) of @wpv/schema's palette; the one cluster is drawn in colour 0.
const PALETTE = ['31,119,180', '255,127,14', '44,160,44'];

describe('metadata columns in the viewer', () => {
  let browser, page, plot;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await register(page, uniqueName('meta'), 'correct horse battery');
    const created = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(CSV).toString('base64'), filename: 'iris.csv', fields: { name: 'iris' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
    assert.deepEqual(plot.columns.map((c) => [c.name, c.kind]), [['species', 'category'], ['petal length', 'number'], ['description', 'category']]);
    await page.goto(`${BASE_URL}/plots/${plot.id}`);
    await waitFirstFrame(page);
    await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
  });
  after(async () => { await browser?.close(); });

  test('colour by species: each species in its palette colour, with a legend of three rows', async () => {
    await step(page, 'metadata-colour', async () => {
      const before = await countColors(page, await canvasShot(page), PALETTE);
      assert.ok(before[PALETTE[0]] > 100, `the cluster colour is on screen (${before[PALETTE[0]]} px)`);
      assert.equal(before[PALETTE[1]] + before[PALETTE[2]], 0, 'one cluster: one colour');
      await page.selectOption('[data-testid=color-by]', { label: 'species' });
      await page.waitForSelector('[data-testid=legend][data-column=species]');
      const legend = await page.locator('[data-testid=legend-row]').allTextContents();
      assert.deepEqual(legend, ['setosa64', 'versicolor64', 'virginica64']);
      await page.waitForTimeout(300);
      const png = await canvasShot(page);
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, 'metadata-species.png'), png); // for a person to look at
      await page.screenshot({ path: path.join(ARTIFACTS, 'metadata-species-page.png') });
      const after = await countColors(page, png, PALETTE);
      for (const color of PALETTE) assert.ok(after[color] > 50, `colour ${color}: ${after[color]} px`);
      // Setosa sits left: its colour is left of virginica's on screen.
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const half = (x) => canvasShot(page, { x, y: 0, width: box.width / 2, height: box.height });
      const [left, right] = [await countColors(page, await half(0), PALETTE), await countColors(page, await half(box.width / 2), PALETTE)];
      assert.ok(left[PALETTE[0]] > right[PALETTE[0]] && right[PALETTE[2]] > left[PALETTE[2]], JSON.stringify({ left, right }));
    });
  });

  test('colour by a number: a continuous scale, its gradient legend in bins', async () => {
    await step(page, 'metadata-number', async () => {
      await page.selectOption('[data-testid=color-by]', { label: 'petal length' });
      await page.waitForSelector('[data-testid=legend][data-column="petal length"] .legend-gradient');
      const legend = await page.locator('[data-testid=legend-row]').allTextContents();
      assert.equal(legend.length, 5);
      assert.match(legend[0], /^0 – 0\.597/);
      await page.waitForTimeout(300);
      writeFileSync(path.join(ARTIFACTS, 'metadata-number.png'), await canvasShot(page));
      const ends = await countColors(page, await canvasShot(page), ['72,40,120', '253,231,37', ...PALETTE]);
      assert.ok(ends['72,40,120'] > 0 && ends['253,231,37'] > 0, `both ends of the scale drawn: ${JSON.stringify(ends)}`);
      await page.selectOption('[data-testid=color-by]', { label: 'clusters' });
      await page.waitForSelector('[data-testid=legend]', { state: 'detached' });
    });
  });

  test('hover shows every column; label by a column', async () => {
    await step(page, 'metadata-hover', async () => {
      await page.waitForTimeout(600); // the URL carries the camera after 250 ms
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const project = projector(cameraFromUrl(page.url()), box.width, box.height);
      const i = 64 + 27; // a versicolor point inside its block
      const [x, y] = project([rows[i].x, rows[i].y, 0]);
      await page.mouse.move(box.x + x, box.y + y);
      await page.waitForSelector('[data-testid=tooltip]');
      assert.equal(await page.textContent('[data-testid=tooltip-label]'), `p${i}`);
      assert.deepEqual(await page.locator('[data-testid=tooltip-column]').allTextContents(),
        ['species: versicolor', `petal length: ${Number(rows[i].length)}`, `description: versicolor specimen 27`]);
      await page.mouse.move(box.x + 2, box.y + 2);
      await page.selectOption('[data-testid=label-by]', { label: 'description' });
      await page.mouse.move(box.x + x, box.y + y);
      await page.waitForSelector('[data-testid=tooltip-label]:has-text("versicolor specimen 27")');
      await page.mouse.move(box.x + 2, box.y + 2);
    });
  });

  test('the link and a saved view keep the colour-by and label-by columns', async () => {
    await step(page, 'metadata-view-state', async () => {
      const chosen = async () => [await page.inputValue('[data-testid=color-by]'), await page.inputValue('[data-testid=label-by]')];
      await page.selectOption('[data-testid=color-by]', { label: 'species' });
      await page.waitForFunction(() => /colorby=species/.test(location.search) && /labelby=description/.test(location.search));
      // A double-click saves once: the button waits while the view is saved.
      const puts = [];
      const countPut = (request) => { if (request.method() === 'PUT' && request.url().includes('/views/')) puts.push(request.url()); };
      page.on('request', countPut);
      await page.fill('input[placeholder="view name"]', 'by species');
      await page.dblclick('[data-testid=save-view]');
      await page.getByRole('button', { name: 'by species', exact: true }).waitFor();
      page.off('request', countPut);
      assert.equal(puts.length, 1, `one save: ${puts.join(' ')}`);

      // The copied link reopens with both columns chosen, coloured and with the legend.
      await page.reload();
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=legend][data-column=species]');
      assert.deepEqual(await chosen(), ['0', '2']);
      await page.waitForTimeout(300);
      const linked = await countColors(page, await canvasShot(page), PALETTE);
      for (const color of PALETTE) assert.ok(linked[color] > 50, `colour ${color} from the link: ${linked[color]} px`);

      // The saved view brings them back after they are changed.
      await page.selectOption('[data-testid=color-by]', { label: 'clusters' });
      await page.selectOption('[data-testid=label-by]', { label: 'label' });
      await page.waitForSelector('[data-testid=legend]', { state: 'detached' });
      await page.getByRole('button', { name: 'by species', exact: true }).click();
      await page.waitForSelector('[data-testid=legend][data-column=species]');
      assert.deepEqual(await chosen(), ['0', '2']);

      // A link naming a column this plot lacks says so and colours by cluster.
      const said = page.waitForSelector('[data-testid=notice]:has-text("no column “height”")'); // awaited while loading: notices go after a few seconds
      await page.goto(`${BASE_URL}/plots/${plot.id}?colorby=height`);
      await waitFirstFrame(page);
      await said;
      assert.deepEqual(await chosen(), ['', '']);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
    });
  });

  test('search finds points by a description, and by one chosen column', async () => {
    await step(page, 'metadata-search', async () => {
      await page.fill('[data-testid=label-search]', 'specimen 1');
      await page.press('[data-testid=label-search]', 'Enter');
      await page.waitForSelector('[data-testid=search-results]');
      // "specimen 1", "specimen 10"…"specimen 19" in each species: 11 × 3.
      assert.equal(await page.locator('[data-testid=search-hit]').count(), 33);
      await page.selectOption('[data-testid=search-column]', 'species');
      await page.fill('[data-testid=label-search]', 'setosa');
      await page.press('[data-testid=label-search]', 'Enter');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=search-hit]').length === 64);
    });
  });

  test('a time series: the colours follow the frame on screen (the species move between frames)', async () => {
    await step(page, 'metadata-series', async () => {
      const frame = (order) => 'x,y,species\n' + rows.map((r, i) => `${r.x},${r.y},${order[Math.floor(i / 64)]}`).join('\n') + '\n';
      const zip = storedZip([{ name: 'f1.csv', text: frame(SPECIES) }, { name: 'f2.csv', text: frame([...SPECIES].reverse()) }]);
      const created = await apiAs(page, 'POST', '/plots', { base64: zip.toString('base64'), filename: 'moves.zip', fields: { name: 'moves' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await page.goto(`${BASE_URL}/plots/${created.body.id}`);
      await waitFirstFrame(page);
      await page.selectOption('[data-testid=color-by]', { label: 'species' });
      await page.waitForSelector('[data-testid=legend][data-column=species]');
      const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
      const leftThird = async () => countColors(page, await canvasShot(page, { x: 0, y: 0, width: box.width / 3, height: box.height }), PALETTE);
      await page.waitForTimeout(300);
      const first = await leftThird();
      assert.ok(first[PALETTE[0]] > 50 && first[PALETTE[2]] === 0, `frame 1, left block setosa: ${JSON.stringify(first)}`);
      await page.click('button:has-text("Next ›")');
      await page.waitForSelector('[data-testid=frame-number]:has-text("2 / 2")');
      await page.waitForTimeout(800); // playback rests, the frame's column arrives
      const second = await leftThird();
      assert.ok(second[PALETTE[2]] > 50 && second[PALETTE[0]] === 0, `frame 2, left block virginica: ${JSON.stringify(second)}`);
    });
  });
});
