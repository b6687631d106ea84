// A user's collections of plots, and the tags counted over the plots a caller can see.
import type { Collection, CollectionInput } from '@wpv/schema';
import type { z } from 'zod';
import { notFound } from '../http/errors.ts';
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

  async list(owner: string): Promise<Collection[]> {
    const docs = await this.store.collections.find({ owner }).sort({ name: 1 }).toArray();
    return Promise.all(docs.map((doc) => this.withCount(doc)));
  }

  async create(owner: string, input: CollectionFields): Promise<Collection> {
    const doc: CollectionDoc = { _id: newId(12), ...input, owner, createdAt: new Date() };
    await this.store.collections.insertOne(doc);
    return this.withCount(doc);
  }

  async patch(id: string, owner: string, input: Partial<CollectionFields>): Promise<Collection> {
    const doc = await this.store.collections.findOneAndUpdate({ _id: id, owner }, { $set: input }, { returnDocument: 'after' });
    if (!doc) throw notFound('collection');
    return this.withCount(doc);
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
