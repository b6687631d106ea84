// A user's collections of plots, and the tags counted over the plots a caller can see.
import { compareNames, nameKey, type Collection, type CollectionInput } from '@wpv/schema';
import type { z } from 'zod';
import { ApiError, notFound } from '../http/errors.ts';
import type { Store } from '../storage/db.ts';
import type { CollectionDoc } from '../storage/documents.ts';
import { newId } from '../storage/ids.ts';
import type { Plots } from './plots.ts';

type CollectionFields = z.infer<typeof CollectionInput>;

export class Collections {
  constructor(
    private readonly store: Store,
    private readonly plots: Plots,
  ) {}

  /** The owner's collections by name, as the library sorts plot names (compareNames: natural, case and accents not counting). */
  async list(owner: string): Promise<Collection[]> {
    const docs = await this.store.collections.find({ owner }).toArray();
    docs.sort((a, b) => compareNames(a.name, b.name));
    return Promise.all(docs.map((doc) => this.withCount(doc)));
  }

  /**
   * A new collection; 409 (naming `name`) when the owner has one of that name, case, accents and
   * spacing not counting (nameKey): "Runs" and " runs" would be two entries of the menu no one tells apart.
   */
  async create(owner: string, input: CollectionFields): Promise<Collection> {
    const doc: CollectionDoc = { _id: newId(12), ...input, owner, createdAt: new Date() };
    await this.store.collections.insertOne(doc);
    const taken = await this.sameName(doc);
    if (taken !== undefined) {
      await this.store.collections.deleteOne({ _id: doc._id });
      throw nameConflict(taken);
    }
    return this.withCount(doc);
  }

  /** A renamed collection is refused like a new one when another has its name, and keeps its old name. */
  async patch(id: string, owner: string, input: Partial<CollectionFields>): Promise<Collection> {
    const before = await this.store.collections.findOneAndUpdate({ _id: id, owner }, { $set: input });
    if (!before) throw notFound('collection');
    const doc = { ...before, ...input };
    const taken = input.name !== undefined && input.name !== before.name ? await this.sameName(doc) : undefined;
    if (taken !== undefined) {
      await this.store.collections.updateOne({ _id: id, name: input.name }, { $set: { name: before.name } });
      throw nameConflict(taken);
    }
    return this.withCount(doc);
  }

  /**
   * The name of another collection of the owner that has this one's name (nameKey), asked after it was
   * written: of two requests giving one name at once, each writes before it reads, so at least one
   * sees the other (both may back out) and no two collections are left sharing a name. FerretDB 1.24
   * has no collation, so the owner's names are compared here (a user has a few dozen); a unique
   * index could not be built over the duplicates stored before this check, which stay as they are.
   */
  private async sameName({ _id, owner, name }: CollectionDoc): Promise<string | undefined> {
    const key = nameKey(name);
    const others = await this.store.collections.find({ owner, _id: { $ne: _id } }, { projection: { name: 1 } }).toArray();
    return others.find((other) => nameKey(other.name) === key)?.name;
  }

  /** Deletes the collection; its plots stay, in no collection. */
  async delete(id: string, owner: string): Promise<void> {
    const { deletedCount } = await this.store.collections.deleteOne({ _id: id, owner });
    if (!deletedCount) throw notFound('collection');
    const members = await this.store.plots.find({ collection: id }, { projection: { _id: 1 } }).toArray();
    for (const { _id } of members) await this.plots.leaveCollection(_id, id);
  }

  /** Tags with the number of plots the caller can see that carry each, most used first. */
  async tags(caller: string | null): Promise<{ tag: string; count: number }[]> {
    const visible = caller ? { $or: [{ owner: caller }, { visibility: 'public' as const }] } : { visibility: 'public' as const };
    const rows = await this.store.plots
      .aggregate<{ _id: string; count: number }>([
        { $match: { state: 'ready', ...visible } },
        { $unwind: '$tags' },
        { $group: { _id: '$tags', count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
        { $limit: 500 },
      ])
      .toArray();
    return rows.map((r) => ({ tag: r._id, count: r.count }));
  }

  private async withCount(doc: CollectionDoc): Promise<Collection> {
    return {
      id: doc._id,
      name: doc.name,
      description: doc.description,
      owner: doc.owner,
      createdAt: doc.createdAt.toISOString(),
      plots: await this.store.plots.countDocuments({ collection: doc._id, state: 'ready' }),
    };
  }
}

/** `existing`: the name of the collection the new name is taken by, as the user sees it in the list. */
const nameConflict = (existing: string) =>
  new ApiError(409, 'conflict', `name: you already have a collection named ${JSON.stringify(existing)}; choose another name`, 'name');
