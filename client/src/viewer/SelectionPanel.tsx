// The selected points: labels with copy, CSV download, clearing, and (owner) a new cluster of them.
import { useState } from 'react';
import { selectionCsv, type SelectedPoint } from './csv';

export interface MakeCluster {
  /** the name offered, e.g. "Selection 1" */
  defaultName: string;
  /** resolves true once the cluster is made */
  make(label: string): Promise<boolean>;
}

export function SelectionPanel({ points, onClear, makeCluster, recluster }: {
  points: SelectedPoint[]; onClear: () => void; makeCluster?: MakeCluster;
  /** starts a re-clustering of the selected points (owner, clustering job's plot); `busy` while one is being started */
  recluster?: { start(): void; busy: boolean };
}) {
  if (!points.length) return null;
  const download = () => {
    const url = URL.createObjectURL(new Blob([selectionCsv(points)], { type: 'text/csv' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: 'selection.csv' });
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <section className="panel selection" data-testid="selection-panel">
      <h3>Selection (<span data-testid="selection-count">{points.length}</span>)</h3>
      <div className="row">
        <button onClick={() => void navigator.clipboard.writeText(points.map((p) => p.label).join('\n'))}>Copy labels</button>
        <button onClick={download} data-testid="export-csv">Download CSV</button>
        <button onClick={onClear}>Clear</button>
        {recluster && <button onClick={recluster.start} disabled={recluster.busy} data-testid="recluster-selection" title="a new job clustering these points on their part of the distance matrix">Re-cluster</button>}
      </div>
      {makeCluster && <MakeClusterForm {...makeCluster} />}
      <ul className="selection-list">
        {points.slice(0, 200).map((p) => <li key={p.index}>{p.label} <small>({p.cluster})</small></li>)}
        {points.length > 200 && <li>… and {points.length - 200} more (in the CSV)</li>}
      </ul>
    </section>
  );
}

function MakeClusterForm({ defaultName, make }: MakeCluster) {
  const [busy, setBusy] = useState(false);
  return (
    <form className="row" onSubmit={(e) => {
      e.preventDefault();
      const form = e.currentTarget;
      const label = (new FormData(form).get('cluster-name') as string).trim() || defaultName;
      setBusy(true);
      void make(label).then((made) => { if (made) form.reset(); }).finally(() => setBusy(false));
    }}>
      {/* keyed by the default, and reset once a cluster is made: the next name is offered */}
      <input key={defaultName} name="cluster-name" defaultValue={defaultName} aria-label="new cluster name" data-testid="cluster-name" />
      <button type="submit" disabled={busy} data-testid="make-cluster">{busy ? 'Making the cluster…' : 'Make a cluster from selection'}</button>
    </form>
  );
}
