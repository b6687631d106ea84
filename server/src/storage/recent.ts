// Answers remembered for a short while per server process: the store is the bottleneck
// under load, and most requests ask again what the last one asked. A writer in this
// process forgets the keys it changes at once; other processes see the change after at
// most the entry's lifetime.

interface Entry<T> {
  value: Promise<T>;
  until: number;
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
    const hit = this.entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const loading = load();
    const entry = { value: loading as Promise<T>, until: Date.now() + this.lifetimeMs };
    this.put(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    loading.then((value) => value === null && drop(), drop);
    return loading;
  }

  /** Forgets a key; a load in flight for it is not kept when it lands. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  private put(key: string, entry: Entry<T>): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear(); // bounded: many distinct keys just miss more often
    this.entries.set(key, entry);
  }
}
