// Colour and label the points by a metadata column (extra CSV columns, PlotViz properties,
// FASTA descriptions, stock sectors), with the colour scale's legend.
import type { PlotColumn } from '@wpv/schema';
import { Legend } from './Legend';
import type { Columns } from './useColumns';

export function ColorByPanel({ columns, state }: { columns: readonly PlotColumn[]; state: Columns }) {
  if (columns.length === 0) return null;
  const pick = (value: string) => (value === '' ? null : Number(value));
  const colouredBy = state.colorBy !== null ? columns[state.colorBy] : undefined;
  return (
    <section className="color-by">
      <h3>Metadata</h3>
      <label className="row">
        Colour by
        <select data-testid="color-by" value={state.colorBy ?? ''} onChange={(e) => state.setColorBy(pick(e.target.value))}>
          <option value="">clusters</option>
          {columns.map((c, k) => <option key={k} value={k}>{c.name}</option>)}
        </select>
      </label>
      <label className="row">
        Label by
        <select data-testid="label-by" value={state.labelBy ?? ''} onChange={(e) => state.setLabelBy(pick(e.target.value))}>
          <option value="">label</option>
          {columns.map((c, k) => <option key={k} value={k}>{c.name}</option>)}
        </select>
      </label>
      {colouredBy && state.legend && <Legend column={colouredBy} rows={state.legend} />}
    </section>
  );
}
