// Stress per iteration of DA-MDS as a small SVG line chart.
import type { JobStage } from '@wpv/schema';
import { stressChart } from './jobProgress';

const WIDTH = 320, HEIGHT = 120;

export function StressChart({ series }: { series: JobStage['series'] }) {
  const chart = stressChart(series, WIDTH, HEIGHT);
  if (!chart.path) return null;
  return (
    <figure className="stress-chart">
      <svg width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} data-testid="stress-chart" role="img"
        aria-label="stress per iteration">
        <rect x={0} y={0} width={WIDTH} height={HEIGHT} className="frame" />
        <path d={chart.path} className="line" />
      </svg>
      <figcaption>
        stress {chart.firstStress.toPrecision(3)} → {chart.lastStress.toPrecision(3)} over iterations
        {' '}{chart.iterations[0]}–{chart.iterations[1]} (range {chart.stress[0].toPrecision(3)}–{chart.stress[1].toPrecision(3)})
      </figcaption>
    </figure>
  );
}
