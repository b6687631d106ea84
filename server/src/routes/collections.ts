// /api/v1/collections (a user's own) and /api/v1/tags (over the plots the caller can see).
import { Router } from 'express';
import { CollectionInput } from '@wpv/schema';
import { requireUser, userOf } from '../http/auth.ts';
import { jsonBody } from '../http/body.ts';
import type { Collections } from '../services/collections.ts';

export function collectionRoutes(collections: Collections): Router {
  const router = Router();
  const id = (req: { params: Record<string, unknown> }) => String(req.params.id);

  router.get('/collections', requireUser, async (req, res) => {
    res.json(await collections.list(userOf(req)));
  });

  router.post('/collections', requireUser, async (req, res) => {
    res.status(201).json(await collections.create(userOf(req), jsonBody(CollectionInput, req)));
  });

  router.patch('/collections/:id', requireUser, async (req, res) => {
    res.json(await collections.patch(id(req), userOf(req), jsonBody(CollectionInput.partial().strict(), req)));
  });

  router.delete('/collections/:id', requireUser, async (req, res) => {
    await collections.delete(id(req), userOf(req));
    res.status(204).end();
  });

  router.get('/tags', async (req, res) => {
    res.json(await collections.tags(req.caller.username));
  });

  return router;
}
