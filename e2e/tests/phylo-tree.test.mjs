// A Newick tree over a plot's points, as a biologist uses it: attach it to planted groups of
// points, colour by clade (the cut at 3 gives the 3 groups), select a clade, collapse one, cut
// at a width, and find all of it again in the link. Screenshots (1400×900) go to TREE_SHOTS when set.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { countExactColors, meanXOfColor } from '../lib/pixels.mjs';
import { storedZip } from '../lib/zip.mjs';

const SHOTS = process.env.TREE_SHOTS;
// Three groups of 6, 9 and 4 points, far apart in x; the tree's clades are the groups, and
// one leaf ("ghost") names no point.
const SIZES = [6, 9, 4];
const names = SIZES.map((n, g) => Array.from({ length: n }, (_, i) => `grp${g}_${i}`));
const POINTS = names.flatMap((group, g) => group.map((name, i) =>
  `${g * 100 + i} ${(g - 1) * 10 + Math.cos(i)} ${Math.sin(i) + g} ${(i % 3) / 2} 0 ${name}`)).join('\n') + '\n';
const caterpillar = (leaves) => leaves.slice(1).reduce((t, leaf, i) => `(${t}:0.${i + 1},${leaf}:0.3)`, leaves[0]);
const NEWICK = `[planted groups]\n(${caterpillar(names[0])}:2,(${caterpillar(names[1])}:2,(${caterpillar(names[2])}:2,ghost:1):0.1):0.1);\n`;
// The same groups as an unrooted tree (FastTree's kind), rooted at two leaves of the first group.
const tight = (leaves) => leaves.slice(1).reduce((t, leaf) => `(${t}:0.01,${leaf}:0.05)`, leaves[0]);
const UNROOTED = `(${names[0][0]}:0.05,${names[0][1]}:0.05,(${tight(names[0].slice(2))}:0.01,(${tight(names[1])}:2,${tight(names[2])}:2):2):0.01);`;
// The palette's first three colours (schema/src/palette.ts), the clades' colours.
const CLADE_RGB = ['31,119,180', '255,127,14', '44,160,44'];
const DIMMED_RGB = '77,47,22';

const shot = async (page, name) => {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
};
const linkParams = (page) => new URL(page.url()).searchParams;

