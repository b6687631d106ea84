// /api/v1/plots/{id}/selections: named selections of points, read by whoever may read the
// plot and written by its owner (services/selections.ts stores them).
import { Router, type Request } from 'express';
import { SelectionInput, SelectionName, SelectionQuery } from '@wpv/schema';
import { z } from 'zod';
import { requireUser, userOf } from '../http/auth.ts';
import { jsonBody } from '../http/body.ts';
import type { Plots } from '../services/plots.ts';
import { Selections } from '../services/selections.ts';
import type { BlobStore } from '../storage/blobs.ts';

/** Mounted on /plots beside plotRoutes. Bodies go through the API's 1 MB JSON limit (413 past it). */
export function selectionRoutes(plots: Plots, blobs: BlobStore): Router {
  const router = Router();
  const selections = new Selections(plots, blobs);
  const id = (req: Request) => String(req.params.id);
  const name = (req: Request) => z.object({ name: SelectionName }).parse({ name: req.params.name }).name;

  router.get('/:id/selections', async (req, res) => {
    res.json(await selections.list(await plots.readable(id(req), req.caller.username)));
  });

  router.get('/:id/selections/:name', async (req, res) => {
    const { encoding } = SelectionQuery.parse(req.query);
    const doc = await plots.readable(id(req), req.caller.username);
    res.json(await selections.get(doc, name(req), encoding));
  });

  router.put('/:id/selections/:name', requireUser, async (req, res) => {
    const doc = await plots.owned(id(req), userOf(req));
    const input = jsonBody(SelectionInput, req);
    const { selection, created } = await selections.put(doc, name(req), input);
    res.status(created ? 201 : 200).json(selection);
  });

  router.delete('/:id/selections/:name', requireUser, async (req, res) => {
    await selections.delete(await plots.owned(id(req), userOf(req)), name(req));
    res.status(204).end();
  });

  return router;
}
