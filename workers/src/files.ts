// Small file helpers of the worker stages.
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes through a temporary name and renames: a crash never leaves a half-written output.
 * `signal` abandons the write (a cancelled job), removing the temporary file.
 */
export async function writeAtomically(file: string, data: string | Uint8Array, signal?: AbortSignal): Promise<void> {
  try {
    await writeFile(`${file}.tmp`, data, { signal });
    signal?.throwIfAborted();
  } catch (err) {
    await rm(`${file}.tmp`, { force: true });
    throw err;
  }
  await rename(`${file}.tmp`, file);
}