describe('a phylogenetic tree over the points', () => {
  let browser, page, plot;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('phylo'), 'correct horse battery');
    const created = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(POINTS).toString('base64'), filename: 'groups.txt', fields: { name: 'planted groups' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
  });
  after(async () => { await browser?.close(); });

  test('a bad Newick file is refused in the panel, naming its line and column', async () => {
    await step(page, 'tree-bad-file', async () => {
      const failed = [];
      const onResponse = (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); };
      page.on('response', onResponse);
      const treeAsked = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith(`/plots/${plot.id}/tree`));
      await page.goto(`${BASE_URL}/plots/${plot.id}`);
      await waitFirstFrame(page);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await (await treeAsked).text(), 'null');
      page.off('response', onResponse);
      assert.deepEqual(failed, [], 'a plot without a tree: no failed request (GET /tree answers null)');
      await page.setInputFiles('[data-testid=tree-file]', { name: 'bad.nwk', mimeType: 'text/plain', buffer: Buffer.from('(a,b,\n  (c:0.1,d:x));') });
      const error = page.locator('[data-testid=tree-panel] [role=alert], [data-testid=tree-panel] .error');
      await error.first().waitFor();
      assert.match(await error.first().innerText(), /line 2, column 12: "x" is not a branch length/);
    });
  });

  test('attached: the leaves at their points, the unmatched leaf named', async () => {
    await step(page, 'tree-attach', async () => {
      await page.setInputFiles('[data-testid=tree-file]', { name: 'planted.nwk', mimeType: 'text/plain', buffer: Buffer.from(NEWICK) });
      await page.waitForSelector('[data-testid=tree-info]');
      assert.equal(await page.innerText('[data-testid=tree-info]'), 'planted.nwk: 19 of 20 leaves at points');
      assert.match(await page.innerText('[data-testid=tree-unmatched]'), /^1 leaf names no point and is left out: ghost$/);
      await shot(page, 'tree-attached');
    });
  });

  test('coloured by clade: the cut at 3 gives the planted groups, in the legend and on the canvas; the link keeps the cut', async () => {
    await step(page, 'tree-colour', async () => {
      await page.check('[data-testid=tree-color]');
      await page.fill('[data-testid=tree-clades]', '3');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length === 3);
      assert.match(await page.innerText('[data-testid=cluster-colours-not-drawn]'), /clade's colour \(Tree panel\), not these cluster colours/);
      const counts = await page.locator('[data-testid=clade-row] .muted').allInnerTexts();
      assert.deepEqual(counts.map(Number), SIZES);
      await page.waitForFunction(() => new URL(location.href).searchParams.get('clades') === '3');
      const pixels = await countExactColors(page, await canvasShot(page), CLADE_RGB);
      for (const rgb of CLADE_RGB) assert.ok(pixels[rgb] > 20, `clade colour ${rgb}: ${JSON.stringify(pixels)}`);
      await shot(page, 'tree-clades');
    });
  });

  test('a clade selected: its points are the selection', async () => {
    await step(page, 'tree-select', async () => {
      await page.locator('[data-testid=clade-row]').nth(1).locator('[data-testid=clade-select]').click();
      await page.waitForFunction(() => document.querySelector('[data-testid=selection-count]')?.textContent === '9');
      const labels = await page.locator('[data-testid=selection-panel] li').allInnerTexts();
      assert.ok(labels.length === 0 || labels.every((l) => l.includes('grp1_')), labels.join('|'));
    });
  });

  test('a clade collapsed: its points dimmed, in the link; reopening the link restores cut and collapse', async () => {
    await step(page, 'tree-collapse', async () => {
      await page.click('[data-testid=selection-panel] button:has-text("Clear")');
      const before = await countExactColors(page, await canvasShot(page), CLADE_RGB);
      await page.locator('[data-testid=clade-row]').nth(1).locator('[data-testid=clade-collapse]').click();
      await page.waitForFunction(() => new URL(location.href).searchParams.get('collapse') === '2'); // clade 2, numbered as in the panel
      const after = await countExactColors(page, await canvasShot(page), CLADE_RGB);
      // Its points take its colour mixed 1:3 with the background (0x111418); the mark at its node keeps the colour.
      const dimmed = (await countExactColors(page, await canvasShot(page), [DIMMED_RGB]))[DIMMED_RGB];
      assert.ok(dimmed > 20, `dimmed points: ${dimmed} pixels`);
      assert.ok(after[CLADE_RGB[1]] < 0.5 * before[CLADE_RGB[1]], `the collapsed clade's colour: ${before[CLADE_RGB[1]]} → ${after[CLADE_RGB[1]]} pixels`);
      assert.ok(after[CLADE_RGB[0]] > 0.5 * before[CLADE_RGB[0]], 'the other clades keep theirs');
      await shot(page, 'tree-collapsed');

      const link = page.url();
      assert.equal(linkParams(page).get('clades'), '3');
      await page.goto(link);
      await waitFirstFrame(page);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length === 3);
      assert.equal(await page.isChecked('[data-testid=tree-color]'), true);
      assert.equal(await page.inputValue('[data-testid=tree-clades]'), '3');
      assert.deepEqual(await page.locator('[data-testid=clade-row]').evaluateAll((rows) => rows.map((r) => r.dataset.collapsed)), ['0', '1', '0']);
      assert.equal(await page.innerText('[data-testid=clade-row] >> nth=1 >> [data-testid=clade-collapse]'), 'expand');
    });
  });

  test('cut at a width: switching keeps the clades (the widest 4.1 wide); a narrower width splits the widest group; the link keeps it', async () => {
    await step(page, 'tree-width', async () => {
      await page.selectOption('[data-testid=tree-cut-by]', 'width');
      // The groups are caterpillars; the widest (9 leaves) has a 4.1-long leaf-to-leaf path (0.3 + 0.2 + … + 0.8 + 0.3).
      await page.waitForFunction(() => new URL(location.href).searchParams.get('cladewidth') === '4.1');
      assert.equal(linkParams(page).get('clades'), null);
      assert.equal(await page.inputValue('[data-testid=tree-clade-width]'), '4.1');
      assert.match(await page.innerText('[data-testid=tree-cut-note]'), /^3 clades, the widest 4\.1 /);
      assert.deepEqual((await page.locator('[data-testid=clade-row] .muted').allInnerTexts()).map(Number), SIZES);
      await page.fill('[data-testid=tree-clade-width]', '2');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length > 3);
      const note = await page.innerText('[data-testid=tree-cut-note]');
      const [, count, widest] = note.match(/^(\d+) clades, the widest ([\d.]+) /);
      assert.equal(Number(count), await page.locator('[data-testid=clade-row]').count());
      assert.ok(Number(widest) <= 2, note);
      const counts = (await page.locator('[data-testid=clade-row] .muted').allInnerTexts()).map(Number);
      assert.equal(counts.reduce((a, b) => a + b, 0), SIZES.reduce((a, b) => a + b, 0), 'every point in a clade: no outliers');
      await shot(page, 'tree-width');

      await page.waitForFunction(() => new URL(location.href).searchParams.get('cladewidth') === '2'); // the link follows after 250 ms
      await page.goto(page.url());
      await waitFirstFrame(page);
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid=clade-row]').length === n, Number(count));
      assert.equal(await page.inputValue('[data-testid=tree-cut-by]'), 'width');
      assert.equal(await page.inputValue('[data-testid=tree-clade-width]'), '2');
      // Back to a cut into k, as the later tests expect.
      await page.selectOption('[data-testid=tree-cut-by]', 'count');
      await page.waitForFunction(() => new URL(location.href).searchParams.has('clades'));
      await page.fill('[data-testid=tree-clades]', '3');
      await page.waitForFunction(() => new URL(location.href).searchParams.get('clades') === '3' && !new URL(location.href).searchParams.has('cladewidth'));
    });
  });

  test('an unrooted tree: cut from the file\'s root, one clade holds nearly all; rooted at its midpoint, the groups', async () => {
    await step(page, 'tree-midpoint', async () => {
      const counts = async () => (await page.locator('[data-testid=clade-row] .muted').allInnerTexts()).map(Number).sort((a, b) => a - b);
      const replaced = [];
      const attach = async (midpoint) => {
        await page.setChecked('[data-testid=tree-midpoint]', midpoint);
        page.once('dialog', (d) => { replaced.push(d.message()); void d.accept(); }); // a replacement is confirmed
        await page.setInputFiles('[data-testid=tree-file]', { name: 'fasttree.nwk', mimeType: 'text/plain', buffer: Buffer.from(UNROOTED) });
        await page.waitForFunction((m) => {
          const info = document.querySelector('[data-testid=tree-info]')?.textContent ?? '';
          return info.startsWith('fasttree.nwk:') && info.includes('rooted at the midpoint') === m;
        }, midpoint);
        await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length === 3);
      };
      await attach(false);
      assert.deepEqual(await counts(), [1, 1, 17]);
      await attach(true);
      assert.deepEqual(await counts(), [...SIZES].sort((a, b) => a - b));
      assert.deepEqual(replaced, ['Replace planted.nwk by fasttree.nwk?', 'Replace fasttree.nwk by fasttree.nwk?']);
      await shot(page, 'tree-midpoint');
    });
  });

  test('a stranger reads a public plot\'s tree but is offered no upload', async () => {
    await step(page, 'tree-stranger', async () => {
      assert.equal((await apiAs(page, 'PATCH', `/plots/${plot.id}`, { visibility: 'public' })).status, 200);
      const { page: other } = await newPage(browser);
      await other.goto(`${BASE_URL}/plots/${plot.id}?clades=2`);
      await waitFirstFrame(other);
      await other.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length >= 2);
      assert.equal(await other.locator('[data-testid=tree-file]').count(), 0);
      await other.close();
    });
  });
});

