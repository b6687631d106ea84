// DA-MDS stress against iteration as a small SVG chart with labelled axes; a dot ends each
// temperature step and the final (plain SMACOF) loop is shaded.
import type { JobStage } from '@wpv/schema';
import { stressChart } from './jobProgress';

const BOX = { width: 360, height: 150, left: 48, bottom: 28, pad: 8 };

export function StressChart({ series }: { series: JobStage['series'] }) {
  const chart = stressChart(series, BOX);
  if (!chart.path) return null;
  const { width, height, left, bottom, pad } = BOX;
  const base = height - bottom;
  const steps = chart.marks.length;
  return (
    <figure className="stress-chart">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} data-testid="stress-chart" role="img"
        aria-label="stress against iteration">
        <rect x={left} y={pad} width={width - pad - left} height={base - pad} className="frame" />
        {chart.finalX !== null && <rect x={chart.finalX} y={pad} width={width - pad - chart.finalX} height={base - pad} className="final" />}
        <path d={chart.path} className="line" />
        {chart.marks.map((m, i) => <circle key={i} cx={m.x} cy={m.y} r={2} className={m.final ? 'mark final' : 'mark'} />)}
        <text x={left - 4} y={pad + 8} className="tick" textAnchor="end">{chart.stress[1].toPrecision(2)}</text>
        <text x={left - 4} y={base} className="tick" textAnchor="end">{chart.stress[0].toPrecision(2)}</text>
        <text x={left} y={base + 12} className="tick" textAnchor="start">{chart.iterations[0]}</text>
        <text x={width - pad} y={base + 12} className="tick" textAnchor="end">{chart.iterations[1]}</text>
        <text x={(left + width - pad) / 2} y={height - 3} className="axis" textAnchor="middle">iteration</text>
        <text x={12} y={(pad + base) / 2} className="axis" textAnchor="middle" transform={`rotate(-90 12 ${(pad + base) / 2})`}>stress</text>
      </svg>
      <figcaption data-testid="stress-caption">
        Stress after each of {steps} temperature steps (dots), iterations {chart.iterations[0]}–{chart.iterations[1]};
        now {chart.lastStress.toPrecision(3)}. While annealing, distances are smoothed by the temperature, so stress
        may rise as the map gains detail; the shaded final loop fits the true distances.
      </figcaption>
    </figure>
  );
}
