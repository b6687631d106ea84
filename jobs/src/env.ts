// Numeric settings from the environment, for the API and the job gateway's processes alike.

/** A positive integer setting, or `fallback` when unset; anything else stops the start with the setting's name. */
export function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}
