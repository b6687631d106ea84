// The selected points: labels with copy, CSV download, and clearing.
import { selectionCsv, type SelectedPoint } from './csv';

export function SelectionPanel({ points, onClear }: { points: SelectedPoint[]; onClear: () => void }) {
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
      </div>
      <ul className="selection-list">
        {points.slice(0, 200).map((p) => <li key={p.index}>{p.label} <small>({p.cluster})</small></li>)}
        {points.length > 200 && <li>… and {points.length - 200} more (in the CSV)</li>}
      </ul>
    </section>
  );
}
