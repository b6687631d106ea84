// scripts/stack.sh, the embedded FerretDB and RabbitMQ: their state is their owner's alone
// (the broker's password is in the env file and the broker's config), and every port they
// open, Erlang's distribution port and port mapper included, listens on loopback only.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { loadJobConfig } from '@wpv/jobs/config';
import { freePort, stackMongodbUri } from './jobs/supervision.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const mode = async (file: string) => ((await stat(file)).mode & 0o777).toString(8);

/** The local addresses of the TCP sockets listening on `port` (/proc/net/tcp and tcp6: no ss needed). */
async function listeningOn(port: number): Promise<string[]> {
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8')).split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state !== '0A' || !local) continue; // 0A: LISTEN
      const [hex, hexPort] = local.split(':') as [string, string];
      if (parseInt(hexPort, 16) !== port) continue;
      // IPv4: one little-endian word; IPv6: four of them.
      const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
      addresses.push(hex.length === 8 ? words[0]!.match(/../g)!.map((b) => parseInt(b, 16)).join('.') : words.join(''));
    }
  }
  return addresses;
}
const LOOPBACK = new Set(['127.0.0.1', `${'0'.repeat(31)}1`]);

/** A stack of its own (scripts/stack.sh) on free ports, the store on a port or (`unix`) on its socket; stopped after the suite. */
function privateStack(store: 'port' | 'unix') {
  const ports = { mongo: 0, amqp: 0, dist: 0, epmd: 0 };
  const it = {
    state: '',
    ports,
    // A port mapper of its own: the host's shared one (port 4369) may have been started by another broker.
    env: () => ({ ...process.env, ERL_EPMD_PORT: String(ports.epmd) }),
    stack: (cmd: string) =>
      run('bash', [path.join(ROOT, 'scripts/stack.sh'), cmd, it.state, store === 'unix' ? 'unix' : String(ports.mongo), String(ports.amqp), String(ports.dist)], { env: it.env(), timeout: 180_000 }),
  };
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'stack-'));
    it.state = path.join(dir, 'stack');
    for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = store === 'unix' && name === 'mongo' ? 0 : await freePort();
    // A state dir as an older version left it, readable by everyone.
    await mkdir(path.join(it.state, 'rabbitmq'), { recursive: true, mode: 0o755 });
    await writeFile(path.join(it.state, 'env'), '', { mode: 0o644 });
    await writeFile(path.join(it.state, 'rabbitmq/rabbitmq.conf'), '', { mode: 0o644 });
    await it.stack('start');
  });
  after(async () => {
    await it.stack('stop').catch(() => {});
    await run('epmd', ['-kill'], { env: it.env() }).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });
  return it;
}

describe('scripts/stack.sh', () => {
  const stack = privateStack('port');
  const { ports } = stack;

  test('the state dir and the files holding the broker password are private, older ones made so', async () => {
    const { state } = stack;
    assert.equal(await mode(state), '700');
    for (const file of ['env', 'rabbitmq/rabbitmq.conf', 'rabbitmq/password', 'ferretdb.log', 'rabbitmq.log']) {
      assert.equal(await mode(path.join(state, file)), '600', file);
    }
    assert.match(await readFile(path.join(state, 'rabbitmq/rabbitmq.conf'), 'utf8'), /^default_pass = /m);
  });

  test('the broker lets a worker hold a job\'s message for the whole stage time limit (its default was 30 minutes)', async () => {
    const cookie = await readFile(path.join(stack.state, 'rabbitmq/home/.erlang.cookie'), 'utf8');
    const { stdout } = await run('rabbitmqctl', ['--erlang-cookie', cookie.trim(), '-n', `wpv${ports.amqp}@localhost`, 'eval', 'application:get_env(rabbit, consumer_timeout).'], { env: stack.env(), timeout: 60_000 });
    const ms = Number(/^\{ok,(\d+)\}/m.exec(stdout)?.[1]);
    assert.ok(ms > loadJobConfig('/tmp', {}).stageTimeLimitSeconds * 1000, `consumer_timeout ${stdout.trim()}`);
  });

  test('FerretDB, AMQP, Erlang distribution and the port mapper listen on loopback only', async () => {
    for (const [name, port] of Object.entries(ports)) {
      const addresses = await listeningOn(port);
      assert.ok(addresses.length > 0, `nothing listens on the ${name} port ${port}`);
      assert.deepEqual(addresses.filter((a) => !LOOPBACK.has(a)), [], `${name} port ${port}`);
    }
  });
});

/** The inodes of the TCP sockets listening on any port. */
async function listeningInodes(): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8')).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

describe('scripts/stack.sh with the store on its socket (MONGO_PORT unset in up.sh)', () => {
  const stack = privateStack('unix');

  test('the store listens on no TCP port, on a socket only its owner can open, which the env file\'s MONGODB_URI reaches', async () => {
    const socket = path.join(stack.state, 'ferretdb.sock');
    const info = await stat(socket);
    assert.ok(info.isSocket());
    assert.equal((info.mode & 0o777).toString(8), '700');
    const pid = (await readFile(path.join(stack.state, 'ferretdb.pid'), 'utf8')).trim();
    const listening = await listeningInodes();
    const fds = await readdir(`/proc/${pid}/fd`);
    const sockets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
    assert.deepEqual(sockets.filter((target) => listening.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '')), [], 'FerretDB listens on a TCP port');
    const client = new MongoClient(stackMongodbUri(stack.state), { serverSelectionTimeoutMS: 10_000 });
    try {
      assert.deepEqual(await client.db().command({ ping: 1 }), { ok: 1 });
    } finally {
      await client.close();
    }
  });
});
