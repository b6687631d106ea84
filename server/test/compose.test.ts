// No Docker engine runs here, so docker-compose.yml is checked by what can run:
// its structure, and that it feeds the services the variables they read.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadJobConfig } from '@wpv/jobs/config';

const root = path.resolve(import.meta.dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;

test('every service has a healthcheck, and the backing services are the real images', () => {
  assert.deepEqual(Object.keys(services).sort(), ['hpc-bridge', 'mongo', 'rabbitmq', 'server', 'workers']);
  for (const [name, service] of Object.entries(services)) assert.ok(service.healthcheck?.test, `${name} has no healthcheck`);
  assert.match(services.mongo.image, /^mongo:/);
  assert.match(services.rabbitmq.image, /^rabbitmq:.*management/);
});

test('every service restarts when its process dies, and its healthcheck is an exec-form probe with limits', () => {
  for (const [name, service] of Object.entries(services)) {
    assert.ok(['always', 'unless-stopped', 'on-failure'].includes(service.restart), `${name}: restart is ${service.restart}`);
    const { test: probe, interval, timeout, retries } = service.healthcheck;
    assert.ok(Array.isArray(probe) && ['CMD', 'CMD-SHELL'].includes(probe[0]) && probe.length > 1, `${name}: healthcheck test ${probe}`);
    for (const duration of [interval, timeout]) assert.match(String(duration), /^\d+(ms|s|m)$/, `${name}: ${duration}`);
    assert.ok(Number.isInteger(retries) && retries > 0, `${name}: retries`);
  }
});

test('the Node services start after the store and the broker are healthy', () => {
  for (const name of ['server', 'workers', 'hpc-bridge']) {
    const dependsOn = services[name].depends_on;
    for (const backing of ['mongo', 'rabbitmq']) assert.equal(dependsOn?.[backing]?.condition, 'service_healthy', `${name} -> ${backing}`);
  }
});

test('the gateway services are healthy only once their process wrote its ready file, on a tmpfs a restart clears', () => {
  const workerSource = readFileSync(path.join(root, 'workers/src/main.ts'), 'utf8');
  const bridgeSource = readFileSync(path.join(root, 'hpc-bridge/src/main.ts'), 'utf8');
  for (const source of [workerSource, bridgeSource]) assert.match(source, /process\.env\.READY_FILE/);
  for (const name of ['workers', 'hpc-bridge']) {
    const { environment, healthcheck, tmpfs } = services[name];
    const ready = environment.READY_FILE;
    assert.ok(ready, `${name}: READY_FILE`);
    assert.ok(healthcheck.test.join(' ').includes(ready), `${name}: the healthcheck reads ${ready}`);
    const mounts = (tmpfs as string[]).map((m) => m.split(':')[0]!);
    assert.ok(mounts.some((m) => ready.startsWith(`${m}/`)), `${name}: ${ready} is not on a tmpfs (${mounts})`);
  }
});

test('the Node services are built from a Dockerfile in the repository and start an existing entry point', () => {
  for (const name of ['server', 'workers', 'hpc-bridge']) {
    const { build, command } = services[name];
    assert.ok(existsSync(path.join(root, build.context, build.dockerfile)), `${name}: ${build.dockerfile}`);
    const entry = command.at(-1);
    // The gateway's services are behind a profile until their entry points exist.
    if (!services[name].profiles) assert.ok(existsSync(path.join(root, entry)), `${name}: ${entry}`);
  }
});

test('the server gets the same variables the local scripts set, pointing at the compose services', () => {
  const env = services.server.environment;
  for (const key of ['MONGODB_URI', 'AMQP_URL', 'PORT', 'DATA_DIR']) assert.ok(env[key], key);
  assert.match(env.MONGODB_URI, /^mongodb:\/\/mongo:27017\//);
  assert.match(env.AMQP_URL, /@rabbitmq:5672$/);
  const configSource = readFileSync(path.join(root, 'server/src/config.ts'), 'utf8');
  for (const key of ['MONGODB_URI', 'AMQP_URL', 'PORT', 'DATA_DIR']) assert.match(configSource, new RegExp(`env\\.${key}|'${key}'`));
  assert.ok('mongo-data' in compose.volumes && 'rabbitmq-data' in compose.volumes);
});

test('no default broker password: compose refuses to start without one', () => {
  assert.match(services.rabbitmq.environment.RABBITMQ_DEFAULT_PASS, /\$\{RABBITMQ_PASSWORD:\?/);
});

test('the broker lets a worker hold a job\'s message for the whole stage time limit, as scripts/stack.sh configures it', () => {
  const args = services.rabbitmq.environment.RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS ?? '';
  const ms = Number(/-rabbit consumer_timeout (\d+)/.exec(args)?.[1]);
  assert.ok(ms > loadJobConfig('/tmp', {}).stageTimeLimitSeconds * 1000, `consumer_timeout: ${args}`);
});
