// Re-clustering links between plots, one insert-only document per link: "<parent>/<n>" holds
// { parent, child }. FerretDB (SQLite) applies concurrent updates of one document by
// read-modify-write: a `children` array on the parent kept 2 of 6 re-clusterings that
// finished together (server/test/plot-links.test.ts), and an owner's rename at that moment
// could be lost too. A unique _id is the one guard it gives, so a link claims the first free
// n by insertOne, and a parent's links are read by probing n = 0, 1, … (by _id, indexed).
import { MongoServerError, type Collection } from 'mongodb';

export interface PlotLinkDoc {
  _id: string;
  parent: string;
  child: string;
}

const MAX_RACES = 20;

export class PlotLinks {
  constructor(private readonly links: Collection<PlotLinkDoc>) {}

  /** Links `child` to `parent`; linking a pair again (an ingest redone) is harmless: children() lists it once. */
  async add(parent: string, child: string): Promise<void> {
    let n = (await this.all(parent)).length;
    for (let race = 0; race < MAX_RACES; race++, n++) {
      try {
        await this.links.insertOne({ _id: `${parent}/${n}`, parent, child });
        return;
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err; // else another link took n
      }
    }
    throw new Error(`plot ${parent}: no free link number in ${MAX_RACES} attempts`);
  }

  /** The plots linked as re-clusterings of `parent`, oldest first; deleted ones too (links stay: a gap would end the probes). */
  async children(parent: string): Promise<string[]> {
    return [...new Set((await this.all(parent)).map((link) => link.child))];
  }

  /** Drops a deleted parent's links. */
  async removeAll(parent: string): Promise<void> {
    for (const link of await this.all(parent)) await this.links.deleteOne({ _id: link._id });
  }

  private async all(parent: string): Promise<PlotLinkDoc[]> {
    const found: PlotLinkDoc[] = [];
    for (let link; (link = await this.links.findOne({ _id: `${parent}/${found.length}` })); ) found.push(link);
    return found;
  }
}
