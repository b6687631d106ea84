// Hostile and broken requests against a real API process (server/src/main.ts as a child
// process, as scripts/up.sh runs it): aborted, truncated, malformed and stalled uploads on
// both upload routes, malformed cookies, unexpected errors. After each, the process still
// answers /health, its temporary files are gone, and it logged no unhandled rejection.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sweepUploadTmp } from '../src/http/upload.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const IDLE_MS = 1500;

interface Api {
  port: number;
  dataDir: string;
  tmpDir: string;
  log: () => string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startApi(dataDir: string, env: Record<string, string> = {}): Promise<Api> {
  const base = process.env.MONGODB_URI;
  if (!base || !process.env.AMQP_URL) throw new Error('MONGODB_URI and AMQP_URL must point at the test stack');
  const uri = new URL(base);
  uri.pathname = `/wpvtest_${randomBytes(6).toString('hex')}`;
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      MONGODB_URI: uri.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      UPLOAD_IDLE_MS: String(IDLE_MS),
      BODY_TIMEOUT_MS: String(IDLE_MS),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !output.includes('listening'); i++) {
    if (child.exitCode !== null || i > 300) throw new Error(`the API did not start:\n${output}`);
    await sleep(100);
  }
  return {
    port,
    dataDir,
    tmpDir: path.join(dataDir, 'tmp'),
    log: () => output,
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const uploadFiles = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('upload-'));

async function until(what: string, check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(50);
  }
}

/** Whether `response` holds a whole HTTP response with a Content-Length body. */
function isWholeResponse(response: string): boolean {
  const headEnd = response.indexOf('\r\n\r\n');
  const length = /^content-length: *(\d+)/im.exec(response.slice(0, headEnd));
  return headEnd >= 0 && length !== null && response.length >= headEnd + 4 + Number(length[1]);
}

/**
 * Sends raw bytes and returns what came back by the time the server closed the connection (or
 * `waitMs` passed); with `untilResponse`, as soon as a whole response is in (a kept-alive connection stays open).
 */
function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  options: { destroyAfterSend?: boolean; waitMs?: number; untilResponse?: boolean } = {},
): Promise<{ response: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ response, closedByServer });
    };
    const timer = setTimeout(() => finish(false), options.waitMs ?? 10_000);
    socket.on('data', (d) => {
      response += d.toString('latin1');
      if (options.untilResponse && isWholeResponse(response)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err) => (done ? undefined : reject(err)));
    socket.on('connect', async () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.destroyAfterSend) {
        // Let the server see (and start writing) the part before the client goes away.
        await sleep(300);
        finish(false);
      }
    });
  });
}

const BOUNDARY = 'wpvTestBoundary';
function multipartHead(port: number, route: string, token: string, contentLength: number, contentType = `multipart/form-data; boundary=${BOUNDARY}`): string {
  return [
    `POST /api/v1${route} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${token}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${contentLength}`,
    '',
    '',
  ].join('\r\n');
}
const filePartHead = (field = 'file') => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="points.txt"\r\nContent-Type: text/plain\r\n\r\n`;
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

let api: Api;
let token: string;
const routes: { route: string; fields: string }[] = [
  { route: '/plots', fields: fieldPart('name', 'aborted') },
  { route: '/jobs', fields: fieldPart('type', 'vectors') },
];

async function healthy(): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/health`);
  assert.equal(res.status, 200, await res.text());
  assert.equal(api.child.exitCode, null, 'the API process is still running');
}

before(async () => {
  const dataDir = path.join(process.env.WPV_TEST_DIR ?? '/tmp', `robustness-${randomBytes(4).toString('hex')}`);
  // A temporary file left by a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max).
  await mkdir(path.join(dataDir, 'tmp'), { recursive: true });
  await writeFile(path.join(dataDir, 'tmp', 'upload-4194305-leftover'), 'x');
  api = await startApi(dataDir);
  const base = `http://127.0.0.1:${api.port}/api/v1`;
  const credentials = { username: 'mallory', password: 'a long unusual passphrase' };
  const post = (route: string, body: unknown) => fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await post('/auth/register', credentials)).status, 201);
  token = (await (await post('/auth/token', credentials)).json()).token;
});
after(async () => {
  await api.stop();
  assert.doesNotMatch(api.log(), /unhandled/i, 'no promise rejection went unhandled');
  await rm(api.dataDir, { recursive: true, force: true });
});

