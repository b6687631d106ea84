// Starts the real app in-process against the test stack's FerretDB and RabbitMQ
// (MONGODB_URI / AMQP_URL exported by scripts/test.sh), one database per test file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Plot } from '@wpv/schema';
import { createApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { configureTimeouts } from '../src/http/timeouts.ts';
import { AmqpLink } from '../src/storage/amqp.ts';
import { openStore, type Store } from '../src/storage/db.ts';
import type { Plots } from '../src/services/plots.ts';

export interface TestServer {
  url: string;
  keepAliveTimeout: number;
  store: Store;
  plots: Plots;
  config: Config;
  close(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  const base = process.env.MONGODB_URI;
  if (!base || !process.env.AMQP_URL) throw new Error('run through `npm test`: MONGODB_URI and AMQP_URL must point at the test stack');
  const uri = new URL(base);
  uri.pathname = `/wpvtest_${randomBytes(6).toString('hex')}`;
  const config = loadConfig({ ...process.env, MONGODB_URI: uri.toString(), DATA_DIR: `${process.env.WPV_TEST_DIR ?? '/tmp'}/server-data`, ...env });
  const api = await startApi(config);
  return { url: api.url, keepAliveTimeout: api.server.keepAliveTimeout, store: api.store, plots: api.plots, config, close: () => api.close(5000) };
}

/** The app as main.ts runs it, on a free port of 127.0.0.1, with its own store and broker link. */
export async function startApi(config: Config) {
  const store = await openStore(config.mongodbUri);
  const amqp = new AmqpLink(config.amqpUrl);
  await amqp.start();
  const { app, jobs, plots } = createApp({ config, store, amqp });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  configureTimeouts(server); // as in main.ts
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    store,
    plots,
    /** Lets requests in flight finish before the store closes under them (streams get `graceMs`); drops the test database. */
    async close(graceMs: number) {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(force);
      await plots.removalsDone(); // deleted plots' data, removed after the answer
      await jobs.close(); // the job broker link, opened by a first submission
      await amqp.close();
      await store.db.dropDatabase();
      await store.client.close();
    },
  };
}

/** A client that keeps its own cookie and CSRF token, like one browser tab. */
export class Client {
  cookie = '';
  csrf = '';
  bearer = '';
  constructor(readonly base: string) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (this.csrf && method !== 'GET') h['x-csrf-token'] = this.csrf;
    if (this.bearer) h.authorization = `Bearer ${this.bearer}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData || body instanceof Uint8Array || typeof body === 'string') payload = body as BodyInit;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] = 'application/json';
    }
    const res = await fetch(this.base + '/api/v1' + path, { method, headers: h, body: payload });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0]!;
    return res;
  }

  async json<T = any>(method: string, path: string, body?: unknown, expected = 200): Promise<T> {
    const res = await this.request(method, path, body);
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status} ${text}`);
    return text ? JSON.parse(text) : (undefined as T);
  }

  async signUp(username: string, password = 'correct horse battery'): Promise<void> {
    await this.json('POST', '/auth/register', { username, password }, 201);
    const me = await this.json('POST', '/auth/login', { username, password });
    this.csrf = me.csrfToken;
  }

  async upload(name: string, content: string | Uint8Array<ArrayBuffer>, fields: Record<string, string> = {}): Promise<Response> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    form.set('file', new Blob([content]), name);
    return this.request('POST', '/plots', form);
  }

  /** An upload that must succeed: the new plot. */
  async uploaded(name: string, content: string | Uint8Array<ArrayBuffer>, fields: Record<string, string> = {}): Promise<Plot> {
    return expectReply(await this.upload(name, content, fields), 201);
  }
}

/** A client of its own, signed up and logged in as `username`. */
export async function signedIn(url: string, username = `user${randomBytes(3).toString('hex')}`): Promise<Client> {
  const client = new Client(url);
  await client.signUp(username);
  return client;
}

/** The JSON body of a reply that must have this status (an error's: naming this field, with this code). */
export async function expectReply(res: Response, status: number, field?: string, code?: string): Promise<any> {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  if (field) assert.equal(body.error.field, field, JSON.stringify(body));
  if (code) assert.equal(body.error.code, code, JSON.stringify(body));
  return body;
}

export const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

/** A ZIP of text entries (a time-series upload), built in memory. */
export async function zipOf(frames: Record<string, string>): Promise<Uint8Array<ArrayBuffer>> {
  const yazl = (await import('yazl')).default;
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(frames)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const parts: Buffer[] = [];
  for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}
