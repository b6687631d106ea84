// The local backend's cancel with the real mpirun and the real mdsseries on a market of
// mdsseries-market (kernels/build/bin; KERNELS_BIN overrides): the ranks get the SIGTERM themselves, so a program that handles it
// ends on its own terms; ranks that ignore it are killed with the rest after the grace.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { STAGE_FILES } from '@wpv/jobs/workdir';
import type { StageCommand } from '@wpv/jobs/model';
import { LocalBackend, sessionMembers } from '../../../hpc-bridge/src/backends/local.ts';
import { REAL_KERNELS, sleep } from './gateway.ts';

const root = mkdtempSync(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'local-cancel-'));
const backend = new LocalBackend(2, path.join(root, 'slots'));
let serial = 0;

async function start(argv: string[]): Promise<{ id: string; dir: string }> {
  const dir = mkdtempSync(path.join(root, `stage${serial++}-`));
  const command: StageCommand = { argv, ranks: 2, threads: 1, outputs: [] };
  return { id: await backend.submit({ jobId: 'cancel', stage: 'series', dir, command }), dir };
}

/** The program's output so far ('' before the wrapper has started it). */
const stdoutOf = (dir: string) => (existsSync(path.join(dir, STAGE_FILES.stdout)) ? readFileSync(path.join(dir, STAGE_FILES.stdout), 'utf8') : '');
const running = async (pid: string) => (await sessionMembers(Number(pid))).filter((p) => p.state !== 'Z');

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  for (const start = Date.now(); !condition(); await sleep(100)) {
    assert.ok(Date.now() - start < timeoutMs, `no ${what} within ${timeoutMs} ms`);
  }
}

describe('cancelling a local mpirun stage', () => {
  after(async () => {
    // Nothing of a failed test may outlive the suite.
    for (const dir of readdirSync(root).map((d) => path.join(root, d)).filter((d) => existsSync(path.join(d, STAGE_FILES.launch)))) {
      await backend.cancel({ id: String(JSON.parse(readFileSync(path.join(dir, STAGE_FILES.launch), 'utf8')).pid), dir });
    }
    rmSync(root, { recursive: true, force: true });
  });

  test('mdsseries on 2 ranks ends with its own "cancelled" line, exit 143 recorded, no partial output, nothing left running', async () => {
    const bin = process.env.KERNELS_BIN || REAL_KERNELS;
    // Large enough to run for seconds: a 60-stock series ends in half a second, before the cancel lands.
    execFileSync(path.join(bin, 'mdsseries-market'), ['--directory', root, '--stocks', '800', '--days', '2750']);
    const { id, dir } = await start([path.join(bin, 'mdsseries'), '--prices', path.join(root, 'prices.bin'), '--output', path.join(root, 'frames.txt'),
      '--window-days', '365', '--step-days', '7', '--alpha', '0.5', '--max-iterations-per-temperature', '10']);
    // After a first frame, the output's temporary file holds a partial series.
    await until(() => /"phase":"frame"/.test(stdoutOf(dir)), 'first frame');
    assert.ok(readdirSync(root).some((name) => name.startsWith('frames.txt.tmp')), 'a partial output is being written');
    await backend.cancel({ id, dir });
    assert.deepEqual(await running(id), [], 'no process of the stage is left');
    const lines = stdoutOf(dir).trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(lines.at(-1).phase, 'cancelled', `last line ${JSON.stringify(lines.at(-1))}`);
    const exit = JSON.parse(readFileSync(path.join(dir, STAGE_FILES.exit), 'utf8'));
    assert.equal(exit.exitCode, 143, 'the ranks\' exit code, passed on by mpirun and the wrapper');
    assert.deepEqual(readdirSync(root).filter((name) => name.startsWith('frames')), [], 'no output, no temporary file');
    assert.deepEqual((await backend.poll([{ id, dir }])).get(id), { state: 'ended' });
  });

  test('ranks that ignore SIGTERM are killed after the grace, not left behind by their mpirun', async () => {
    const { id, dir } = await start(['bash', '-c', 'trap "" TERM; echo started; exec sleep 300']);
    await until(() => stdoutOf(dir).split('\n').filter((line) => line === 'started').length === 2, 'two ranks started');
    assert.equal((await running(id)).filter((p) => p.group !== Number(id)).length, 2, 'each rank in its own process group');
    const cancelled = Date.now();
    await backend.cancel({ id, dir });
    assert.deepEqual(await running(id), [], 'no rank outlives the cancel');
    assert.ok(Date.now() - cancelled >= 4000, 'the ranks had their grace');
  });
});