describe('uploads that fail half-way leave no trace and no crash', () => {
  test('start-up removed the temporary file of a process that is gone', async () => {
    assert.deepEqual(await uploadFiles(api.tmpDir), []);
  });

  for (const { route, fields } of routes) {
    for (const [size, bytes] of [['small', 2_000], ['large', 24 * 1024 * 1024]] as const) {
      test(`POST ${route}: the client disconnects mid-body (${size} body)`, async () => {
        const sent = Buffer.concat([Buffer.from(fields + filePartHead()), Buffer.alloc(bytes, '1 2 3\n')]);
        const exchange = rawExchange(api.port, [multipartHead(api.port, route, token, sent.length + 1_000_000), sent], { destroyAfterSend: true });
        if (size === 'large') await until('the upload is being written to a temporary file', async () => (await uploadFiles(api.tmpDir)).length > 0);
        await exchange;
        await until('the temporary files are removed', async () => (await uploadFiles(api.tmpDir)).length === 0);
        await healthy();
      });
    }

    test(`POST ${route}: a body without its closing boundary is a 400`, async () => {
      const body = fields + filePartHead() + '0 1 2 3 1\n'.repeat(100);
      const { response } = await rawExchange(api.port, [multipartHead(api.port, route, token, Buffer.byteLength(body)), body], { untilResponse: true });
      assert.equal(statusOf(response), 400, response);
      assert.match(response, /multipart/);
      assert.deepEqual(await uploadFiles(api.tmpDir), []);
      await healthy();
    });

    test(`POST ${route}: multipart without a boundary is a 400`, async () => {
      const body = filePartHead() + '0 1 2 3 1\n';
      const head = multipartHead(api.port, route, token, Buffer.byteLength(body), 'multipart/form-data');
      const { response } = await rawExchange(api.port, [head, body], { untilResponse: true });
      assert.equal(statusOf(response), 400, response);
      assert.match(response, /boundary/i);
      await healthy();
    });

    test(`POST ${route}: an upload that stalls is cut off after the idle limit`, async () => {
      const sent = fields + filePartHead() + '0 1 2 3 1\n';
      const started = Date.now();
      const { closedByServer } = await rawExchange(api.port, [multipartHead(api.port, route, token, 1_000_000), sent], { waitMs: IDLE_MS + 5000 });
      assert.ok(closedByServer, 'the server ended the connection');
      assert.ok(Date.now() - started >= IDLE_MS - 100, 'not before the idle limit');
      await until('the temporary files are removed', async () => (await uploadFiles(api.tmpDir)).length === 0);
      await healthy();
    });
  }
});

describe('other hostile requests', () => {
  test('a malformed session cookie counts as no session', async () => {
    const headers = { cookie: 'wpv_session=%E0%A4%A' };
    assert.equal((await fetch(`http://127.0.0.1:${api.port}/api/v1/health`, { headers })).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${api.port}/api/v1/plots`, { headers })).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${api.port}/api/v1/auth/me`, { headers })).status, 401);
  });

  test('a JSON body that trickles in is cut off after the body deadline', async () => {
    const head = [`PUT /api/v1/plots/x/views/v HTTP/1.1`, `Host: 127.0.0.1`, `Authorization: Bearer ${token}`, 'Content-Type: application/json', 'Content-Length: 100', '', ''].join('\r\n');
    const { closedByServer } = await rawExchange(api.port, [head, '{"a":'], { waitMs: IDLE_MS + 5000 });
    assert.ok(closedByServer);
    await healthy();
  });
});

describe('an unexpected error', () => {
  test('is a 500 JSON naming a request id that is in the log; the process keeps serving', async () => {
    // The upload directory cannot be made (a file is in its way): a fault of the server, not of the request.
    await rm(api.tmpDir, { recursive: true, force: true });
    await writeFile(api.tmpDir, 'in the way');
    try {
      const form = new FormData();
      form.set('file', new Blob(['0 1 2 3 1\n']), 'points.txt');
      const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/plots`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      assert.equal(res.status, 500);
      const body = await res.json();
      assert.equal(body.error.code, 'internal');
      assert.equal(body.error.requestId, res.headers.get('x-request-id'));
      await until('the request id is logged', async () => api.log().includes(body.error.requestId));
      assert.doesNotMatch(JSON.stringify(body), /ENOTDIR|EEXIST|\/tmp/, 'no server detail in the body');
    } finally {
      await rm(api.tmpDir, { force: true });
    }
    await healthy();
  });
});

test('sweepUploadTmp keeps the files of running processes', async () => {
  const dir = path.join(process.env.WPV_TEST_DIR ?? '/tmp', `sweep-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  const names = [`upload-${process.ppid}-live`, `upload-${process.pid}-mine`, 'upload-4194305-dead', 'upload-oldstyle', 'other-file'];
  for (const name of names) await writeFile(path.join(dir, name), '');
  assert.equal(await sweepUploadTmp(dir), 3);
  assert.deepEqual((await readdir(dir)).sort(), [`upload-${process.ppid}-live`, 'other-file'].sort());
  await rm(dir, { recursive: true });
});
