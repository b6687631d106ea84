// The time now, read again every `intervalMs` while that is not null: figures that run on
// between the server's reports (a job's time left and running time).
import { useEffect, useState } from 'react';

export function useNow(intervalMs: number | null): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (intervalMs === null) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
