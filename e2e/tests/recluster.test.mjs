// Re-clustering in the browser (issue 15 part 6): open a sequence-clustering job's plot, go to a
// cluster's centre, re-cluster that cluster from its row, follow the job, open the child plot
// and its link back to the parent.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ARTIFACTS, BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const READS = path.resolve(ROOT, '../shared/data/16s-4640.fasta');

/** A family of two subfamilies (families 1, 2) beside two other families, grown from real reads. */
function planted() {
  const script = path.join(ROOT, 'kernels/dapwc/tests/families.py');
  return JSON.parse(execFileSync('python3', [script, 'subfamilies', READS, '2'], { encoding: 'utf8' }));
}

async function waitJob(page, id) {
  for (const deadline = Date.now() + 240_000; Date.now() < deadline; await page.waitForTimeout(500)) {
    const job = (await apiAs(page, 'GET', `/jobs/${id}`)).body;
    if (['succeeded', 'failed', 'cancelled'].includes(job.state)) return job;
  }
  throw new Error(`job ${id} did not end`);
}

describe('re-clustering from the viewer', () => {
  let browser, page, problems;
  before(async () => {
    browser = await launch();
    ({ page, problems } = await newPage(browser));
    await register(page, uniqueName('recluster'), 'correct horse battery');
  });
  after(async () => { await browser?.close(); });

  test('re-cluster one cluster of a job plot and open the child plot', async () => {
    const records = planted();
    const fasta = records.map((r) => `>${r.id}\n${r.sequence}\n`).join('');
    const created = await apiAs(page, 'POST', '/jobs', {
      base64: Buffer.from(fasta).toString('base64'), filename: 'subfamilies.fasta',
      fields: { type: 'sequence-clustering', name: 'e2e families', params: JSON.stringify({ maxClusters: 3, seed: 2 }) },
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const parentJob = await waitJob(page, created.body.id);
    assert.equal(parentJob.state, 'succeeded', parentJob.error);
    const family = records.flatMap((r, i) => (r.family <= 2 ? [i] : []));

    let key, count;
    await step(page, 'recluster-parent', async () => {
      await page.goto(`${BASE_URL}/plots/${encodeURIComponent(parentJob.plotId)}`);
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]', { timeout: 120_000 });
      const keys = await page.evaluate(async (id) => [...new Uint32Array(await (await fetch(`/api/v1/plots/${id}/frames/0/clusters`)).arrayBuffer())], parentJob.plotId);
      key = keys[family[0]];
      count = keys.filter((k) => k === key).length;
      const row = page.locator(`[data-testid=cluster-row][data-key="${key}"]`);
      // Its centre: the medoid is selected and shown; not while the cluster is hidden (nothing to see there).
      await row.locator('input[type=checkbox]').uncheck();
      assert.ok(await row.locator('[data-testid=go-to-centre]').isDisabled(), 'go to the centre of a hidden cluster');
      await row.locator('input[type=checkbox]').check();
      await row.locator('[data-testid=go-to-centre]').click();
      await page.waitForSelector('[data-testid=selection-count]:text-is("1")');
      assert.ok(await page.isVisible('[data-testid=recluster-selection]'), 'the selection panel offers a re-clustering');
      // A double-click starts one job: the button waits while its request is in flight (held
      // back here for a second so that the wait is seen).
      let release;
      const held = new Promise((resolve) => { release = resolve; });
      await page.route('**/recluster', async (route) => { await held; await route.continue(); });
      const button = row.locator('[data-testid=recluster-cluster]');
      const rowBox = await row.boundingBox();
      await button.dblclick();
      await page.waitForTimeout(300);
      assert.ok(await button.isDisabled(), 'the re-cluster button waits for its request');
      assert.ok(await page.isDisabled('[data-testid=recluster-selection]'), 'so does the selection\'s');
      release();
      await page.waitForSelector('[data-testid=recluster-job]');
      assert.deepEqual(await row.boundingBox(), rowBox, 'the link to the job moved the list');
      await page.unroute('**/recluster');
      assert.ok(await button.isEnabled(), 'the button is back once the job is started');
      const reclusterJobs = (await apiAs(page, 'GET', '/jobs')).body.items.filter((j) => j.type === 'recluster');
      assert.equal(reclusterJobs.length, 1, `one click started one job: ${reclusterJobs.map((j) => j.id)}`);
      await page.click('[data-testid=recluster-job]');
      await page.waitForURL(/\/jobs\/[^/]+$/);
    });

    await step(page, 'recluster-job', async () => {
      await page.waitForSelector('[data-testid=job-state]:text-is("succeeded")', { timeout: 240_000 });
      for (const stage of ['cut', 'mds', 'pwc', 'assemble']) {
        assert.equal(await page.getAttribute(`[data-testid=stage-${stage}]`, 'data-state'), 'succeeded');
      }
      await page.click('[data-testid=job-plot]');
      await page.waitForURL(/\/plots\/[^/]+$/);
    });

    await step(page, 'recluster-child', async () => {
      const childId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
      await page.waitForSelector('[data-testid=plot-canvas][data-state=complete]', { timeout: 120_000 });
      const child = (await apiAs(page, 'GET', `/plots/${childId}`)).body;
      assert.equal(child.points, count, 'the child has the cluster\'s points');
      assert.equal(child.parent, parentJob.plotId);
      assert.equal(await page.textContent('[data-testid=plot-parent] a'), 'e2e families');
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'recluster-child.png') });
      // Back to the parent by its link: it lists the re-clustering.
      await page.click('[data-testid=plot-parent] a');
      await page.waitForSelector('[data-testid=plot-children] a');
      // Named after the cluster, by its label.
      const { label } = (await apiAs(page, 'GET', `/plots/${encodeURIComponent(parentJob.plotId)}`)).body.clusters.find((c) => c.key === key);
      assert.equal(await page.textContent('[data-testid=plot-children]'), `re-clusterings: e2e families: ${label} (${count} points) re-clustered`);
    });
    assert.deepEqual(problems, []);
  });
});
