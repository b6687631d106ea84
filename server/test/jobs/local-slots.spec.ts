// The local backend's CPU slots with the real mpirun and run-stage.sh: a program takes
// ranks × threads of them, so two one-CPU programs share a 2-CPU machine while a
// two-CPU one runs alone.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { STAGE_FILES } from '@wpv/jobs/workdir';
import type { StageCommand } from '@wpv/jobs/model';
import { LocalBackend } from '../../../hpc-bridge/src/backends/local.ts';
import { sleep } from './gateway.ts';

const root = mkdtempSync(path.join(process.env.WPV_TEST_DIR ?? '/tmp', 'local-slots-'));
const backend = new LocalBackend(2, path.join(root, 'slots'));
let serial = 0;

/** When each program held its slots: from the wrapper's launch record (written once it has them) to its exit record. */
async function runTogether(layouts: { ranks: number; threads: number }[]): Promise<{ start: number; end: number }[]> {
  const dirs = await Promise.all(layouts.map(async (layout) => {
    const dir = mkdtempSync(path.join(root, `stage${serial++}-`));
    const command: StageCommand = { argv: ['sleep', '1.5'], ...layout, outputs: [] };
    await backend.submit({ jobId: 'slots', stage: 'sleep', dir, command });
    return dir;
  }));
  const exits = dirs.map((dir) => path.join(dir, STAGE_FILES.exit));
  for (const started = Date.now(); !exits.every(existsSync); await sleep(100)) {
    assert.ok(Date.now() - started < 30_000, 'the programs ended within 30 s');
  }
  return dirs.map((dir, i) => {
    assert.equal(JSON.parse(readFileSync(exits[i]!, 'utf8')).exitCode, 0);
    return { start: JSON.parse(readFileSync(path.join(dir, STAGE_FILES.launch), 'utf8')).startedAt * 1000, end: statSync(exits[i]!).mtimeMs };
  });
}

const overlap = ([a, b]: { start: number; end: number }[]) => Math.min(a!.end, b!.end) - Math.max(a!.start, b!.start);

describe('CPU slots of the local backend (2 slots)', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  test('two 1 × 1 programs run side by side', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 1 }, { ranks: 1, threads: 1 }])) > 1000);
  });

  test('a 1 × 2 program and a 2 × 1 one take both slots each, so they run one after the other', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 2 }, { ranks: 2, threads: 1 }])) <= 0);
  });

  test('a 1 × 1 program waits for a 1 × 2 one, and a program asking for more than the slots takes them all', async () => {
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 2 }, { ranks: 1, threads: 1 }])) <= 0);
    assert.ok(overlap(await runTogether([{ ranks: 1, threads: 1 }, { ranks: 2, threads: 4 }])) <= 0);
  });
});
