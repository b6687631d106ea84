// Named views saved on the server per plot (the owner saves; anyone who can read the plot applies).
import { useEffect, useState } from 'react';
import { plots } from '../api/endpoints';
import { usePending } from '../app/usePending';
import { ErrorMessage } from '../pages/ErrorMessage';
import { decodeViewState, encodeViewState, type ViewState } from './viewState';

/** Views are stored as the same query string a shared link carries, so one parser validates both. */
interface StoredView { query: string }

function isStoredView(v: unknown): v is StoredView {
  return typeof v === 'object' && v !== null && typeof (v as StoredView).query === 'string';
}

export function NamedViews({ plotId, canSave, current, apply }: {
  plotId: string;
  canSave: boolean;
  current: () => ViewState;
  apply: (s: ViewState) => void;
}) {
  const [views, setViews] = useState<Record<string, unknown>>({});
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const saving = usePending();
  const reload = () => plots.views(plotId).then(setViews, setError);
  useEffect(() => { void reload(); }, [plotId]); // eslint-disable-line react-hooks/exhaustive-deps

  const save = () => saving.run(async () => {
    if (!name.trim()) return;
    try {
      const stored: StoredView = { query: encodeViewState(current()).toString() };
      await plots.saveView(plotId, name.trim(), stored);
      setName('');
      await reload();
    } catch (e) { setError(e); }
  });
  async function remove(n: string) {
    try { await plots.deleteView(plotId, n); await reload(); } catch (e) { setError(e); }
  }

  const names = Object.keys(views).sort();
  if (!names.length && !canSave) return null;
  return (
    <section className="panel views">
      <h3>Saved views</h3>
      {/* No empty list: its margins left a gap under the heading. */}
      {names.length > 0 && (
        <ul>
          {names.map((n) => {
            const v = views[n];
            return (
              <li key={n}>
                <button disabled={!isStoredView(v)} onClick={() => isStoredView(v) && apply(decodeViewState(new URLSearchParams(v.query)).state)}>{n}</button>
                {canSave && <button onClick={() => void remove(n)} title="delete">×</button>}
              </li>
            );
          })}
        </ul>
      )}
      {canSave && (
        <form className="row" onSubmit={(e) => { e.preventDefault(); void save(); }}>
          <input placeholder="view name" value={name} onChange={(e) => setName(e.target.value)} />
          <button type="submit" disabled={saving.pending} data-testid="save-view">Save view</button>
        </form>
      )}
      <ErrorMessage error={error} />
    </section>
  );
}
