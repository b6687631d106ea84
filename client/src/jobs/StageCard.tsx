// One pipeline stage: what it does, how far it has got (bar, percent, ETA), its figures,
// timings, backend id, chart and log tail.
import { useEffect, useState } from 'react';
import type { JobLogs, JobStage } from '@wpv/schema';
import type { z } from 'zod';
import { jobs } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';
import { countdown, elapsedSeconds, formatPercent, isStopping, isWorking, progressFigures, runFigures, stageEtaSeconds, stageFraction, stageTitle, timeLeftText, waitsForCpus } from './jobProgress';
import { ProgressBar } from './ProgressBar';
import { StressChart } from './StressChart';

/**
 * `updatedAt`: the job's last change, which the stage's progress is as of; `sinceReport`: seconds
 * since the page received it; `jobEndedAt`: the job's end (null while it is active).
 */
export function StageCard({ jobId, stage, index, total, revision, updatedAt, sinceReport, jobEndedAt }:
  { jobId: string; stage: JobStage; index: number; total: number; revision: number; updatedAt: string; sinceReport: number; jobEndedAt: string | null }) {
  // Its job ended: no bar or time left for a program on its way out, until the bridge records its end.
  const stopping = isStopping(stage, jobEndedAt);
  const waiting = !stopping && waitsForCpus(stage);
  const running = !stopping && isWorking(stage);
  const fraction = stageFraction(stage);
  const eta = running ? countdown(stageEtaSeconds(stage, elapsedSeconds(stage.launchedAt ?? stage.startedAt, updatedAt)), sinceReport) : null;
  return (
    <section className={`job-stage state-${stage.state}`} data-testid={`stage-${stage.name}`} data-state={stage.state}>
      <h3>
        <span className="stage-count">Stage {index} of {total}</span> {stageTitle(stage.name)}
        {' '}<span className={`badge state-${stopping ? 'cancelled' : waiting ? 'waiting' : stage.state}`}>{stopping ? 'stopping…' : waiting ? 'waiting for CPUs' : stage.state}</span>
        <span className="program">{stage.name}</span>
      </h3>
      {running && (
        <ProgressBar fraction={fraction} testId={`progress-${stage.name}`}
          text={`${fraction === null ? 'working' : formatPercent(fraction)}${timeLeftText(eta)}`} />
      )}
      {stage.error && <p className="error" data-testid={`stage-error-${stage.name}`}>{stage.error}</p>}
      <dl className="figures">
        {[...progressFigures(stage.progress), ...runFigures(stage, jobEndedAt)].map((f) =>
          <div key={f.label}><dt>{f.label}</dt><dd>{f.value}</dd></div>)}
        {stage.backendJobId && <div><dt>backend job</dt><dd data-testid="backend-id">{stage.backendJobId}</dd></div>}
        {stage.attempts > 1 && <div><dt>attempts</dt><dd>{stage.attempts}</dd></div>}
      </dl>
      <StressChart series={stage.series} progress={stage.progress} />
      {/* Only the MPI programs write logs (the worker's own stages report through the job: error, progress);
          a stage that never started (pending, queued, or cancelled first) has no output. */}
      {stage.runner === 'hpc' && stage.startedAt &&
        <StageLogs jobId={jobId} stage={stage.name} revision={revision} initiallyOpen={stage.state === 'failed'} />}
    </section>
  );
}

/** The stage's stdout/stderr tails, loaded when opened (a failed stage opens them) and refreshed as the job moves. */
function StageLogs({ jobId, stage, revision, initiallyOpen }: { jobId: string; stage: string; revision: number; initiallyOpen: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const [logs, setLogs] = useState<z.infer<typeof JobLogs> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!open) return;
    let current = true;
    jobs.logs(jobId, stage).then((l) => { if (current) { setLogs(l); setError(null); } }, (e: unknown) => { if (current) setError(e); });
    return () => { current = false; };
  }, [open, jobId, stage, revision]);
  return (
    <details className="logs" open={initiallyOpen} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Logs</summary>
      <ErrorMessage error={error} />
      {logs && <>
        {logs.stderr && <pre className="stderr" data-testid={`logs-${stage}-stderr`}>{logs.stderr}</pre>}
        <pre data-testid={`logs-${stage}-stdout`}>{logs.stdout || '(no output)'}</pre>
      </>}
    </details>
  );
}
