// /jobs/:id: live progress of one job (SSE), its stages, cancel / retry, and the resulting plot.
import { useState } from 'react';
import type { Job } from '@wpv/schema';
import { jobs } from '../api/endpoints';
import { linkClick, navigate } from '../app/router';
import { useSession } from '../app/session';
import { ErrorMessage } from '../pages/ErrorMessage';
import { LoginPrompt } from '../pages/LoginPrompt';
import { formatCount } from '../app/format';
import { useNow } from '../app/useNow';
import { countdown, elapsedSeconds, formatPercent, formatSeconds, isActiveJob, jobEtaSeconds, jobOverview, stageTitle, timeLeftText } from './jobProgress';
import { JobPlotLink } from './JobPlotLink';
import { ProgressBar } from './ProgressBar';
import { StageCard } from './StageCard';
import { useJobEvents } from './useJobEvents';

export function JobPage({ jobId }: { jobId: string }) {
  const { username } = useSession();
  // Jobs are their owner's only: an anonymous visitor is asked to log in, not shown the API's 401.
  if (username === undefined) return <main className="page">Loading…</main>;
  if (username === null) return <main className="page job-page"><h1>Job</h1><LoginPrompt to="to see this job." /></main>;
  return <JobView jobId={jobId} />;
}

function JobView({ jobId }: { jobId: string }) {
  const { job, receivedAt, error, setJob } = useJobEvents(jobId);
  // Running times and time left go on between reports (progress reaches the store every 2 s).
  const now = useNow(job && isActiveJob(job.state) ? 1000 : null);
  const sinceReport = (now - receivedAt) / 1000;
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function act(action: () => Promise<void>) {
    setBusy(true);
    setActionError(null);
    try { await action(); } catch (e) { setActionError(e); } finally { setBusy(false); }
  }
  const cancel = () => act(async () => setJob(await jobs.cancel(jobId)));
  const retry = () => act(async () => navigate(`/jobs/${encodeURIComponent((await jobs.retry(jobId)).id)}`));

  return (
    <main className="page job-page">
      <p><a href="/jobs" onClick={linkClick}>← All jobs</a></p>
      <ErrorMessage error={error} />
      {job && <>
        <h1>{job.name} <span className={`badge state-${job.state}`} data-testid="job-state">{job.state}</span></h1>
        <p className="job-meta">
          {job.type} · {job.input.originalName} ({formatCount(job.input.points, 'point')}) · queue wait {formatSeconds(job.queueWaitSeconds)}
          {' '}· total {formatSeconds(elapsedSeconds(job.startedAt, job.endedAt))}
          {job.retryOf && <> · retry of <a href={`/jobs/${encodeURIComponent(job.retryOf)}`} onClick={linkClick}>{job.retryOf}</a></>}
        </p>
        {job.error && <p className="error" data-testid="job-error">Failed: {job.error}</p>}
        {job.warnings.length > 0 && (
          <div className="job-warnings" role="status" data-testid="job-warnings">
            <strong>Warnings</strong>
            <ul>{job.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
          </div>
        )}
        {isActiveJob(job.state) && <JobProgress job={job} sinceReport={sinceReport} />}
        <div className="row">
          {isActiveJob(job.state) && <button disabled={busy} onClick={() => void cancel()}>Cancel job</button>}
          {(job.state === 'failed' || job.state === 'cancelled') && <button disabled={busy} onClick={() => void retry()}>Retry</button>}
          <JobPlotLink job={job} className="button" testId="job-plot">Open the plot</JobPlotLink>
        </div>
        <ErrorMessage error={actionError} />
        <div className="stages">
          {job.stages.map((s, i) => (
            <StageCard key={s.name} jobId={job.id} stage={s} index={i + 1} total={job.stages.length} revision={job.revision}
              updatedAt={job.updatedAt} sinceReport={sinceReport} jobEndedAt={job.endedAt} />
          ))}
        </div>
      </>}
    </main>
  );
}

/** The whole job at a glance: stage i of n, what runs now, percent and time left. */
function JobProgress({ job, sinceReport }: { job: Job; sinceReport: number }) {
  const overview = jobOverview(job.stages);
  const eta = countdown(jobEtaSeconds(overview, elapsedSeconds(job.startedAt, job.updatedAt)), sinceReport);
  const waiting = overview.waiting.length ? `${overview.waiting.join(' and ')} (waiting for free CPUs)` : '';
  // Nothing runs or waits for CPUs: the next stage is in the bridge's queue (behind other jobs' stages) or about to be.
  const next = job.stages[overview.current - 1];
  const upcoming = next ? `${stageTitle(next.name)} (${next.state === 'queued' ? 'queued' : 'starting'})` : '';
  // "Aligning sequences · Aligning the rest to the sample (waiting for free CPUs)": "; " read as if both waited.
  const doing = [overview.running.join(' and '), waiting].filter(Boolean).join(' · ') || upcoming;
  return (
    <div className="job-progress" data-testid="job-progress">
      <p><strong>Stage {overview.current} of {overview.total}</strong>: {doing}</p>
      <ProgressBar fraction={overview.fraction} testId="job-progress-bar"
        text={`${formatPercent(overview.fraction)}${timeLeftText(eta)}`} />
    </div>
  );
}
