// Edit a plot's metadata, or delete it after confirmation.
import { useState } from 'react';
import type { Collection, PlotSummary, Visibility } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';

/** The editor's request in flight: the form is disabled meanwhile, so a click is not taken for a lost one. */
export type EditorBusy = 'saving' | 'deleting';

/** `busy` and `onBusy`: the request in flight, held by the page, as the page may unmount the editor and mount a new one meanwhile. */
export function PlotEditor({ plot, collections, busy, onBusy, onDone }: {
  plot: PlotSummary; collections: Collection[]; busy: EditorBusy | null; onBusy: (busy: EditorBusy | null) => void; onDone: () => void;
}) {
  const [name, setName] = useState(plot.name);
  const [description, setDescription] = useState(plot.description);
  const [visibility, setVisibility] = useState<Visibility>(plot.visibility);
  const [collection, setCollection] = useState(plot.collection ?? '');
  const [tags, setTags] = useState(plot.tags.join(', '));
  const [error, setError] = useState<unknown>(null);

  async function act(kind: EditorBusy, request: () => Promise<unknown>) {
    onBusy(kind);
    setError(null);
    try {
      await request();
      onBusy(null);
      onDone();
    } catch (e) {
      setError(e);
      onBusy(null);
    }
  }
  const save = () => act('saving', () => plots.patch(plot.id, {
    name, description, visibility, collection: collection || null,
    tags: tags.split(',').map((t) => t.trim()).filter(Boolean),
  }));
  function remove() {
    if (confirm(`Delete "${plot.name}"? This cannot be undone.`)) void act('deleting', () => plots.remove(plot.id));
  }

  return (
    <form className="form editor" onSubmit={(e) => { e.preventDefault(); void save(); }} aria-busy={busy !== null}>
      <fieldset disabled={busy !== null}>
        <label>Name <input value={name} onChange={(e) => setName(e.target.value)} /></label>
        <label>Description <textarea value={description} onChange={(e) => setDescription(e.target.value)} /></label>
        <label>Visibility <select value={visibility} onChange={(e) => setVisibility(e.target.value as Visibility)}>
          <option value="private">private</option><option value="public">public</option></select></label>
        <label>Collection <select value={collection} onChange={(e) => setCollection(e.target.value)}>
          <option value="">none</option>
          {collections.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}</select></label>
        <label>Tags <input value={tags} onChange={(e) => setTags(e.target.value)} /></label>
        <ErrorMessage error={error} />
        <div className="row">
          <button type="submit">{busy === 'saving' ? 'Saving…' : 'Save'}</button>
          <button type="button" onClick={onDone}>Cancel</button>
          <button type="button" className="danger" onClick={remove}>{busy === 'deleting' ? 'Deleting…' : 'Delete'}</button>
        </div>
      </fieldset>
    </form>
  );
}
