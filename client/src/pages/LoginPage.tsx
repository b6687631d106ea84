import { useState } from 'react';
import { Credentials } from '@wpv/schema';
import { navigate } from '../app/router';
import { useSession } from '../app/session';
import { ErrorMessage } from './ErrorMessage';

export function LoginPage() {
  const session = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(mode: 'login' | 'register') {
    setError(null);
    const parsed = Credentials.safeParse({ username, password });
    if (!parsed.success) {
      setError(new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
      return;
    }
    setBusy(true);
    try {
      await (mode === 'login' ? session.login(parsed.data) : session.register(parsed.data));
      navigate(new URLSearchParams(location.search).get('next') ?? '/');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="page narrow">
      <h1>Log in</h1>
      <form onSubmit={(e) => { e.preventDefault(); void submit('login'); }} className="form">
        <label>Username <input name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} /></label>
        <label>Password <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} /></label>
        <ErrorMessage error={error} />
        <div className="row">
          <button type="submit" disabled={busy}>Log in</button>
          <button type="button" disabled={busy} onClick={() => void submit('register')}>Register</button>
        </div>
      </form>
    </main>
  );
}
