// Named selections saved with the plot (/plots/{id}/selections): the owner saves and deletes,
// anyone who can read the plot loads one, and scripts read the same sets as point indices.
import { useEffect, useState } from 'react';
import { decodeSelectionMask, type SelectionInfo } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { usePending } from '../app/usePending';
import { ErrorMessage } from '../pages/ErrorMessage';

export function NamedSelections({ plotId, canSave, selection, frame, pointCount, apply }: {
  plotId: string;
  canSave: boolean;
  /** the current selection: indices of points of `frame` */
  selection: readonly number[];
  frame: number;
  pointCount: (frame: number) => number;
  apply: (indices: number[], frame: number) => void;
}) {
  const [saved, setSaved] = useState<SelectionInfo[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const saving = usePending();
  const reload = () => plots.selections(plotId).then(setSaved, setError);
  useEffect(() => { void reload(); }, [plotId]); // eslint-disable-line react-hooks/exhaustive-deps

  async function run(action: () => Promise<unknown>) {
    try { setError(null); await action(); } catch (e) { setError(e); }
  }
  const load = (n: string) => run(async () => {
    const s = await plots.selection(plotId, n);
    apply(decodeSelectionMask(s.mask ?? '', pointCount(s.frame)), s.frame);
  });
  const save = () => saving.run(() => run(async () => {
    await plots.saveSelection(plotId, name.trim(), frame, selection, pointCount(frame));
    setName('');
    await reload();
  }));
  const remove = (n: string) => run(async () => { await plots.deleteSelection(plotId, n); await reload(); });

  if (!saved.length && !(canSave && selection.length)) return null;
  return (
    <section className="panel views" data-testid="named-selections">
      <h3>Saved selections</h3>
      <ul>
        {saved.map((s) => (
          <li key={s.name}>
            <button onClick={() => void load(s.name)} data-testid="load-selection">{s.name}</button> <small>{s.count.toLocaleString()} points</small>
            {canSave && <button onClick={() => void remove(s.name)} title="delete">×</button>}
          </li>
        ))}
      </ul>
      {canSave && selection.length > 0 && (
        <form className="row" onSubmit={(e) => { e.preventDefault(); if (name.trim()) void save(); }}>
          <input placeholder="selection name" value={name} onChange={(e) => setName(e.target.value)} data-testid="selection-name" />
          <button type="submit" disabled={saving.pending} data-testid="save-selection">Save selection</button>
        </form>
      )}
      <ErrorMessage error={error} />
    </section>
  );
}
