// A sequence-clustering job's FASTA check (jobtypes/inputs.ts): compressed files refused by name,
// a bad residue's column and every bad character of its line, "auto" reading a DNA file as DNA,
// and messages that start with their field.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { checkFasta, checkVectors } from '../../src/jobtypes/inputs.ts';
import { InputError } from '../../src/formats/types.ts';
import { writeTemp } from './helpers.ts';

const LIMITS = { maxPoints: 1000, maxSequenceLength: 10_000, maxResidues: 100_000 };
const DNA_READ = 'CAACGCGAAGAACCTTACCTGGGTTTGACATCC';

async function refusal(content: string | Buffer, alphabet: 'auto' | 'dna' | 'protein' = 'auto'): Promise<InputError> {
  const error = await checkFasta(writeTemp('x.fasta', content), alphabet, LIMITS).then(() => null, (e: unknown) => e);
  assert.ok(error instanceof InputError, `refused: ${String(error)}`);
  assert.equal(error.details.field, 'file');
  return error;
}

test('a gzip-compressed FASTA is refused as such, not as a file without a header', async () => {
  const error = await refusal(gzipSync(`>a\n${DNA_READ}\n>b\n${DNA_READ}\n`));
  assert.equal(error.code, 'compressed_input');
  assert.equal(error.message, 'file: this file is gzip-compressed; compressed files are not read: upload it uncompressed (gunzip it first)');
  const vectors = await checkVectors(writeTemp('v.csv', gzipSync('1,2\n3,4\n5,6\n')), false, undefined, 100).catch((e: InputError) => e);
  assert.equal((vectors as InputError).code, 'compressed_input');
});

test('messages start with their field and line: the browser adds no "(field file)"', async () => {
  const error = await refusal('ACGT\n>s1\nACGT\n');
  assert.equal(error.message, 'file: line 1: expected a ">id" header line first');
  assert.equal(error.details.line, 1);
});

test('a bad residue: its column, and every distinct bad character of the line', async () => {
  // The QA pass's badchar.fasta: "XZ*!" in a read of a DNA file reported only "!".
  const reads = Array.from({ length: 9 }, (_, i) => `>r${i}\n${DNA_READ}\n`).join('');
  const error = await refusal(`${reads}>bad\nCAACGCGAAGXZ*!AACCTxz\n`);
  assert.equal(error.message, 'file: line 20: "X", "Z", "*", "!", "x", "z" are not DNA residues (the first at column 11)');
  assert.equal((await refusal('>s1\nACGT\n>s2\n  AC1T\n')).message, 'file: line 4: "1" is not a DNA residue (column 5)');
  // A protein file: X and * are residues, "!" is not.
  assert.equal((await refusal('>p1\nMKVLWQEHHX*\n>p2\nMKV!LW\n')).message, 'file: line 4: "!" is not a residue (column 4)');
  assert.equal((await refusal('>p1\nMKVLW\n>p2\nMK1\n', 'protein')).message, 'file: line 4: "1" is not a protein residue (column 3)');
  assert.equal((await refusal('>s1\nACGT\n>s2\nACQT\n', 'dna')).message, 'file: line 4: "Q" is not a DNA residue (column 3)');
});

test('"auto": a DNA file with protein letters in a read is refused, a protein file is protein', async () => {
  const reads = Array.from({ length: 9 }, (_, i) => `>r${i}\n${DNA_READ}\n`).join('');
  const error = await refusal(`>odd\nCAACGXZ*AAG\n${reads}`);
  assert.match(error.message, /^file: line 2: "X", "Z", "\*" are not DNA residues \(the first at column 6\); the file reads as DNA \(9\d % A, C, G, T\/U or N\): set alphabet to protein if it is protein$/);
  assert.deepEqual(await checkFasta(writeTemp('p.fasta', '>p1\nMKVLWQEHHX*\n>p2\nMKVLWAAL\n'), 'auto', LIMITS), { sequences: 2, alphabet: 'protein' });
  assert.deepEqual(await checkFasta(writeTemp('d.fasta', `>a\n${DNA_READ}\n>b\nacgtn\n`), 'auto', LIMITS), { sequences: 2, alphabet: 'dna' });
  assert.deepEqual(await checkFasta(writeTemp('x.fasta', '>a\nACGXT\n>b\nACGT\n'), 'protein', LIMITS), { sequences: 2, alphabet: 'protein' });
});
