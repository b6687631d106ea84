// Who is logged in: loaded once from /auth/session (200 for anonymous visitors too, so
// their console stays free of a 401), shared through context.
import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { Credentials } from '@wpv/schema';
import { auth } from '../api/endpoints';
import { setCsrfToken } from '../api/http';

interface Session {
  /** undefined while loading, null when anonymous */
  username: string | null | undefined;
  login(c: Credentials): Promise<void>;
  register(c: Credentials): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: React.ReactNode }) {
  const [username, setUsername] = useState<string | null | undefined>(undefined);

  useEffect(() => {
    auth.session().then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setUsername(s.username);
      },
      (e: unknown) => {
        console.warn('session check failed', e);
        setUsername(null);
      },
    );
  }, []);

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

  return <SessionContext.Provider value={{ username, login, register, logout }}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
