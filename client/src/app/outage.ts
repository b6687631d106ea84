// While the server cannot say who is logged in (its database down, the server unreachable):
// what the page says, and how long to wait before asking again.
import { isOutage } from '../api/http';

/** The banner shown while the session is unknown: why, and that the page keeps trying. */
export function outageText(error: unknown): string {
  if (isOutage(error) && error.code === 'store_unavailable') return "The server's database is unavailable; retrying…";
  if (isOutage(error)) return 'The server could not be reached; retrying…';
  return 'Something went wrong on the server; retrying…';
}

const RETRY_MS = [1000, 2000, 4000, 8000, 15_000];
/** Back-off between asks: 1, 2, 4, 8 s, then every 15 s until the server answers. */
export function retryDelayMs(attempt: number): number {
  return RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)];
}
