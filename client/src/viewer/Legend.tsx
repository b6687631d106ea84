// The legend of a colour scale: one swatch per category (largest first), or a number
// column's gradient between its range's ends above its bins. Screenshots draw the same rows.
import type { PlotColumn } from '@wpv/schema';
import { LEGEND_ROWS } from './screenshotLegend';
import { numberColor, type LegendRow } from './metadata';

const css = ({ r, g, b }: LegendRow['color']) => `rgb(${r}, ${g}, ${b})`;

export function Legend({ column, rows }: { column: PlotColumn; rows: LegendRow[] }) {
  const shown = rows.slice(0, LEGEND_ROWS);
  const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => `${css(numberColor(t))} ${t * 100}%`).join(', ');
  return (
    <div className="legend" data-testid="legend" data-column={column.name}>
      {column.kind === 'number' && column.min !== undefined && (
        <div className="legend-scale">
          <span>{column.min.toLocaleString('en')}</span>
          <div className="legend-gradient" style={{ background: `linear-gradient(to right, ${stops})` }} />
          <span>{column.max!.toLocaleString('en')}</span>
        </div>
      )}
      <ul>
        {shown.map((r) => (
          <li key={r.key} data-testid="legend-row">
            <span className="swatch" style={{ background: css(r.color) }} />
            <span className="legend-label">{r.label}</span>
            <span className="muted">{r.count.toLocaleString()}</span>
          </li>
        ))}
        {rows.length > shown.length && <li className="muted">and {(rows.length - shown.length).toLocaleString()} more</li>}
      </ul>
    </div>
  );
}
