// Whether the store can be reached: the driver's errors that mean "no server" (an outage, not a
// bad request or a bug), and a watch that lets the API answer quickly while the store is down.
import { MongoNetworkError, MongoServerSelectionError, type MongoClient } from 'mongodb';

/** The store did not answer (stopped, restarting, unreachable): worth waiting for, never the request's fault. */
export function isStoreUnreachable(err: unknown): boolean {
  return err instanceof MongoServerSelectionError || err instanceof MongoNetworkError;
}

/** How long a ping may wait for the store (health, and requests while it is known down). */
export const PING_TIMEOUT_MS = 1000;

/**
 * Follows the driver's view of the server: once an operation or heartbeat found it down, requests
 * are let through only after a ping answers within PING_TIMEOUT_MS, instead of each waiting out the
 * driver's server selection (10 s). While the store is up this costs nothing.
 */
export class StoreWatch {
  private down = false;
  /** The ping under way, shared: while the store is down it runs for the whole server selection. */
  private probe: Promise<string | null> | null = null;

  constructor(private readonly client: MongoClient) {
    // Down when no server that holds data is known (one member of a replica set down is no outage).
    client.on('topologyDescriptionChanged', (e) => {
      this.down = !e.newDescription.hasDataBearingServers;
    });
  }

  /** Null when the store answered a ping within PING_TIMEOUT_MS, else why not. */
  async ping(): Promise<string | null> {
    this.probe ??= this.client
      .db()
      .command({ ping: 1 })
      .then(
        () => null,
        (err: Error) => err.message,
      )
      .finally(() => (this.probe = null));
    return within(PING_TIMEOUT_MS, this.probe, () => `no answer within ${PING_TIMEOUT_MS} ms`);
  }

  /** Null when the store is up (known, or a ping says so), else why not. */
  async reachable(): Promise<string | null> {
    return this.down ? this.ping() : null;
  }
}

/** What `work` gives, or what `late` gives (or throws) once `ms` have passed first; work that ends later is let go. */
export async function within<T>(ms: number, work: Promise<T>, late: () => T): Promise<T> {
  work.catch(() => {}); // a late failure is no unhandled rejection
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
