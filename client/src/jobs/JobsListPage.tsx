// /jobs: the submission form and the user's jobs, refreshed while any is still active.
import { useCallback, useEffect, useState } from 'react';
import type { JobSummary } from '@wpv/schema';
import { jobs } from '../api/endpoints';
import { linkClick, navigate } from '../app/router';
import { useSession } from '../app/session';
import { ErrorMessage } from '../pages/ErrorMessage';
import { LoginPrompt } from '../pages/LoginPrompt';
import { elapsedSeconds, formatSeconds, isActiveJob, listProgressText, pointsText } from './jobProgress';
import { JobPlotLink } from './JobPlotLink';
import { JobSubmitForm } from './JobSubmitForm';

const REFRESH_MS = 2000;

export function JobsListPage() {
  const { username, reconnected } = useSession();
  const [items, setItems] = useState<JobSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(() => jobs.list().then((page) => { setItems(page.items); setError(null); }, setError), []);
  // Again once the server answers after an outage (reconnected), when the list may have failed.
  useEffect(() => { if (username) void load(); }, [username, load, reconnected]);
  const anyActive = items?.some((j) => isActiveJob(j.state)) ?? false;
  useEffect(() => {
    if (!anyActive) return;
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [anyActive, load]);

  if (username === null) return <main className="page"><h1>Jobs</h1><LoginPrompt to="to run analytics jobs." /></main>;
  return (
    <main className="page jobs-page">
      <h1>Jobs</h1>
      <JobSubmitForm onSubmitted={(created) => navigate(`/jobs/${encodeURIComponent(created.id)}`)} />
      <h2>Your jobs</h2>
      <ErrorMessage error={error} />
      {items?.length === 0 && <p>No jobs yet.</p>}
      {items && items.length > 0 && (
        <table className="table jobs-table" data-testid="jobs-table">
          <thead><tr><th>Name</th><th>Type</th><th>State</th><th>Points</th><th>Submitted</th><th>Run time</th><th>Plot</th></tr></thead>
          <tbody>{items.map((j) => (
            <tr key={j.id} data-state={j.state}>
              <td><a href={`/jobs/${encodeURIComponent(j.id)}`} onClick={linkClick}>{j.name}</a></td>
              <td>{j.type}</td>
              <td>
                <span className={`badge state-${j.state}`}>{j.state}</span>
                {j.state === 'running' && <span className="list-progress" data-testid="list-progress"> {listProgressText(j.stages)}</span>}
                {j.error && <span className="error"> {j.error}</span>}
              </td>
              <td>{pointsText(j.input)}</td>
              <td>{new Date(j.createdAt).toLocaleString()}</td>
              <td>{formatSeconds(elapsedSeconds(j.startedAt, j.endedAt))}</td>
              <td><JobPlotLink job={j}>open</JobPlotLink></td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </main>
  );
}
