// The library thumbnail: the owner's first complete view is stored when the plot has none or
// only the server's drawing (flat, from the stored coordinates), and again after a cluster
// edit made the stored one stale.
import { useCallback, useEffect, useState } from 'react';
import type { Plot } from '@wpv/schema';
import type { Scene } from './scene';
import { uploadThumbnail } from './thumbnail';

/** Returns `stale()`: the stored thumbnail no longer shows the plot. */
export function useThumbnail(plotId: string, plot: Plot | null, isOwner: boolean, complete: boolean, scene: Scene, notify: (text: string) => void): () => void {
  const [wanted, setWanted] = useState<boolean | null>(null); // null: decided by the plot's thumbnail
  const needed = wanted ?? (!!plot && (!plot.hasThumbnail || !!plot.thumbnailDrawn));
  // Declared after the renderer's effects in the page, so the picture shows this commit's colours.
  useEffect(() => {
    if (!complete || !isOwner || !needed || !scene.renderer) return;
    setWanted(false);
    uploadThumbnail(plotId, scene.renderer).catch((e: unknown) => notify(`The thumbnail could not be stored: ${(e as Error).message}`));
  }, [complete, isOwner, needed, scene, plotId, notify]);
  return useCallback(() => setWanted(true), []);
}
