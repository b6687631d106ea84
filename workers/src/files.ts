// Small file helpers of the worker stages.
import { createReadStream } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

export async function* linesOf(file: string): AsyncGenerator<[string, number]> {
  const reader = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of reader) yield [line, ++number];
}

/** Writes through a temporary name and renames: a crash never leaves a half-written output. */
export async function writeAtomically(file: string, data: string | Uint8Array): Promise<void> {
  await writeFile(`${file}.tmp`, data);
  await rename(`${file}.tmp`, file);
}
