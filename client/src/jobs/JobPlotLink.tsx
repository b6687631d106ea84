// The plot a job made, on the job page and in the jobs list: a link, or "plot deleted" once the
// plot is gone (the job keeps its plotId, which then names no plot).
import type { ReactNode } from 'react';
import type { JobSummary } from '@wpv/schema';
import { linkClick } from '../app/router';

export function JobPlotLink({ job, className, testId, children }:
  { job: Pick<JobSummary, 'plotId' | 'plotDeleted'>; className?: string; testId?: string; children: ReactNode }) {
  if (!job.plotId) return null;
  if (job.plotDeleted) return <span className="plot-deleted" data-testid="job-plot-deleted">plot deleted</span>;
  return <a className={className} data-testid={testId} href={`/plots/${encodeURIComponent(job.plotId)}`} onClick={linkClick}>{children}</a>;
}
