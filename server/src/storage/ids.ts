import { randomBytes } from 'node:crypto';

/**
 * A new document id: `bytes` random bytes as base64url, drawn again until it starts with a
 * letter or digit, so an id is never taken for an option on a command line
 * (`webplotviz get <id>`; about 1 in 32 base64url ids starts with "-" or "_").
 */
export function newId(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}
