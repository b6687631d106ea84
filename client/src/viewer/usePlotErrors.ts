// The errors the viewer's requests meet, and whether the plot is there at all: a 404 on opening
// means the plot does not exist (or is private); one later may mean it was deleted or made
// private since the page opened, which one request for the plot itself tells apart from a
// missing part (a selection, a view).
import { useCallback, useRef, useState } from 'react';
import { plots } from '../api/endpoints';
import { ApiError } from '../api/http';

/** 'missing': the page opened on a plot it may not show; 'gone': the plot went away while open */
export type Unavailable = 'missing' | 'gone' | null;

const isNotFound = (e: unknown) => e instanceof ApiError && e.status === 404;

export interface PlotErrors {
  /** the last error to show (not one that made the plot unavailable) */
  error: unknown;
  unavailable: Unavailable;
  /** loading the plot failed */
  failLoad(e: unknown): void;
  /** a request made while the plot is open failed */
  report(e: unknown): void;
}

export function usePlotErrors(plotId: string): PlotErrors {
  const [error, setError] = useState<unknown>(null);
  const [unavailable, setUnavailable] = useState<Unavailable>(null);
  /** a check of the plot in flight, or the plot known to be gone */
  const checked = useRef(false);

  const failLoad = useCallback((e: unknown) => (isNotFound(e) ? setUnavailable('missing') : setError(e)), []);
  const report = useCallback((e: unknown) => {
    if (!isNotFound(e)) return setError(e);
    // The 404s of one deletion come together, or after the answer: one check answers them all.
    if (checked.current) return;
    checked.current = true;
    const partFailed = () => { checked.current = false; setError(e); }; // the plot is there: a part of it failed
    plots.get(plotId).then(partFailed, (again: unknown) => (isNotFound(again) ? setUnavailable('gone') : partFailed()));
  }, [plotId]);
  return { error, unavailable, failLoad, report };
}
