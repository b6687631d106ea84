// Shared test helpers: files in a temporary directory, default limits, and an
// assertion for the InputError a bad file must produce.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { InputError, type ParseLimits } from '../../src/formats/types.ts';

export const TREE_SAMPLE = new URL('../../../../shared/data/tree_sample.pviz', import.meta.url).pathname;

export const LIMITS: ParseLimits = {
  maxPoints: 100_000,
  maxFrames: 50,
  maxUncompressedBytes: 64 << 20,
  maxCompressionRatio: 100,
};

const dir = mkdtempSync(join(tmpdir(), 'wpv-formats-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `content` to a fresh file named `name` and returns its path. */
export function writeTemp(name: string, content: string | Buffer): string {
  const path = join(mkdtempSync(join(dir, 'f-')), name);
  writeFileSync(path, content);
  return path;
}

export function tempPath(name: string): string {
  return join(mkdtempSync(join(dir, 'f-')), name);
}

export async function assertInputError(
  promise: Promise<unknown>,
  expected: { code: string; line?: number; file?: string; status?: number },
): Promise<InputError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof InputError, `expected an InputError, got ${String(error)}`);
    assert.equal(error.code, expected.code, error.message);
    if ('line' in expected) assert.equal(error.details.line, expected.line, error.message);
    if ('file' in expected) assert.equal(error.details.file, expected.file, error.message);
    if ('status' in expected) assert.equal(error.details.status, expected.status, error.message);
    return error;
  }
  assert.fail(`expected an InputError ${expected.code}, but parsing succeeded`);
}

/** Positions as plain numbers, for comparing with expected coordinates. */
export function positionsOf(positions: Float32Array, point: number): number[] {
  return Array.from(positions.subarray(point * 3, point * 3 + 3));
}
