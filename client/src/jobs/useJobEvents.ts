// The job as the events stream (SSE) reports it: a snapshot at every change until `end`.
import { useEffect, useState } from 'react';
import { Job } from '@wpv/schema';
import { jobs } from '../api/endpoints';
import { errorFromBody, reportOutage } from '../api/http';
import { isActiveJob } from './jobProgress';

export interface JobStream {
  job: Job | null;
  /** When the shown job reached the page (Date.now()): figures count on from it until the next report. */
  receivedAt: number;
  error: unknown;
  /** Replaces the shown job with a reply (cancel) before the stream catches up. */
  setJob: (job: Job) => void;
}

export function useJobEvents(id: string): JobStream {
  const [{ job, receivedAt }, setReceived] = useState<{ job: Job | null; receivedAt: number }>({ job: null, receivedAt: Date.now() });
  // A reply that the stream has overtaken (a cancel's, read before the bridge recorded the stages
  // cancelled) does not bring back the stages it saw running.
  const setJob = (next: Job) => setReceived((shown) =>
    shown.job?.id === next.id && shown.job.revision > next.revision ? shown : { job: next, receivedAt: Date.now() });
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let source: EventSource | null = null;
    let closed = false;
    // A plain read first: it reports a missing job or a lost session as an API error,
    // which an EventSource cannot.
    jobs.get(id).then((first) => {
      if (closed) return;
      setJob(first);
      if (!isActiveJob(first.state)) return;
      source = new EventSource(jobs.eventsUrl(id));
      source.addEventListener('job', (ev) => {
        const parsed = Job.safeParse(JSON.parse((ev as MessageEvent<string>).data));
        if (parsed.success) { setJob(parsed.data); setError(null); }
        else setError(new Error('Unexpected job event: ' + parsed.error.message));
      });
      source.addEventListener('end', () => source?.close());
      // The server cannot read the job (its database is down; said again every few seconds while
      // it lasts): its 503 raises the app's outage banner until the server answers again; the
      // stream then sends the job again. (A plain read to learn it could wait out the driver.)
      source.addEventListener('unavailable', (ev) => { reportOutage(errorFromBody(503, (ev as MessageEvent<string>).data)); });
      // The browser reconnects by itself (with Last-Event-ID) unless the server refused the stream.
      source.onerror = () => {
        if (source?.readyState === EventSource.CONNECTING) setError(new Error('Live updates interrupted; reconnecting…'));
        else if (source?.readyState === EventSource.CLOSED) setError(new Error('Live updates stopped; reload the page to see the job\'s state'));
      };
      source.onopen = () => setError(null);
    }, (e: unknown) => { if (!closed) setError(e); });
    return () => { closed = true; source?.close(); };
  }, [id]);

  return { job, receivedAt, error, setJob };
}
