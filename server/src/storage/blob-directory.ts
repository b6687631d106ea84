// The names of each plot's blobs, so that deleting a plot finds them by _id. FerretDB 1.24 (SQLite)
// evaluates every filter but a lone `_id` by reading the whole table (an index on `plotId` is
// never used), so finding a plot's blobs by `{ plotId }` scanned every blob stored: 0.4–0.7 s
// with 5,000 blobs, 1.9 s with the dev stack's 23,500.
//
// A plot's names are pages `<plot>#<n>`, written before the blobs they name (a crash leaves a name
// without its blob, never a blob without its name) and never changed: page 0, empty, when the plot
// is created, then a page per batch of new names from 1 up (concurrent writers race for a page by its unique `_id`, the
// loser takes the next one), so the pages of a plot are 0…n without a gap and read until one is missing.
import type { Collection, Db } from 'mongodb';

interface PageDoc {
  _id: string; // `${plotId}#${n}`
  names: string[];
}

const pageId = (plotId: string, n: number) => `${plotId}#${n}`;
const DUPLICATE_KEY = 11000;
/** Written once every plot stored before the directory has its page 0 (listOlder). */
const ALL_LISTED = '#all-plots-listed';

export class BlobDirectory {
  private readonly pages: Collection<PageDoc>;

  constructor(db: Db) {
    this.pages = db.collection<PageDoc>('blob_directory');
  }

  /** A new plot, before any of its blobs: page 0, empty, marks it as one whose blobs are all listed here. */
  async start(plotId: string): Promise<void> {
    await this.pages.insertOne({ _id: pageId(plotId, 0), names: [] });
  }

  /**
   * Gives the plots stored before the directory their page 0, from `scan` (every blob's name and
   * plot, read once), then marks that done so no later start-up scans again; the number of plots
   * listed. A plot created meanwhile already has its page 0; one deleted meanwhile may keep an
   * orphan page of names whose blobs are gone, which nothing reads.
   */
  async listOlder(scan: () => AsyncIterable<{ _id: string; plotId: string }>): Promise<number> {
    if (await this.pages.findOne({ _id: ALL_LISTED })) return 0;
    const byPlot = new Map<string, string[]>();
    for await (const { _id, plotId } of scan()) {
      const names = byPlot.get(plotId);
      if (names) names.push(_id);
      else byPlot.set(plotId, [_id]);
    }
    let listed = 0;
    for (const [plotId, names] of byPlot) {
      if (await this.pages.findOne({ _id: pageId(plotId, 0) }, { projection: { _id: 1 } })) continue;
      try {
        await this.pages.insertOne({ _id: pageId(plotId, 0), names });
        listed++;
      } catch (err) {
        if ((err as { code?: number }).code !== DUPLICATE_KEY) throw err; // another API process listed it
      }
    }
    await this.pages.updateOne({ _id: ALL_LISTED }, { $set: { names: [] } }, { upsert: true });
    return listed;
  }

  /** Adds names, before their blobs are written. */
  async add(plotId: string, names: string[]): Promise<void> {
    for (let n = await this.firstFreePage(plotId); ; n++) {
      try {
        await this.pages.insertOne({ _id: pageId(plotId, n), names });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== DUPLICATE_KEY) throw err; // another writer took page n
      }
    }
  }

  /** Every name listed for the plot, or null for a plot stored before this directory (no page 0). */
  async names(plotId: string): Promise<string[] | null> {
    const names: string[] = [];
    for (let n = 0; ; n++) {
      const page = await this.pages.findOne({ _id: pageId(plotId, n) });
      if (!page) return n === 0 ? null : [...new Set(names)];
      names.push(...page.names);
    }
  }

  /** Forgets the plot's names (its blobs are gone). */
  async remove(plotId: string): Promise<void> {
    for (let n = 0; ; n++) {
      const { deletedCount } = await this.pages.deleteOne({ _id: pageId(plotId, n) });
      if (!deletedCount && n > 0) return; // page 0 may be missing: a plot stored before the directory
    }
  }

  /** The first page from 1 that is not written: pages only ever appear in order, so a doubling, then halving, search finds it in O(log n) lookups. */
  private async firstFreePage(plotId: string): Promise<number> {
    const taken = async (n: number) => (await this.pages.findOne({ _id: pageId(plotId, n) }, { projection: { _id: 1 } })) !== null;
    let free = 1;
    while (await taken(free)) free *= 2;
    let low = Math.floor(free / 2); // taken (or 0: below the pages searched)
    while (free - low > 1) {
      const mid = Math.floor((low + free) / 2);
      if (await taken(mid)) low = mid;
      else free = mid;
    }
    return free;
  }
}
