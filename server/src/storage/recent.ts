// Answers remembered for a short while per server process: the store is the bottleneck
// under load, and most requests ask again what the last one asked. A writer in this
// process forgets the keys it changes at once; other processes see the change after at
// most the entry's lifetime, counted from when the store was asked.
//
// A key still read in the second half of its lifetime is asked again in the background,
// so readers of a busy key never wait on the store: before, every reader of a public
// plot queued behind the store round trip once a second, and under load that round
// trip (50–500 ms on a busy machine) was added to every request in flight.

interface Entry<T> {
  value: Promise<T>;
  until: number;
  /** The background refresh in flight, shared by readers that arrive once the entry has expired. */
  next?: Promise<T | null>;
}

export class Recent<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly lifetimeMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /**
   * The remembered answer, else `load`'s; concurrent callers share one load. Null and
   * failed answers are not kept (a plot missing now may be ingested by another process).
   */
  get(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) {
      if (!hit.next && hit.until - now < this.lifetimeMs / 2) hit.next = this.refresh(key, hit, load);
      return hit.value;
    }
    if (hit?.next) return hit.next;
    return this.load(key, load);
  }

  /** Forgets a key; a load in flight for it is not kept when it lands. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  private load(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const loading = load();
    const entry = { value: loading as Promise<T>, until: Date.now() + this.lifetimeMs };
    this.put(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    loading.then((value) => value === null && drop(), drop);
    return loading;
  }

  /** Asks the store again while `stale` is still served; the answer replaces it unless a writer forgot the key meanwhile. */
  private refresh(key: string, stale: Entry<T>, load: () => Promise<T | null>): Promise<T | null> {
    const asked = Date.now();
    const loading = load();
    loading.then(
      (value) => {
        if (this.entries.get(key) !== stale) return; // deleted since: this answer may predate the write
        if (value === null) this.entries.delete(key);
        else this.entries.set(key, { value: loading as Promise<T>, until: asked + this.lifetimeMs });
      },
      () => {
        stale.next = undefined; // the next reader after expiry loads afresh
      },
    );
    return loading;
  }

  private put(key: string, entry: Entry<T>): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear(); // bounded: many distinct keys just miss more often
    this.entries.set(key, entry);
  }
}
