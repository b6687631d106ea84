// Waiting for a service that is not up yet (the store or RabbitMQ when the workers
// or the bridge start first): retry with exponential backoff, saying what we wait for.

const FIRST_MS = 1000;
const MAX_MS = 15_000;

/** 1 s, 2 s, 4 s, … capped at 15 s. */
export const backoffMs = (attempt: number) => Math.min(MAX_MS, FIRST_MS * 2 ** attempt);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `host:port` of a service URL, without its credentials, for log lines. */
export function endpointOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an unparsable URL';
  }
}

/** Calls `attempt` until it resolves, logging each failure and the wait before the next try. */
export async function retrying<T>(what: string, attempt: () => Promise<T>, log: (line: string) => void): Promise<T> {
  for (let failures = 0; ; failures++) {
    try {
      const value = await attempt();
      if (failures) log(`${what}: reached after ${failures} failed attempts`);
      return value;
    } catch (err) {
      const wait = backoffMs(failures);
      log(`waiting for ${what}: ${(err as Error).message}; retrying in ${wait / 1000} s`);
      await sleep(wait);
    }
  }
}
