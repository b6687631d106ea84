// Stress as small SVG charts with labelled axes. DA-MDS: stress against iteration, a dot ending
// each temperature step and the final (plain SMACOF) loop shaded. A series program (stock time
// series) also gets stress against frame: one warm-started fit per sliding window.
import type { JobStage } from '@wpv/schema';
import { stressChart, stressSeries, stressTick, type ChartGeometry } from './jobProgress';

const BOX = { width: 360, height: 150, left: 48, bottom: 28, pad: 8 };

export function StressChart({ series, progress }: { series: JobStage['series']; progress: JobStage['progress'] }) {
  const { annealing, frames } = stressSeries(series, progress);
  const anneal = stressChart(annealing, BOX), perFrame = stressChart(frames, BOX);
  return (
    <>
      {anneal.path && (
        <ChartFigure chart={anneal} xLabel="iteration" testId="stress-chart">
          {frames.length > 0 && 'First window: '}Stress after each of {anneal.marks.length} temperature steps (dots),
          iterations {anneal.xRange[0]}–{anneal.xRange[1]}; {frames.length > 0 ? 'ended at' : 'now'} {anneal.lastStress.toPrecision(3)}.
          While annealing, distances are smoothed by the temperature, so stress may rise as the map gains detail; the
          shaded final loop fits the true distances.
        </ChartFigure>
      )}
      {perFrame.path && (
        <ChartFigure chart={perFrame} xLabel="frame" testId="frame-stress-chart">
          Stress of each frame's fit (warm-started from the previous frame), frames {perFrame.xRange[0]}–{perFrame.xRange[1]};
          now {perFrame.lastStress.toPrecision(3)}.
        </ChartFigure>
      )}
    </>
  );
}

function ChartFigure({ chart, xLabel, testId, children }: { chart: ChartGeometry; xLabel: string; testId: string; children: React.ReactNode }) {
  const { width, height, left, bottom, pad } = BOX;
  const base = height - bottom;
  return (
    <figure className="stress-chart">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} data-testid={testId} role="img"
        aria-label={`stress against ${xLabel}`}>
        <rect x={left} y={pad} width={width - pad - left} height={base - pad} className="frame" />
        {chart.finalX !== null && <rect x={chart.finalX} y={pad} width={width - pad - chart.finalX} height={base - pad} className="final" />}
        <path d={chart.path} className="line" />
        {chart.marks.map((m, i) => <circle key={i} cx={m.x} cy={m.y} r={2} className={m.final ? 'mark final' : 'mark'} />)}
        <text x={left - 4} y={pad + 8} className="tick" textAnchor="end">{stressTick(chart.stress[1])}</text>
        <text x={left - 4} y={base} className="tick" textAnchor="end">{stressTick(chart.stress[0])}</text>
        <text x={left} y={base + 12} className="tick" textAnchor="start">{chart.xRange[0]}</text>
        <text x={width - pad} y={base + 12} className="tick" textAnchor="end">{chart.xRange[1]}</text>
        <text x={(left + width - pad) / 2} y={height - 3} className="axis" textAnchor="middle">{xLabel}</text>
        <text x={12} y={(pad + base) / 2} className="axis" textAnchor="middle" transform={`rotate(-90 12 ${(pad + base) / 2})`}>stress</text>
      </svg>
      <figcaption data-testid={`${testId}-caption`}>{children}</figcaption>
    </figure>
  );
}
