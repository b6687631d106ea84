// Small file helpers of the worker stages.
import { rename, writeFile } from 'node:fs/promises';

/** Writes through a temporary name and renames: a crash never leaves a half-written output. */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  await writeFile(`${file}.tmp`, data);
  await rename(`${file}.tmp`, file);
}
