// Drag-and-drop or file-picker upload with real (XHR) progress.
import { useState } from 'react';
import type { Collection, PlotCreated, Visibility } from '@wpv/schema';
import { formatBytes } from '../app/format';
import { plots } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';
import { UploadProgress, useUpload } from '../pages/UploadProgress';

export function UploadPanel({ collections, onUploaded }: { collections: Collection[]; onUploaded: (p: PlotCreated) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [visibility, setVisibility] = useState<Visibility>('private');
  const [collection, setCollection] = useState('');
  const [tags, setTags] = useState('');
  const [warnings, setWarnings] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [dragging, setDragging] = useState(false);
  const sending = useUpload();

  function choose(f: File | undefined) {
    if (!f) return;
    setFile(f);
    if (!name) setName(f.name.replace(/\.[^.]+$/, ''));
  }

  async function upload() {
    if (!file) return;
    const form = new FormData();
    form.set('name', name || file.name);
    form.set('description', description);
    form.set('visibility', visibility);
    if (collection) form.set('collection', collection);
    form.set('tags', tags);
    form.set('file', file);
    setError(null);
    setWarnings([]);
    try {
      const created = await sending.run((onProgress) => plots.upload(form, onProgress));
      setWarnings(created.warnings);
      setFile(null);
      setName('');
      onUploaded(created);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section
      className={'upload' + (dragging ? ' dragging' : '')}
      onDragOver={(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => { e.preventDefault(); setDragging(false); choose(e.dataTransfer.files[0]); }}
    >
      <h2>Upload a plot</h2>
      <p>Drop a .pviz, .txt, .csv or time-series .zip here, or <label className="linklike">choose a file
        <input type="file" data-testid="upload-file" hidden accept=".pviz,.xml,.txt,.csv,.zip" onChange={(e) => choose(e.target.files?.[0])} />
      </label>.</p>
      {file && (
        <form className="form" onSubmit={(e) => { e.preventDefault(); void upload(); }}>
          <div>File: <b>{file.name}</b> ({formatBytes(file.size)})</div>
          <label>Name <input name="name" value={name} onChange={(e) => setName(e.target.value)} /></label>
          <label>Description <textarea value={description} onChange={(e) => setDescription(e.target.value)} /></label>
          <div className="row">
            <label>Visibility <select value={visibility} onChange={(e) => setVisibility(e.target.value as Visibility)}>
              <option value="private">private</option><option value="public">public</option></select></label>
            <label>Collection <select value={collection} onChange={(e) => setCollection(e.target.value)}>
              <option value="">none</option>
              {collections.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}</select></label>
            <label>Tags <input placeholder="comma,separated" value={tags} onChange={(e) => setTags(e.target.value)} /></label>
          </div>
          {sending.progress === null
            ? <button type="submit" data-testid="upload-submit">Upload</button>
            : <UploadProgress progress={sending.progress} testId="upload-progress"
                serverStep="uploaded; the server is reading the file…" cancelLabel="Cancel" onCancel={sending.abort} />}
        </form>
      )}
      <ErrorMessage error={error} />
      {warnings.length > 0 && <ul className="warnings">{warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>}
    </section>
  );
}
