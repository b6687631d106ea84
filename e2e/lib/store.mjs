// The private stack's FerretDB, stopped for outage tests and started again. The stack is the one
// e2e/run.sh's server uses under bench/with-stack.sh or scripts/test.sh (WPV_TEST_DIR); there is
// none against a server at WPV_URL, and tests that need it say so through `skipWithoutStack`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const STACK = process.env.WPV_TEST_DIR && path.join(process.env.WPV_TEST_DIR, 'stack');
const STACK_SCRIPT = path.resolve(import.meta.dirname, '../../scripts/stack.sh');

/** A test option: skipped, with the reason, where there is no private stack to stop. */
export const skipWithoutStack = { skip: !STACK && 'no private stack (WPV_TEST_DIR)' };

/** Stops FerretDB, waits until it is gone, runs `during`, then starts it again (also when `during` throws). */
export async function whileStoreDown(during) {
  const pid = Number(readFileSync(path.join(STACK, 'ferretdb.pid'), 'utf8'));
  const ports = [new URL(process.env.MONGODB_URI).port, new URL(process.env.AMQP_URL).port];
  process.kill(-pid, 'SIGTERM');
  try {
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 100));
    await during();
  } finally {
    execFileSync('bash', [STACK_SCRIPT, 'start', STACK, ...ports], { stdio: 'ignore' });
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
