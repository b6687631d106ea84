// Colour and label the points by a metadata column (extra CSV columns, PlotViz properties,
// FASTA descriptions, stock sectors), with the colour scale's legend.
import type { PlotColumn } from '@wpv/schema';
import { Legend } from './Legend';
import type { Columns } from './useColumns';

export function ColorByPanel({ columns, state }: { columns: readonly PlotColumn[]; state: Columns }) {
  if (columns.length === 0) return null;
  const colouredBy = state.colorBy !== null ? columns[state.colorBy] : undefined;
  return (
    <section className="color-by">
      <h3>Metadata</h3>
      <ColumnSelect title="Colour by" none="clusters" testId="color-by" columns={columns} value={state.colorBy} onChange={state.setColorBy} />
      <ColumnSelect title="Label by" none="label" testId="label-by" columns={columns} value={state.labelBy} onChange={state.setLabelBy} />
      {colouredBy && state.legend && <Legend column={colouredBy} rows={state.legend} />}
    </section>
  );
}

/** A column by index, or `none` (null). */
function ColumnSelect({ title, none, testId, columns, value, onChange }: {
  title: string; none: string; testId: string; columns: readonly PlotColumn[]; value: number | null; onChange(column: number | null): void;
}) {
  return (
    <label className="row">
      {title}
      <select data-testid={testId} value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
        <option value="">{none}</option>
        {columns.map((c, k) => <option key={k} value={k}>{c.name}</option>)}
      </select>
    </label>
  );
}
