// Making a cluster from a box selection, deleting it and undoing that, and a selection that follows its points through a time series.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, canvasShot, launch, newPage, register, step, uniqueName, waitFirstFrame } from '../lib/browser.mjs';
import { pixelDiff } from '../lib/pixels.mjs';
import { cameraFromUrl, projector } from '../lib/project.mjs';
import { storedZip } from '../lib/zip.mjs';

// A 12 × 8 grid in the z = 0 plane, three clusters by column band, labelled p0…p95.
const GRID = Array.from({ length: 96 }, (_, i) => {
  const [col, row] = [i % 12, Math.floor(i / 12)];
  return { label: `p${i}`, xyz: [col / 11 * 2 - 1, row / 7 * 2 - 1, 0], cluster: 1 + Math.floor(col / 4) };
});
const gridText = (points) => points.map((p, i) => `${i} ${p.xyz.join(' ')} ${p.cluster} ${p.label}`).join('\n') + '\n';

describe('clusters from selections', () => {
  let browser, page;

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await register(page, uniqueName('carol'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  async function open(plotId) {
    await page.goto(`${BASE_URL}/plots/${plotId}`);
    await waitFirstFrame(page);
    await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
    await page.waitForFunction(() => new URL(location.href).searchParams.has('cam')); // the URL follows the view after 250 ms
  }

  async function upload(name, content, filename) {
    const created = await apiAs(page, 'POST', '/plots', { base64: Buffer.from(content).toString('base64'), filename, fields: { name } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  }

  /** Drags a box over the middle of the canvas; returns the indices of `positions` inside it. */
  async function boxSelectMiddle(positions) {
    const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
    const project = projector(cameraFromUrl(page.url()), box.width, box.height);
    const [x0, y0, x1, y1] = [box.width * 0.4, box.height * 0.3, box.width * 0.7, box.height * 0.7];
    const inside = positions.flatMap((p, i) => {
      const s = project(p);
      return s && s[0] >= x0 && s[0] <= x1 && s[1] >= y0 && s[1] <= y1 ? [i] : [];
    });
    await page.click('[data-testid=tool-box]');
    await page.mouse.move(box.x + x0, box.y + y0);
    await page.mouse.down();
    await page.mouse.move(box.x + x1, box.y + y1, { steps: 4 });
    await page.mouse.up();
    await page.click('[data-testid=tool-orbit]');
    return inside;
  }

  /** The plot's stored thumbnail as base64, or null while there is none. */
  const thumbnail = (plotId) => page.evaluate(async (id) => {
    const res = await fetch(`/api/v1/plots/${id}/thumbnail`, { cache: 'no-store' });
    return res.ok ? btoa(String.fromCharCode(...new Uint8Array(await res.arrayBuffer()))) : null;
  }, plotId);

  const clusterRow = (label) => page.locator('[data-testid=cluster-row]', { has: page.locator('.label', { hasText: new RegExp(`^${label}$`) }) });
  const countOf = async (label) => Number(await clusterRow(label).locator('.count').textContent());

  test('select by box, make a cluster, see it in the clusters panel, reload and see it kept', async () => {
    await step(page, 'make-cluster', async () => {
      const plot = await upload('e2e clusters', gridText(GRID), 'grid.txt');
      await open(plot.id);
      const inside = await boxSelectMiddle(GRID.map((p) => p.xyz));
      assert.ok(inside.length > 0 && inside.length < GRID.length, `the box holds ${inside.length} points`);
      assert.equal(Number(await page.textContent('[data-testid=selection-count]')), inside.length);
      const before = { 1: await countOf('1'), 2: await countOf('2'), 3: await countOf('3') };
      await page.waitForFunction(async (id) => (await fetch(`/api/v1/plots/${id}/thumbnail`)).ok, plot.id);
      const oldThumbnail = await thumbnail(plot.id);

      assert.equal(await page.inputValue('[data-testid=cluster-name]'), 'Selection 1');
      await page.fill('[data-testid=cluster-name]', 'middle');
      const title = await page.locator('[data-testid=plot-name]').boundingBox();
      await page.click('[data-testid=make-cluster]');
      await page.waitForSelector(`[data-testid=notice]:has-text('Cluster "middle" made of ${inside.length} point(s)')`);
      assert.deepEqual(await page.locator('[data-testid=plot-name]').boundingBox(), title, 'the notice moved the sidebar');
      assert.equal(await countOf('middle'), inside.length);
      const moved = (key) => inside.filter((i) => GRID[i].cluster === key).length;
      for (const key of [1, 2, 3]) assert.equal(await countOf(String(key)), before[key] - moved(key));
      assert.equal(await page.inputValue('[data-testid=cluster-name]'), 'Selection 1');
      // The library's thumbnail is redrawn with the new cluster's colour.
      for (let waited = 0; (await thumbnail(plot.id)) === oldThumbnail; waited += 200) {
        assert.ok(waited < 10_000, 'the thumbnail was not refreshed after making a cluster');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      await page.reload();
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]');
      assert.equal(await countOf('middle'), inside.length);
      // The browser's copy of the cluster keys was revalidated, not served stale.
      const keys = await page.evaluate(async (id) => [...new Uint32Array(await (await fetch(`/api/v1/plots/${id}/frames/0/clusters`)).arrayBuffer())], plot.id);
      assert.deepEqual(keys.flatMap((k, i) => (k === 4 ? [i] : [])), [...inside].sort((a, b) => a - b));
    });
  });

  test('a made cluster is deleted (its points go back), the delete is undone, and the same points twice make no duplicate', async () => {
    await step(page, 'delete-undo', async () => {
      const plot = await upload('e2e undo', gridText(GRID), 'grid.txt');
      await open(plot.id);
      const inside = await boxSelectMiddle(GRID.map((p) => p.xyz));
      const counts = async () => page.$$eval('[data-testid=cluster-row]', (rows) =>
        Object.fromEntries(rows.map((r) => [r.querySelector('.label').textContent, Number(r.querySelector('.count').textContent)])));
      const original = await counts();
      // The selection's highlight is the same in every shot: only the clusters' colours differ.
      const shot = async () => { await new Promise((r) => setTimeout(r, 300)); return canvasShot(page); };
      const beforeShot = await shot();

      await page.fill('[data-testid=cluster-name]', 'middle');
      await page.click('[data-testid=make-cluster]');
      await page.waitForSelector('[data-testid=notice]:has-text(\'Cluster "middle" made\')');
      await page.waitForSelector('[data-testid=undo-cluster-edit]:has-text("Undo making “middle”")');
      const madeShot = await shot();
      assert.ok(await pixelDiff(page, beforeShot, madeShot) > 0.001, 'making the cluster recoloured its points');

      // The same points again: refused by name, no empty duplicate.
      await page.click('[data-testid=make-cluster]');
      const refused = page.locator('.error:has-text(\'these points already form cluster "middle"\')');
      await refused.click(); // dismissed: it is drawn over the canvas, whose pixels are compared below
      await refused.waitFor({ state: 'detached' });
      assert.deepEqual(Object.keys(await counts()).sort(), ['1', '2', '3', 'middle']);

      await clusterRow('middle').locator('[data-testid=delete-cluster]').click();
      await page.waitForSelector('[data-testid=notice]:has-text(\'Cluster "middle" deleted\')');
      assert.deepEqual(await counts(), original);
      assert.ok(await pixelDiff(page, beforeShot, await shot()) < 0.001, 'the points are drawn in their old clusters\' colours again');
      const keys = await page.evaluate(async (id) => [...new Uint32Array(await (await fetch(`/api/v1/plots/${id}/frames/0/clusters`, { cache: 'no-store' })).arrayBuffer())], plot.id);
      assert.deepEqual(keys, GRID.map((p) => p.cluster));

      await page.click('[data-testid=undo-cluster-edit]:has-text("Undo deleting “middle”")');
      await page.waitForSelector('[data-testid=notice]:has-text(\'Undone: deleting "middle"\')');
      assert.equal(await countOf('middle'), inside.length);
      const undoneShot = await shot();
      assert.ok(await pixelDiff(page, madeShot, undoneShot) < 0.001, 'the cluster is drawn as before its delete');
      await page.screenshot({ path: `${ARTIFACTS}/clusters-undo.png` });
      // The undo history lives on the server: a reload offers the next undo.
      await page.reload();
      await page.waitForSelector('[data-testid=undo-cluster-edit]:has-text("Undo making “middle”")');
    });
  });

  test('in a time series the selection stays on the same labelled points when the frame changes', async () => {
    await step(page, 'follow-labels', async () => {
      // The second frame lists the points in reverse order and moves them a little.
      const shifted = GRID.map((p) => ({ ...p, xyz: [p.xyz[0] + 0.05, p.xyz[1], 0] })).reverse();
      const zip = storedZip([{ name: 'a.txt', text: gridText(GRID) }, { name: 'b.txt', text: gridText(shifted) }]);
      const plot = await upload('e2e follow', zip, 'series.zip');
      await open(plot.id);
      // The panel counts the frame on screen (32 points per band), not the table's sum over both frames.
      await page.waitForFunction(() => document.querySelector('[data-testid=cluster-row] .count')?.textContent === '32');
      assert.equal(await countOf('1'), 32);
      const inside = await boxSelectMiddle(GRID.map((p) => p.xyz));
      assert.ok(inside.length > 0);
      const labels = () => page.$$eval('.selection-list li', (items) => items.map((li) => li.firstChild.textContent.trim()).sort());
      const chosen = await labels();
      assert.deepEqual(chosen, inside.map((i) => GRID[i].label).sort());
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector('[data-testid=frame-number]:has-text("2 / 2")');
      await page.waitForFunction(() => /[?&]f=1(&|$)/.test(location.search));
      assert.deepEqual(await labels(), chosen);
      // The indices changed with the order (reversed): the link carries the new ones.
      const decode = (text) => text.split(',').flatMap((part) => {
        const [a, b = a] = part.split('-').map(Number);
        return Array.from({ length: b - a + 1 }, (_, k) => a + k);
      });
      assert.deepEqual(decode(new URL(page.url()).searchParams.get('sel')), inside.map((i) => GRID.length - 1 - i).sort((a, b) => a - b));
    });
  });

  test('a double-click on a cluster name renames it: the click that picks the row does not move the list', async () => {
    await step(page, 'cluster-rename', async () => {
      const csv = 'x,y,z,cluster,label\n0,0,0,alpha,p0\n1,0,0,beta,p1\n';
      await open((await upload('e2e rename', csv, 'rename.csv')).id);
      const alpha = await clusterRow('alpha').locator('.label').boundingBox();
      await clusterRow('beta').locator('.label').dblclick();
      await page.fill('[data-testid=cluster-row] input.rename', 'gamma');
      await page.keyboard.press('Enter');
      await clusterRow('gamma').waitFor();
      assert.equal(await page.textContent('[data-testid=cluster-scope]'), '1 picked:');
      assert.deepEqual(await clusterRow('alpha').locator('.label').boundingBox(), alpha);
    });
  });

  test('what comes and goes (undo, an error, a bad pattern, save styles) leaves the sidebar where it was', async () => {
    await step(page, 'sidebar-stays', async () => {
      const plot = await upload('e2e sidebar', gridText(GRID), 'grid.txt');
      await open(plot.id);
      await boxSelectMiddle(GRID.map((p) => p.xyz));
      const marks = [clusterRow('1').locator('.label'), page.locator('[data-testid=cluster-bulk]'), page.locator('[data-testid=selection-panel]')];
      const boxes = (of = marks) => Promise.all(of.map((mark) => mark.boundingBox()));
      const where = await boxes();

      await page.fill('[data-testid=cluster-name]', 'middle');
      await page.click('[data-testid=make-cluster]');
      await page.waitForSelector('[data-testid=undo-cluster-edit]:has-text("Undo making “middle”")');
      assert.deepEqual(await boxes(), where, 'the undo button moved the sidebar');

      await page.click('[data-testid=make-cluster]'); // the same points again: refused
      await page.waitForSelector('.error:has-text(\'these points already form cluster "middle"\')');
      assert.deepEqual(await boxes(), where, 'the error moved the sidebar');

      await clusterRow('1').locator('input[type=color]').fill('#ff0000');
      await page.waitForSelector('[data-testid=save-styles]:enabled');
      assert.deepEqual(await boxes(), where, 'the save button moved the sidebar');

      await page.fill('[data-testid=clusters-panel] input[type=search]', '/(/');
      await page.waitForSelector('[data-testid=clusters-panel] .error:has-text("not a valid regular expression")');
      // No row matches: the bar and the panels below stay.
      assert.deepEqual(await boxes(marks.slice(1)), where.slice(1), 'the pattern\'s error moved the sidebar');
      await page.screenshot({ path: `${ARTIFACTS}/sidebar-stays.png` });
    });
  });

  test('bulk: a pattern filter scopes Hide and Only these, picked rows get one colour', async () => {
    await step(page, 'cluster-bulk', async () => {
      // Six named clusters, one point each, spread on a line: "internal 1..3" and "leaf 1..3".
      const names = ['internal 1', 'internal 2', 'internal 3', 'leaf 1', 'leaf 2', 'leaf 3'];
      const csv = 'x,y,z,cluster,label\n' + names.map((n, i) => `${i / 5 * 2 - 1},0,0,${n},p${i}`).join('\n') + '\n';
      const plot = await upload('e2e bulk', csv, 'bulk.csv');
      await open(plot.id);
      const visible = () => page.$$eval('[data-testid=cluster-row]', (rows) => rows.filter((r) => r.querySelector('input[type=checkbox]').checked)
        .map((r) => r.querySelector('.label').textContent).sort());
      await page.fill('[data-testid=clusters-panel] input[type=search]', 'internal*');
      assert.equal(await page.textContent('[data-testid=cluster-scope]'), '3 matching:');
      await page.click('[data-testid=cluster-bulk] button:has-text("Hide")');
      await page.fill('[data-testid=clusters-panel] input[type=search]', '');
      assert.deepEqual(await visible(), ['leaf 1', 'leaf 2', 'leaf 3']);
      await page.fill('[data-testid=clusters-panel] input[type=search]', '/^(internal 2|leaf 3)$/');
      await page.click('[data-testid=cluster-bulk] button:has-text("Only these")');
      await page.fill('[data-testid=clusters-panel] input[type=search]', '');
      assert.deepEqual(await visible(), ['internal 2', 'leaf 3']);
      await page.waitForFunction(() => /[?&]hide=/.test(location.search));

      // Pick two rows (click, ctrl-click) and give them one colour.
      await clusterRow('leaf 1').locator('.label').click();
      await clusterRow('leaf 2').locator('.label').click({ modifiers: ['Control'] });
      assert.equal(await page.textContent('[data-testid=cluster-scope]'), '2 picked:');
      await page.fill('[aria-label="colour of the targets"]', '#ff0000');
      const colours = await page.$$eval('[data-testid=cluster-row]', (rows) =>
        Object.fromEntries(rows.map((r) => [r.querySelector('.label').textContent, r.querySelector('input[type=color]').value])));
      assert.equal(colours['leaf 1'], '#ff0000');
      assert.equal(colours['leaf 2'], '#ff0000');
      assert.notEqual(colours['leaf 3'], '#ff0000');
    });
  });
});
