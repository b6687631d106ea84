// The sample stage of an interpolating job (server/src/jobtypes/interpolation.ts): which rows
// form the sample, and how a FASTA is split between the sample and the rest.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { JobDoc } from '@wpv/jobs/model';
import { chooseSample, splitFasta } from '../src/jobtypes/interpolation.ts';

/** The sample by its definition: the rows with the smallest SHA-256 of "seed:row", as hex strings sorted. */
function sampleByDefinition(n: number, size: number, seed: number): number[] {
  const keyed = Array.from({ length: n }, (_, row) => ({ row, key: createHash('sha256').update(`${seed}:${row}`).digest('hex') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : 1));
  return keyed.slice(0, size).map((k) => k.row).sort((a, b) => a - b);
}

test('chooseSample takes the rows with the smallest digests of "seed:row", ascending', () => {
  for (const [n, size, seed] of [[10, 3, 0], [1000, 100, 7], [5000, 4000, 123], [64, 64, 1]] as const) {
    const sample = chooseSample(n, size, seed);
    assert.deepEqual(sample, sampleByDefinition(n, size, seed), `n ${n}, size ${size}, seed ${seed}`);
  }
  assert.notDeepEqual(chooseSample(1000, 100, 1), chooseSample(1000, 100, 2), 'the seed changes the sample');
});

test('splitFasta writes the sample\'s records, the others, every id in input order and the sample rows', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'wpv-sample-'));
  try {
    const n = 50;
    const records = Array.from({ length: n }, (_, i) => `>read${i} family ${i % 3}\nACGT${'A'.repeat(i % 7)}\nGG\n`);
    await writeFile(path.join(dir, 'in.fasta'), `\n${records.join('\n')}`);
    const job = { workdir: dir, input: { points: n, sample: 12, file: 'in.fasta' }, params: { seed: 5 } } as unknown as JobDoc;
    assert.deepEqual(await splitFasta(job), { sample: 12, interpolated: 38 });

    const sample = chooseSample(n, 12, 5);
    const text = (file: string) => readFile(path.join(dir, file), 'utf8');
    assert.equal(await text('sample.txt'), sample.map((row) => `${row}\n`).join(''));
    assert.equal(await text('sample.fasta'), sample.map((row) => records[row]).join(''));
    assert.equal(await text('rest.fasta'), records.filter((_, row) => !sample.includes(row)).join(''));
    assert.equal(await text('labels.txt'), records.map((_, row) => `read${row}\n`).join(''));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
