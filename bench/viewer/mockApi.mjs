// A stand-in for the /api/v1 plot-reading endpoints with synthetic data, so the viewer
// benchmarks measure the browser side only (no database in the timings).
//   /plots/points-<N>       one frame of N points in 20 clusters
//   /plots/series-<F>x<N>   F frames of N labelled points (labels shuffled per frame)
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const CLUSTERS = 20;
const cache = new Map();

function cloud(n, seed) {
  const r = rng(seed);
  const positions = new Float32Array(3 * n);
  const clusters = new Uint32Array(n);
  const centres = Array.from({ length: CLUSTERS }, () => [r() * 2 - 1, r() * 2 - 1, r() * 2 - 1]);
  for (let i = 0; i < n; i++) {
    const c = Math.floor((i * CLUSTERS) / n);
    clusters[i] = c;
    for (let d = 0; d < 3; d++) positions[3 * i + d] = centres[c][d] + (r() + r() + r() - 1.5) * 0.25;
  }
  return { positions, clusters };
}

function parseId(id) {
  let m = /^points-(\d+)$/.exec(id);
  if (m) return { frames: 1, n: Number(m[1]) };
  m = /^series-(\d+)x(\d+)$/.exec(id);
  if (m) return { frames: Number(m[1]), n: Number(m[2]) };
  return null;
}

/** Frame f: labels S0..S(n-1) in a per-frame order, positions drifting with f. */
function frame(id, f) {
  const key = `${id}/${f}`;
  if (cache.has(key)) return cache.get(key);
  const { frames, n } = parseId(id);
  const base = cloud(n, 1);
  let data;
  if (frames === 1) data = { ...base, labels: null };
  else {
    const order = Array.from({ length: n }, (_, i) => i);
    const r = rng(1000 + f);
    for (let i = n - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
    const positions = new Float32Array(3 * n);
    const clusters = new Uint32Array(n);
    order.forEach((p, i) => {
      const a = (f / frames) * Math.PI * 2 + p * 0.001;
      positions[3 * i] = base.positions[3 * p] + 0.3 * Math.cos(a);
      positions[3 * i + 1] = base.positions[3 * p + 1] + 0.3 * Math.sin(a);
      positions[3 * i + 2] = base.positions[3 * p + 2];
      clusters[i] = (base.clusters[p] + Math.floor(f / 50)) % CLUSTERS;
    });
    data = { positions, clusters, labels: order.map((p) => `S${p}`) };
  }
  if (frames > 1 || n <= 2_000_000) cache.set(key, data);
  return data;
}

function plotJson(id) {
  const { frames, n } = parseId(id);
  const now = new Date(0).toISOString();
  return {
    id, name: id, description: 'synthetic benchmark plot', owner: 'bench', visibility: 'public', collection: null, tags: [],
    createdAt: now, updatedAt: now, format: 'text', originalName: `${id}.txt`, frames, points: n,
    clusters: Array.from({ length: CLUSTERS }, (_, k) => {
      const h = (k * 137) % 360;
      return { key: k, label: `cluster ${k}`, color: { r: 128 + Math.round(127 * Math.cos((h * Math.PI) / 180)), g: 128 + Math.round(127 * Math.sin((h * Math.PI) / 180)), b: (k * 53) % 256, a: 255 }, shape: 0, size: 1, visible: true, count: Math.ceil(n / CLUSTERS) };
    }),
    bbox: { min: [-1.5, -1.5, -1.5], max: [1.5, 1.5, 1.5] },
    frameList: Array.from({ length: frames }, (_, f) => ({ index: f, title: `week ${f + 1}`, points: n, edges: 0 })),
    views: {}, hasThumbnail: false,
  };
}

function send(res, status, body, type) {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(body);
}
const json = (res, status, value) => send(res, status, Buffer.from(JSON.stringify(value)), 'application/json');

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.png': 'image/png' };

/** Serves `staticDirs` (first match wins; unknown paths fall back to the first dir's index.html) and the mock API. */
export function startMockServer(staticDirs, port = 0) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    if (p.startsWith('/api/v1/')) {
      const route = p.slice('/api/v1'.length);
      if (route === '/auth/me') return json(res, 401, { error: { code: 'unauthorized', message: 'not logged in' } });
      let m = /^\/plots\/([^/]+)(\/.*)?$/.exec(route);
      const id = m && decodeURIComponent(m[1]);
      if (!m || !parseId(id)) return json(res, 404, { error: { code: 'not_found', message: 'no such plot' } });
      const rest = m[2] ?? '';
      if (rest === '') return json(res, 200, plotJson(id));
      if (rest === '/views') return json(res, 200, {});
      if (rest === '/thumbnail') return json(res, 404, { error: { code: 'not_found', message: 'no thumbnail' } });
      m = /^\/frames\/(\d+)\/(positions|clusters|labels|edges)$/.exec(rest);
      if (m) {
        const data = frame(id, Number(m[1]));
        if (m[2] === 'positions') return send(res, 200, Buffer.from(data.positions.buffer), 'application/octet-stream');
        if (m[2] === 'clusters') return send(res, 200, Buffer.from(data.clusters.buffer), 'application/octet-stream');
        if (m[2] === 'labels') return json(res, 200, data.labels ?? Array.from({ length: data.clusters.length }, (_, i) => `P${i}`));
        return json(res, 200, []);
      }
      return json(res, 404, { error: { code: 'not_found', message: 'not mocked' } });
    }
    for (const dir of staticDirs) {
      const file = path.join(dir, path.normalize(p).replace(/^(\.\.[/\\])+/, ''));
      try {
        const body = await readFile(file);
        return send(res, 200, body, MIME[path.extname(file)] ?? 'application/octet-stream');
      } catch { /* try the next directory */ }
    }
    send(res, 200, await readFile(path.join(staticDirs[0], 'index.html')), 'text/html');
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
