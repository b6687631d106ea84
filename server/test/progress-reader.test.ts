// The bridge's reader of a program's progress lines: the stress series charted on the job page.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ProgressReader } from '../../hpc-bridge/src/progress.ts';

test('one series point per temperature step at the program\'s iteration count; the done line adds none', async () => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'wpv-progress-')), 'stdout.log');
  const lines = [
    { program: 'damds', phase: 'anneal', fraction: 0.5, iteration: 40, temperature: 0.2, stress: 0.3 },
    { program: 'damds', phase: 'final', fraction: 1, iteration: 376, temperature: 0, stress: 0.04 },
    { program: 'damds', phase: 'done', stress: 0.04, iterations: 376 },
  ];
  await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const reader = new ProgressReader(file);
  await reader.update();
  assert.deepEqual(reader.series, [
    { iteration: 40, stress: 0.3, temperature: 0.2 },
    { iteration: 376, stress: 0.04, temperature: 0 },
  ]);
  assert.equal(reader.latest?.phase, 'done');
});
