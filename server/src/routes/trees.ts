// /api/v1/plots/{id}/tree: a phylogenetic tree over the plot's points (Newick), read by whoever
// may read the plot and written by its owner (services/trees.ts matches and stores it).
import { Router, type Request } from 'express';
import { TreeUploadFields } from '@wpv/schema';
import type { Config } from '../config.ts';
import { requireUser, userOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import { receiveUpload } from '../http/upload.ts';
import type { Plots } from '../services/plots.ts';
import { MAX_TREE_BYTES, Trees } from '../services/trees.ts';
import type { BlobStore } from '../storage/blobs.ts';

/** Mounted on /plots beside plotRoutes. */
export function treeRoutes(config: Config, plots: Plots, blobs: BlobStore): Router {
  const router = Router();
  const trees = new Trees(plots, blobs);
  const id = (req: Request) => String(req.params.id);

  router.get('/:id/tree', async (req, res) => {
    res.json(await trees.get(await plots.readable(id(req), req.caller.username)));
  });

  router.put('/:id/tree', requireUser, async (req, res) => {
    const doc = await plots.owned(id(req), userOf(req));
    const upload = await receiveUpload(req, `${config.dataDir}/tmp`, MAX_TREE_BYTES, { files: ['file'], fields: Object.keys(TreeUploadFields.shape) });
    try {
      const { file } = upload.files;
      if (!file) throw new ApiError(400, 'bad_request', 'file: a "file" part (the Newick tree) is required', 'file');
      if (file.bytes === 0) throw new ApiError(400, 'empty_file', 'file: the file is empty', 'file');
      const { root } = TreeUploadFields.parse(upload.fields);
      const { tree, created } = await trees.put(doc, file, root);
      res.status(created ? 201 : 200).json(tree);
    } finally {
      await upload.cleanup();
    }
  });

  router.delete('/:id/tree', requireUser, async (req, res) => {
    await trees.delete(await plots.owned(id(req), userOf(req)));
    res.status(204).end();
  });

  return router;
}
