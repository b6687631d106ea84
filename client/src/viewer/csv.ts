// CSV export of selected points (RFC 4180 quoting).

function cell(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(header: readonly string[], rows: Iterable<readonly (string | number)[]>): string {
  const lines = [header.map(cell).join(',')];
  for (const row of rows) lines.push(row.map(cell).join(','));
  return lines.join('\r\n') + '\r\n';
}

export interface SelectedPoint {
  index: number;
  label: string;
  cluster: string;
  x: number;
  y: number;
  z: number;
  /** the point's metadata column values, name and text (the tooltip shows them) */
  columns?: [string, string][];
}

export function selectionCsv(points: Iterable<SelectedPoint>): string {
  const rows = function* () {
    for (const p of points) yield [p.index, p.label, p.cluster, p.x, p.y, p.z];
  };
  return toCsv(['index', 'label', 'cluster', 'x', 'y', 'z'], rows());
}
