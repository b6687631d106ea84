import { Router } from 'express';
import { CollectionInput, type Collection } from '@wpv/schema';
import { requireUser, userOf } from '../http/auth.ts';
import { notFound } from '../http/errors.ts';
import type { Store } from '../storage/db.ts';
import { newId } from '../storage/ids.ts';
import type { CollectionDoc } from '../storage/documents.ts';

/** Collections belong to one user; tags are free text on plots, counted over what the caller can see. */
export function collectionRoutes(store: Store): Router {
  const router = Router();

  const withCount = async (doc: CollectionDoc): Promise<Collection> => ({
    id: doc._id,
    name: doc.name,
    description: doc.description,
    owner: doc.owner,
    createdAt: doc.createdAt.toISOString(),
    plots: await store.plots.countDocuments({ collection: doc._id, state: 'ready' }),
  });

  router.get('/collections', requireUser, async (req, res) => {
    const docs = await store.collections.find({ owner: userOf(req) }).sort({ name: 1 }).toArray();
    res.json(await Promise.all(docs.map(withCount)));
  });

  router.post('/collections', requireUser, async (req, res) => {
    const input = CollectionInput.parse(req.body);
    const doc: CollectionDoc = { _id: newId(12), ...input, owner: userOf(req), createdAt: new Date() };
    await store.collections.insertOne(doc);
    res.status(201).json(await withCount(doc));
  });

  router.patch('/collections/:id', requireUser, async (req, res) => {
    const input = CollectionInput.partial().strict().parse(req.body);
    const doc = await store.collections.findOneAndUpdate(
      { _id: String(req.params.id), owner: userOf(req) },
      { $set: input },
      { returnDocument: 'after' },
    );
    if (!doc) throw notFound('collection');
    res.json(await withCount(doc));
  });

  router.delete('/collections/:id', requireUser, async (req, res) => {
    const id = String(req.params.id);
    const { deletedCount } = await store.collections.deleteOne({ _id: id, owner: userOf(req) });
    if (!deletedCount) throw notFound('collection');
    await store.plots.updateMany({ collection: id }, { $set: { collection: null } });
    res.status(204).end();
  });

  router.get('/tags', async (req, res) => {
    const caller = req.caller.username;
    const visible = caller ? { $or: [{ owner: caller }, { visibility: 'public' }] } : { visibility: 'public' };
    const rows = await store.plots
      .aggregate<{ _id: string; count: number }>([
        { $match: { state: 'ready', ...visible } },
        { $unwind: '$tags' },
        { $group: { _id: '$tags', count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
        { $limit: 500 },
      ])
      .toArray();
    res.json(rows.map((r) => ({ tag: r._id, count: r.count })));
  });

  return router;
}
