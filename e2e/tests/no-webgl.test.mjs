// Without WebGL the viewer says so in words instead of showing a blank canvas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

test('a browser without WebGL gets a clear message', async () => {
  const browser = await launch(['--disable-3d-apis', '--disable-webgl']);
  try {
    const { page } = await newPage(browser);
    await step(page, 'no-webgl', async () => {
      await register(page, uniqueName('nogl'), 'correct horse battery');
      const text = '1 0 0\n0 1 0\n0 0 1\n';
      const created = await apiAs(page, 'POST', '/plots', {
        base64: Buffer.from(text).toString('base64'), filename: 'three.txt', fields: { name: 'three points' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await page.goto(`${BASE_URL}/plots/${created.body.id}`);
      await page.waitForSelector('h1:has-text("WebGL is not available")');
    });
  } finally {
    await browser.close();
  }
});
