import { useEffect, useState } from 'react';
import type { TokenCreated, TokenInfo, TokenScope } from '@wpv/schema';
import { auth } from '../api/endpoints';
import { useSession } from '../app/session';
import { usePending } from '../app/usePending';
import { ErrorMessage } from './ErrorMessage';
import { LoginPrompt } from './LoginPrompt';

const SCOPE_TEXT: Record<TokenScope, string> = { full: 'full access', read: 'read only' };

/** When a token stops working: never, a date, or "expired" once that date has passed. */
function expiryText(expiresAt: string | null): string {
  if (!expiresAt) return 'never';
  const when = new Date(expiresAt);
  return when.getTime() <= Date.now() ? `expired ${when.toLocaleString()}` : when.toLocaleString();
}

export function TokensPage() {
  const { username } = useSession();
  const [tokens, setTokens] = useState<TokenInfo[]>([]);
  const [created, setCreated] = useState<TokenCreated | null>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [scope, setScope] = useState<TokenScope>('full');
  const [expires, setExpires] = useState(false);
  const [days, setDays] = useState('30');
  const [error, setError] = useState<unknown>(null);
  const creating = usePending();

  const reload = () => auth.tokens().then(setTokens, setError);
  useEffect(() => { if (username) void reload(); }, [username]);

  if (username === undefined) return <main className="page">Loading…</main>;
  if (username === null) return <main className="page"><LoginPrompt to="to manage API tokens." /></main>;

  const create = () => creating.run(async () => {
    setError(null);
    try {
      // Creating a token re-checks the password, as the API requires.
      setCreated(await auth.createToken({
        username: username!, password, name: name || undefined, scope, expiresInDays: expires ? Number(days) : undefined,
      }));
      setPassword('');
      setName('');
      await reload();
    } catch (e) { setError(e); }
  });
  async function revoke(id: string) {
    try { await auth.revokeToken(id); await reload(); } catch (e) { setError(e); }
  }

  const origin = location.origin;
  return (
    <main className="page">
      <h1>API tokens</h1>
      <p className="muted">
        Scripts, notebooks and the <code>webplotviz</code> Python package sign in with a token instead of your
        password. A token acts as you (your private plots, uploads, edits and jobs) until you revoke it; make one per
        machine or script so that each can be revoked alone. The API is described at{' '}
        <a href="/api/v1/docs">/api/v1/docs</a>.
      </p>
      <form className="row wrap token-form" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <label>Name <input placeholder="token name" value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Access <select value={scope} onChange={(e) => setScope(e.target.value as TokenScope)}>
          <option value="full">{SCOPE_TEXT.full}</option><option value="read">{SCOPE_TEXT.read}</option></select></label>
        <label>Expires <select aria-label="expires" value={expires ? 'after' : 'never'} onChange={(e) => setExpires(e.target.value === 'after')}>
          <option value="never">never</option><option value="after">after</option></select>
          {/* The API's limit: 1 to 3650 whole days. */}
          {expires && <><input type="number" aria-label="days" style={{ width: '5em' }} min={1} max={3650} step={1} required value={days}
            onChange={(e) => setDays(e.target.value)} /> days</>}</label>
        <label>Password <input type="password" placeholder="your password" autoComplete="current-password" value={password}
          onChange={(e) => setPassword(e.target.value)} /></label>
        <button type="submit" disabled={creating.pending || !password}>Create token</button>
      </form>
      <ErrorMessage error={error} />
      {created && (
        <div className="notice token-created">
          <p>Copy this token now; it is shown only once ({SCOPE_TEXT[created.scope]}, expires {expiryText(created.expiresAt)}):</p>
          <code data-testid="new-token">{created.token}</code>{' '}
          <button onClick={() => void navigator.clipboard.writeText(created.token)}>Copy</button>
          <p>From the shell:</p>
          {/* A read-only token is refused an upload (403 read_only_token): its examples read. */}
          <pre>{created.scope === 'read'
            ? `curl -H "Authorization: Bearer ${created.token}" "${origin}/api/v1/plots?scope=mine"`
            : `curl -H "Authorization: Bearer ${created.token}" \\\n  -F file=@plot.pviz -F name="My plot" ${origin}/api/v1/plots`}</pre>
          <p>From Python (<code>pip install ./clients/python</code> in a checkout):</p>
          <pre>{`import webplotviz\nclient = webplotviz.Client("${origin}", "${created.token}")   # or set WEBPLOTVIZ_TOKEN\n${
            created.scope === 'read' ? 'plots = client.plots(mine=True)' : 'plot = client.upload("points.txt", name="My plot")'}`}</pre>
        </div>
      )}
      <table className="table">
        <thead><tr><th>Name</th><th>Prefix</th><th>Access</th><th>Created</th><th>Last used</th><th>Expires</th><th /></tr></thead>
        <tbody>
          {tokens.length === 0 && <tr><td colSpan={7} className="muted">No tokens yet.</td></tr>}
          {tokens.map((t) => (
            <tr key={t.id} data-testid="token-row">
              <td>{t.name}</td><td><code>{t.prefix}…</code></td>
              <td data-testid="token-scope">{SCOPE_TEXT[t.scope]}</td>
              <td>{new Date(t.createdAt).toLocaleString()}</td>
              <td>{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : 'never'}</td>
              <td data-testid="token-expires">{expiryText(t.expiresAt)}</td>
              <td><button onClick={() => void revoke(t.id)}>Revoke</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </main>
  );
}
