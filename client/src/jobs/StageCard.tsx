// One pipeline stage: state, latest progress figures, timings, backend id, chart, log tail.
import { useEffect, useState } from 'react';
import type { JobLogs, JobStage } from '@wpv/schema';
import type { z } from 'zod';
import { jobs } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';
import { elapsedSeconds, formatSeconds, progressFigures } from './jobProgress';
import { StressChart } from './StressChart';

export function StageCard({ jobId, stage, revision }: { jobId: string; stage: JobStage; revision: number }) {
  const running = stage.state === 'running';
  return (
    <section className={`job-stage state-${stage.state}`} data-testid={`stage-${stage.name}`} data-state={stage.state}>
      <h3>{stage.name} <span className={`badge state-${stage.state}`}>{stage.state}</span></h3>
      <dl className="figures">
        {progressFigures(stage.progress).map((f) => <div key={f.label}><dt>{f.label}</dt><dd>{f.value}</dd></div>)}
        <div><dt>{running ? 'running for' : 'run time'}</dt>
          <dd>{formatSeconds(stage.metrics?.runSeconds ?? elapsedSeconds(stage.startedAt, stage.endedAt))}</dd></div>
        {stage.metrics && <>
          <div><dt>queue wait</dt><dd>{formatSeconds(stage.metrics.queueWaitSeconds)}</dd></div>
          <div><dt>CPU</dt><dd>{formatSeconds(stage.metrics.cpuSeconds)}</dd></div>
          <div><dt>ranks × threads</dt><dd>{stage.metrics.ranks} × {stage.metrics.threads}</dd></div>
        </>}
        {stage.backendJobId && <div><dt>backend job</dt><dd data-testid="backend-id">{stage.backendJobId}</dd></div>}
        {stage.attempts > 1 && <div><dt>attempts</dt><dd>{stage.attempts}</dd></div>}
      </dl>
      {stage.error && <p className="error">{stage.error}</p>}
      <StressChart series={stage.series} />
      {stage.state !== 'pending' && stage.state !== 'queued' && <StageLogs jobId={jobId} stage={stage.name} revision={revision} />}
    </section>
  );
}

/** The stage's stdout/stderr tails, loaded when opened and refreshed as the job moves. */
function StageLogs({ jobId, stage, revision }: { jobId: string; stage: string; revision: number }) {
  const [open, setOpen] = useState(false);
  const [logs, setLogs] = useState<z.infer<typeof JobLogs> | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!open) return;
    let current = true;
    jobs.logs(jobId, stage).then((l) => { if (current) { setLogs(l); setError(null); } }, (e: unknown) => { if (current) setError(e); });
    return () => { current = false; };
  }, [open, jobId, stage, revision]);
  return (
    <details className="logs" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Logs</summary>
      <ErrorMessage error={error} />
      {logs && <>
        <pre data-testid={`logs-${stage}-stdout`}>{logs.stdout || '(no output)'}</pre>
        {logs.stderr && <pre className="stderr">{logs.stderr}</pre>}
      </>}
    </details>
  );
}
