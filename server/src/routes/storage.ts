// /api/v1/storage: what the caller's plots take of their storage quota (the library shows it).
import { Router } from 'express';
import type { StorageUse } from '@wpv/schema';
import { requireUser, userOf } from '../http/auth.ts';
import type { StorageQuota } from '../services/storage-quota.ts';

export function storageRoutes(quota: StorageQuota): Router {
  const router = Router();
  router.get('/storage', requireUser, async (req, res) => {
    const use: StorageUse = { usedBytes: await quota.used(userOf(req)), limitBytes: quota.limitBytes };
    res.json(use);
  });
  return router;
}