describe('a time series: the tree follows its leaves by label from frame to frame', () => {
  let browser, page, plot;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('phylots'), 'correct horse battery');
    // Frame 2 swaps the first and last groups' places and lists the points in reverse order.
    const lines = (place) => names.flatMap((group, g) => group.map((name, i) => `${(place(g) - 1) * 10 + Math.cos(i)} ${Math.sin(i)} 0 0 ${name}`));
    const frame = (rows) => rows.map((row, i) => `${i} ${row}`).join('\n') + '\n';
    const zip = storedZip([{ name: 'a.txt', text: frame(lines((g) => g)) }, { name: 'b.txt', text: frame(lines((g) => 2 - g).reverse()) }]);
    const created = await apiAs(page, 'POST', '/plots', { base64: zip.toString('base64'), filename: 'series.zip', fields: { name: 'moving groups' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    plot = created.body;
    const attached = await apiAs(page, 'PUT', `/plots/${plot.id}/tree`, { base64: Buffer.from(NEWICK).toString('base64'), filename: 'planted.nwk', fields: {} });
    assert.equal(attached.status, 201, JSON.stringify(attached.body));
  });
  after(async () => { await browser?.close(); });

  test('the first clade is on the left in frame 1 and on the right in frame 2, its branches with it', async () => {
    await step(page, 'tree-series', async () => {
      await page.goto(`${BASE_URL}/plots/${plot.id}?clades=3&mode=2d`);
      await waitFirstFrame(page);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=clade-row]').length === 3);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      const first = await meanXOfColor(page, await canvasShot(page), CLADE_RGB[0]);
      assert.ok(first !== null && first < 0.4, `frame 1: clade 1 at x = ${first}`);
      await page.click('button:has-text("Next ›")');
      await page.waitForFunction(() => document.querySelector('[data-testid=frame-number]')?.textContent === '2 / 2');
      await page.waitForTimeout(300); // the switch's redraw
      const second = await meanXOfColor(page, await canvasShot(page), CLADE_RGB[0]);
      assert.ok(second !== null && second > 0.6, `frame 2: clade 1 at x = ${second}`);
      await shot(page, 'tree-series-frame2');
    });
  });
});
