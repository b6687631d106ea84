// Who is logged in: loaded from /auth/session (200 for anonymous visitors too, so their console
// stays free of a 401), shared through context. While the server cannot answer (its database
// down, unreachable) the user is unknown, not logged out: the last answer stays, a banner says
// why, and the session is asked again with back-off until it answers.
import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { Credentials } from '@wpv/schema';
import { auth } from '../api/endpoints';
import { ApiError, onOutage, setCsrfToken } from '../api/http';
import { outageText, retryDelayMs } from './outage';

interface Session {
  /** undefined while loading or unknown (the server has not answered yet), null when anonymous */
  username: string | null | undefined;
  /** Why the server cannot say who is logged in now (the page keeps asking); null while it answers. */
  outage: string | null;
  /** Bumped each time the server answers again after an outage: pages reload what failed meanwhile. */
  reconnected: number;
  login(c: Credentials): Promise<void>;
  register(c: Credentials): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** A failure worth asking again: the server unreachable or failing (5xx), not an answer about this visitor. */
const isServerTrouble = (e: unknown) => e instanceof ApiError && (e.status === 0 || e.status >= 500);

export function SessionProvider({ children }: { children: React.ReactNode }) {
  const [username, setUsername] = useState<string | null | undefined>(undefined);
  const [outage, setOutage] = useState<string | null>(null);
  const [reconnected, setReconnected] = useState(0);
  const asking = useRef(false);

  /** Asks the server who is logged in until it answers; `afterOutage`: another request already found it down. */
  const ask = useCallback((afterOutage: boolean) => {
    if (asking.current) return;
    asking.current = true;
    let failed = afterOutage;
    let attempt = 0;
    const once = () => auth.session().then(
      (s) => {
        asking.current = false;
        setCsrfToken(s.csrfToken);
        setUsername(s.username);
        setOutage(null);
        if (failed) setReconnected((n) => n + 1);
      },
      (e: unknown) => {
        if (!isServerTrouble(e)) {
          asking.current = false;
          console.warn('session check failed', e);
          setUsername(null);
          return;
        }
        failed = true;
        setOutage(outageText(e));
        setTimeout(once, retryDelayMs(attempt++));
      },
    );
    void once();
  }, []);

  useEffect(() => {
    ask(false);
    // Said at once (a page waiting on its own request would wait with it), cleared once the session answers.
    return onOutage((e) => {
      setOutage(outageText(e));
      ask(true);
    });
  }, [ask]);

  const login = useCallback(async (c: Credentials) => {
    const me = await auth.login(c);
    setCsrfToken(me.csrfToken);
    setUsername(me.username);
  }, []);
  const register = useCallback(async (c: Credentials) => {
    await auth.register(c);
    await login(c);
  }, [login]);
  const logout = useCallback(async () => {
    await auth.logout();
    setCsrfToken(undefined);
    setUsername(null);
  }, []);

  return (
    <SessionContext.Provider value={{ username, outage, reconnected, login, register, logout }}>{children}</SessionContext.Provider>
  );
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
