// Re-clustering from the viewer (SPIDAL's multistage DA-PWC): the owner starts a recluster job on
// a cluster or on the selection and follows a link to its job page; a plot shows the plot it
// re-clusters and its re-clusterings.
import { useEffect, useState, type ReactNode } from 'react';
import type { Plot, ReclusterRequest } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { linkClick } from '../app/router';
import { usePending } from '../app/usePending';

export interface Reclustering {
  /** Starts the job (not while one is being started); undefined when the caller cannot (not the owner, or a plot without clusters' centres). */
  start?: (body: ReclusterRequest) => Promise<void>;
  /** a start in flight: the buttons are disabled */
  busy: boolean;
}

/**
 * Only a clustering job's plot can be re-clustered: its clusters name their medoids (`centre`),
 * which no upload has, so the buttons appear where the server will take the request.
 */
export function useReclustering(plot: Plot | null, isOwner: boolean, notify: (notice: ReactNode) => void, fail: (e: unknown) => void): Reclustering {
  const { pending, run } = usePending();
  const possible = !!plot && isOwner && plot.clusters.some((c) => c.centre !== undefined);
  const start = async (body: ReclusterRequest) => {
    await run(async () => {
      try {
        notify(<ReclusterStarted jobId={(await plots.recluster(plot!.id, body)).jobId} />);
      } catch (e) {
        fail(e);
      }
    });
  };
  return { start: possible ? start : undefined, busy: pending };
}

/** The viewer's notice once a job is started (over the canvas: in the sidebar it moved the list whose button started it). */
function ReclusterStarted({ jobId }: { jobId: string }) {
  return (
    <span data-testid="recluster-started">
      Re-clustering started: <a href={`/jobs/${encodeURIComponent(jobId)}`} onClick={linkClick} data-testid="recluster-job">follow the job</a>
    </span>
  );
}

const plotHref = (id: string) => `/plots/${encodeURIComponent(id)}`;

/** "re-clustered from …" and "re-clusterings: …", by name (a linked plot you may not read is left out). */
export function PlotLinks({ plot }: { plot: Plot }) {
  const linked = [plot.parent, ...(plot.children ?? [])].filter((id): id is string => !!id);
  const [names, setNames] = useState<Record<string, string>>({});
  const key = linked.join(',');
  useEffect(() => {
    let live = true;
    void Promise.all(linked.map((id) => plots.get(id).then((p) => [id, p.name] as const, () => null))).then((found) => {
      if (live) setNames(Object.fromEntries(found.filter((f) => f !== null)));
    });
    return () => { live = false; };
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps -- the ids, joined
  const link = (id: string) => names[id] !== undefined &&
    <a key={id} href={plotHref(id)} onClick={linkClick} data-testid="plot-link">{names[id]}</a>;
  const children = (plot.children ?? []).filter((id) => names[id] !== undefined);
  if (!linked.length) return null;
  return (
    // One line kept while the names load (the panels below stay put), empty if none may be read.
    <p className="muted small plot-links" data-testid="plot-links">
      {plot.parent && names[plot.parent] !== undefined && <span data-testid="plot-parent">re-clustered from {link(plot.parent)}</span>}
      {plot.parent && children.length > 0 && ' · '}
      {children.length > 0 && (
        <span data-testid="plot-children">re-clusterings: {children.map((id, i) => <span key={id}>{i > 0 && ', '}{link(id)}</span>)}</span>
      )}
    </p>
  );
}
