// Every write to a plot's clusters from the viewer: renaming, saving the view's styles into the
// plot, making a cluster of the selection, deleting a made cluster and undoing the last make or
// delete (stored by the server, applied to the frames in memory).
import { useCallback, useEffect, useState } from 'react';
import type { Cluster, ClusterEdit, ClusterKeysChanged, Plot } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { checkRename } from './clusterNames';
import type { ClusterStyle } from './clusterStyles';
import type { Scene } from './scene';
import { assignCluster, type FrameKeys } from './selection';

export interface ClusterEditContext {
  plotId: string;
  /** only the owner edits: the edit history is read for them */
  isOwner: boolean;
  scene: Scene;
  /** the plot's cluster table, which a new name is checked against */
  clusters: readonly Cluster[];
  setPlot(p: Plot): void;
  setClusters(c: Cluster[]): void;
  notify(text: string): void;
  fail(e: unknown): void;
  /** the stored thumbnail shows the old clusters: draw a new one */
  thumbnailStale(): void;
}

export interface ClusterEdits {
  /** stores a new name; an empty one or another cluster's is refused with a message, the old name kept */
  rename(key: number, label: string): void;
  /** writes the view's colours, sizes, shapes and visibility into the plot; resolves true when stored */
  saveStyles(styles: readonly ClusterStyle[]): Promise<boolean>;
  /** the selected points of the frame on screen become a cluster; resolves true once made */
  make(label: string, selection: readonly number[]): Promise<boolean>;
  /** the made clusters, which can be deleted */
  made: ReadonlySet<number>;
  /** deletes a made cluster: its points return to their earlier clusters */
  remove(key: number): void;
  /** the edit undo takes back */
  last: ClusterEdit | undefined;
  undo(): void;
}

const NONE: ReadonlySet<number> = new Set();

export function useClusterEdits({ plotId, isOwner, scene, clusters, setPlot, setClusters, notify, fail, thumbnailStale }: ClusterEditContext): ClusterEdits {
  const [history, setHistory] = useState<{ edits: ClusterEdit[]; made: ReadonlySet<number> }>({ edits: [], made: NONE });
  // The server keeps the history, so that every tab undoes the same edits.
  const reload = useCallback(() => {
    plots.clusterEdits(plotId).then(({ edits, made }) => setHistory({ edits, made: new Set(made) }), fail);
  }, [plotId, fail]);
  useEffect(() => { if (isOwner) reload(); }, [isOwner, reload]);

  /** A delete or undo done: the new keys go into every frame in memory, the table and history follow. */
  const applied = useCallback(({ plot: p, changes, edits, made }: ClusterKeysChanged, message: string) => {
    for (const { frame, points, keys } of changes) {
      for (const f of new Set([scene.frame?.index === frame ? scene.frame.clusters : undefined, scene.store?.peek(frame)?.clusters])) {
        if (f) points.forEach((i, k) => (f[i] = keys[k]!));
      }
    }
    setPlot(p);
    setClusters(p.clusters);
    setHistory({ edits, made: new Set(made) });
    thumbnailStale();
    notify(message);
  }, [scene, setPlot, setClusters, thumbnailStale, notify]);

  const remove = useCallback((key: number) => {
    plots.deleteCluster(plotId, key).then((r) => applied(r, `Cluster "${r.edits.at(-1)?.label ?? key}" deleted; its points are back in their earlier clusters.`), fail);
  }, [plotId, applied, fail]);

  const last = history.edits.at(-1);
  const undo = useCallback(() => {
    if (!last) return;
    plots.undoClusterEdit(plotId, last.id).then((r) => applied(r, `Undone: ${last.kind === 'make' ? 'making' : 'deleting'} "${last.label}".`), (e: unknown) => {
      fail(e);
      reload(); // another tab's edit came first: show what undo would take back now
    });
  }, [plotId, last, applied, fail, reload]);
  const rename = useCallback((key: number, typed: string) => {
    const check = checkRename(clusters, key, typed);
    if (!check) return;
    if ('refused' in check) return fail(new Error(check.refused));
    plots.patch(plotId, { clusters: [{ key, label: check.label }] }).then((p) => setClusters(p.clusters), fail);
  }, [plotId, clusters, setClusters, fail]);

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
      reload();
      notify(`Cluster "${cluster.label}" made of ${cluster.count} point(s)${p.frames > 1 ? ' over all frames' : ''}.`);
      return true;
    } catch (e) { fail(e); return false; }
  }, [plotId, scene, setPlot, setClusters, notify, fail, thumbnailStale, reload]);

  return { rename, saveStyles, make, made: history.made, remove, last, undo };
}
