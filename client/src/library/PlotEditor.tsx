// Edit a plot's metadata, or delete it after confirmation.
import { useState } from 'react';
import type { Collection, PlotSummary, Visibility } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';

export function PlotEditor({ plot, collections, onDone }: { plot: PlotSummary; collections: Collection[]; onDone: () => void }) {
  const [name, setName] = useState(plot.name);
  const [description, setDescription] = useState(plot.description);
  const [visibility, setVisibility] = useState<Visibility>(plot.visibility);
  const [collection, setCollection] = useState(plot.collection ?? '');
  const [tags, setTags] = useState(plot.tags.join(', '));
  const [error, setError] = useState<unknown>(null);

  async function save() {
    try {
      await plots.patch(plot.id, {
        name, description, visibility, collection: collection || null,
        tags: tags.split(',').map((t) => t.trim()).filter(Boolean),
      });
      onDone();
    } catch (e) { setError(e); }
  }
  async function remove() {
    if (!confirm(`Delete "${plot.name}"? This cannot be undone.`)) return;
    try { await plots.remove(plot.id); onDone(); } catch (e) { setError(e); }
  }

  return (
    <form className="form editor" onSubmit={(e) => { e.preventDefault(); void save(); }}>
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
        <button type="submit">Save</button>
        <button type="button" onClick={onDone}>Cancel</button>
        <button type="button" className="danger" onClick={() => void remove()}>Delete</button>
      </div>
    </form>
  );
}
