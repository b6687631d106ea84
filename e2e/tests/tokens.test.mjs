// The API tokens page: a read-only token that expires in 7 days is made and listed as such, and the API
// refuses it a write; a token made with the defaults is full access and never expires.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { BASE_URL, apiAs, launch, newPage, register, step, uniqueName } from '../lib/browser.mjs';

const SHOTS = process.env.TOKENS_SHOTS; // a folder for screenshots to look at, when set
const PASSWORD = 'correct horse battery';
const DAY = 86_400_000;

describe('the API tokens page', () => {
  let browser, page;
  const row = (name) => page.locator(`[data-testid=token-row]:has-text("${name}")`);
  const create = async (name, { scope, days } = {}) => {
    await page.fill('input[placeholder="token name"]', name);
    if (scope) await page.selectOption('label:has-text("Access") select', { label: scope });
    if (days) {
      await page.selectOption('select[aria-label=expires]', 'after');
      await page.fill('input[aria-label=days]', String(days));
    }
    await page.fill('input[placeholder="your password"]', PASSWORD);
    await page.click('button:has-text("Create token")');
    await row(name).waitFor();
    return (await page.textContent('[data-testid=new-token]')).trim();
  };

  before(async () => {
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.setViewportSize({ width: 1400, height: 900 });
    await register(page, uniqueName('tok'), PASSWORD);
    await page.goto(`${BASE_URL}/tokens`);
  });
  after(async () => { await browser?.close(); });

  test('a read-only token expiring in 7 days is listed so, reads, and is refused a write', async () => {
    await step(page, 'tokens-read-only', async () => {
      const before = Date.now();
      const token = await create('notebook', { scope: 'read only', days: 7 });
      assert.match(await page.textContent('.token-created'), /read only, expires/);
      assert.equal(await row('notebook').locator('[data-testid=token-scope]').textContent(), 'read only');
      const [info] = (await apiAs(page, 'GET', '/auth/tokens')).body;
      assert.equal(info.scope, 'read');
      const expires = Date.parse(info.expiresAt);
      assert.ok(expires >= before + 7 * DAY - 60_000 && expires <= Date.now() + 7 * DAY + 60_000, info.expiresAt);
      const shown = await page.evaluate((at) => new Date(at).toLocaleString(), info.expiresAt);
      assert.equal(await row('notebook').locator('[data-testid=token-expires]').textContent(), shown);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: `${SHOTS}/tokens.png`, fullPage: true });
      }

      const bearer = { Authorization: `Bearer ${token}` };
      assert.equal((await fetch(`${BASE_URL}/api/v1/plots?scope=mine`, { headers: bearer })).status, 200);
      const write = await fetch(`${BASE_URL}/api/v1/collections`, {
        method: 'POST', headers: { ...bearer, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'refused' }),
      });
      assert.equal(write.status, 403);
      assert.equal((await write.json()).error.code, 'read_only_token');
      assert.deepEqual((await apiAs(page, 'GET', '/collections')).body, [], 'nothing was made');
    });
  });

  test('a token made with the defaults is full access and never expires', async () => {
    await step(page, 'tokens-defaults', async () => {
      await page.reload();
      await create('script');
      assert.equal(await row('script').locator('[data-testid=token-scope]').textContent(), 'full access');
      assert.equal(await row('script').locator('[data-testid=token-expires]').textContent(), 'never');
    });
  });
});
