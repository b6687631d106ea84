// Chromium for the end-to-end tests, with a screenshot kept for every failed step.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = (process.env.WPV_URL ?? 'http://localhost:8080').replace(/\/$/, '');
export const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');

export function launch(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...extraArgs, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
}

export async function newPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  return { context, page, problems };
}

/** Runs a test step; on failure saves a screenshot of `page` under e2e/artifacts/ and rethrows. */
export async function step(page, name, fn) {
  try {
    return await fn();
  } catch (e) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(`${e.message}\n(screenshot: ${file})`, { cause: e });
  }
}

export function uniqueName(prefix) {
  return `${prefix}_${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
}

export async function register(page, username, password) {
  await page.goto(`${BASE_URL}/login`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('button:has-text("Register")');
  await page.waitForSelector(`[data-testid=username]:has-text("${username}")`);
}

export async function waitFirstFrame(page) {
  await page.waitForFunction(() => performance.getEntriesByName('wpv:first-frame').length > 0, null, { timeout: 120_000 });
}

/** Canvas pixels as a PNG buffer (clip in canvas coordinates, optional), without the notice drawn over the canvas. */
export async function canvasShot(page, clip) {
  const box = await page.locator('[data-testid=plot-canvas]').boundingBox();
  return page.screenshot({
    clip: clip ? { x: box.x + clip.x, y: box.y + clip.y, width: clip.width, height: clip.height } : box,
    style: '[data-testid=notice] { visibility: hidden; }',
  });
}

/** The API as the logged-in page's session (cookie + CSRF token). */
export async function apiAs(page, method, apiPath, body, contentType) {
  return page.evaluate(async ({ method, apiPath, body, contentType }) => {
    const me = await (await fetch('/api/v1/auth/me')).json();
    const headers = { 'X-CSRF-Token': me.csrfToken ?? '' };
    let payload = body;
    if (body && body.base64) {
      const form = new FormData();
      for (const [k, v] of Object.entries(body.fields)) form.set(k, v);
      form.set('file', new Blob([Uint8Array.from(atob(body.base64), (c) => c.charCodeAt(0))]), body.filename);
      payload = form;
    } else if (body !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch('/api/v1' + apiPath, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }, { method, apiPath, body, contentType });
}
