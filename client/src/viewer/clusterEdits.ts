// Every write to a plot's clusters from the viewer: renaming, saving the view's styles into the
// plot, and making a cluster of the selection (stored by the server, applied to the frames in memory).
import { useCallback } from 'react';
import type { Cluster, Plot } from '@wpv/schema';
import { plots } from '../api/endpoints';
import type { ClusterStyle } from './clusterStyles';
import type { Scene } from './scene';
import { assignCluster, type FrameKeys } from './selection';

export interface ClusterEditContext {
  plotId: string;
  scene: Scene;
  setPlot(p: Plot): void;
  setClusters(c: Cluster[]): void;
  notify(text: string): void;
  fail(e: unknown): void;
  /** the stored thumbnail shows the old clusters: draw a new one */
  thumbnailStale(): void;
}

export interface ClusterEdits {
  rename(key: number, label: string): void;
  /** writes the view's colours, sizes, shapes and visibility into the plot; resolves true when stored */
  saveStyles(styles: readonly ClusterStyle[]): Promise<boolean>;
  /** the selected points of the frame on screen become a cluster; resolves true once made */
  make(label: string, selection: readonly number[]): Promise<boolean>;
}

export function useClusterEdits({ plotId, scene, setPlot, setClusters, notify, fail, thumbnailStale }: ClusterEditContext): ClusterEdits {
  const rename = useCallback((key: number, label: string) => {
    plots.patch(plotId, { clusters: [{ key, label }] }).then((p) => setClusters(p.clusters), fail);
  }, [plotId, setClusters, fail]);

  const saveStyles = useCallback(async (styles: readonly ClusterStyle[]) => {
    try {
      const edits = styles.map((s) => ({ key: s.key, color: s.color, size: s.size, shape: s.shape, visible: s.visible }));
      const p = await plots.patch(plotId, { clusters: edits });
      setClusters(p.clusters);
      notify('Cluster styles saved to the plot.');
      thumbnailStale();
      return true;
    } catch (e) { fail(e); return false; }
  }, [plotId, setClusters, notify, fail, thumbnailStale]);

  const make = useCallback(async (label: string, selection: readonly number[]) => {
    const shown = scene.frame;
    if (!shown) return false;
    const pointCount = shown.clusters.length;
    const points = selection.filter((i) => i < pointCount);
    try {
      const { cluster, plot: p } = await plots.createCluster(plotId, { label, frame: shown.index, points, pointCount });
      const source: FrameKeys = { ...shown, labels: shown.labels ?? [] };
      const cached = Array.from({ length: p.frames }, (_, f) => scene.store?.peek(f)).flatMap((d, index) => (d ? [{ ...d, index }] : []));
      assignCluster(cluster.key, points, source, [source, ...cached]);
      setPlot(p);
      setClusters(p.clusters);
      thumbnailStale();
      notify(`Cluster "${cluster.label}" made of ${cluster.count} point(s)${p.frames > 1 ? ' over all frames' : ''}.`);
      return true;
    } catch (e) { fail(e); return false; }
  }, [plotId, scene, setPlot, setClusters, notify, fail, thumbnailStale]);

  return { rename, saveStyles, make };
}
