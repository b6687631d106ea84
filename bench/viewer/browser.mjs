// The viewer benchmarks' browser: headless Chromium with SwiftShader (software WebGL) in a
// 1280×800 window, over the built client and the mock plot API (mockApi.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startMockServer } from './mockApi.mjs';

const root = path.resolve(import.meta.dirname, '../..');
/** the built client; CLIENT_DIST as for the server */
const dist = path.resolve(process.env.CLIENT_DIST ?? path.join(root, 'client/dist'));
/** tells this run's browser processes from others on the machine */
export const TAG = `--wpv-bench-run=${process.pid}`;
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', TAG];

/** Serves the built client (built first when missing), `pages/` and `extraDirs`, and launches the browser. */
export async function openBench(extraDirs = []) {
  if (!existsSync(path.join(dist, 'index.html'))) execFileSync('npm', ['run', 'build', '-w', 'client'], { cwd: root, stdio: 'inherit' });
  const server = await startMockServer([dist, path.join(import.meta.dirname, 'pages'), ...extraDirs]);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    browser,
    /** runs `fn` on a fresh page in its own context */
    async withPage(fn) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      try { return await fn(page); } finally { await context.close(); }
    },
    async close() {
      await browser.close();
      server.close();
    },
  };
}

/** The machine and browser the figures come from, for the report. */
export function machine(browser) {
  const model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const flags = /^flags\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1].split(' ') ?? [];
  const simd = ['sse4_2', 'avx', 'avx2', 'avx512f'].filter((f) => flags.includes(f)).join(' ');
  return `${model} (${os.cpus().length} cores, ${simd}; load average ${os.loadavg()[0].toFixed(1)} at the start), Chromium ${browser.version()}, flags \`${CHROMIUM_ARGS.filter((a) => a !== TAG).join(' ')}\``;
}

/** Count, mean and percentiles of durations in ms. */
export function stats(durations) {
  const d = [...durations].sort((a, b) => a - b);
  const at = (q) => d[Math.min(d.length - 1, Math.floor(d.length * q))] ?? NaN;
  return { count: d.length, mean: d.reduce((a, b) => a + b, 0) / (d.length || 1), p50: at(0.5), p95: at(0.95), max: d.at(-1) ?? NaN };
}
