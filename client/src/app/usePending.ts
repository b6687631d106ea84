// A button's request in flight: `pending` disables the button while it runs, and a second call
// before it ends (a double-click landing before React re-renders) is dropped, so one click
// submits one job, view or token.
import { useCallback, useRef, useState } from 'react';

export interface Pending {
  pending: boolean;
  /** Runs `action` unless one is in flight (then resolves undefined at once). */
  run<T>(action: () => Promise<T>): Promise<T | undefined>;
}

export function usePending(): Pending {
  const [pending, setPending] = useState(false);
  const inFlight = useRef(false);
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    if (inFlight.current) return undefined;
    inFlight.current = true;
    setPending(true);
    try {
      return await action();
    } finally {
      inFlight.current = false;
      setPending(false);
    }
  }, []);
  return { pending, run };
}
