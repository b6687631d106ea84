// The plot library: my / public plots, search, tag and collection filters, sort, paging, upload.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Collection, PlotPage, PlotQuery, PlotSummary, StorageUse } from '@wpv/schema';
import { collections as collectionsApi, plots, storage, tags as tagsApi } from '../api/endpoints';
import { isOutage } from '../api/http';
import { linkClick, navigate } from '../app/router';
import { formatBytes, formatCount } from '../app/format';
import { useSession } from '../app/session';
import { ErrorMessage } from '../pages/ErrorMessage';
import { LoginPrompt } from '../pages/LoginPrompt';
import { CollectionActions } from './CollectionActions';
import { PlotEditor, type EditorBusy } from './PlotEditor';
import { UploadPanel } from './UploadPanel';

type Scope = PlotQuery['scope'];
type Sort = PlotQuery['sort'];
const PAGE_SIZE = 24;

function Thumbnail({ plot }: { plot: PlotSummary }) {
  const [missing, setMissing] = useState(!plot.hasThumbnail);
  if (missing) return <div className="thumb empty">{formatCount(plot.points, 'point')}</div>;
  return <img className="thumb" alt="" loading="lazy" src={plots.thumbnailUrl(plot.id, plot.updatedAt)} onError={() => setMissing(true)} />;
}

/** What the user's plots take of their storage quota, as a bar; the largest plots are a sort away. */
function StorageMeter({ use, onShowLargest }: { use: StorageUse; onShowLargest: () => void }) {
  const share = use.limitBytes > 0 ? Math.min(1, use.usedBytes / use.limitBytes) : 1;
  const level = share >= 0.95 ? 'full' : share >= 0.8 ? 'high' : 'ok';
  return (
    <div className={`storage-meter ${level}`} data-testid="storage-meter">
      <span>Storage: {formatBytes(use.usedBytes)} of {formatBytes(use.limitBytes)} used</span>
      <span className="bar" role="meter" aria-label="storage used" aria-valuemin={0} aria-valuemax={use.limitBytes} aria-valuenow={use.usedBytes}>
        <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </span>
      {use.usedBytes > 0 && <button className="link" onClick={onShowLargest}>largest plots</button>}
    </div>
  );
}

/** Why the list is empty: nothing matches the filters, or there is nothing yet (and how to make a plot). */
function EmptyLibrary({ filtered, scope }: { filtered: boolean; scope: Scope }) {
  if (filtered) return <p className="library-empty">No plots match.</p>;
  if (scope === 'public') return <p className="library-empty">No public plots yet.</p>;
  return (
    <div className="library-empty" data-testid="library-empty">
      <p><b>You have no plots yet.</b></p>
      <p>Upload a plot file (PlotViz .pviz, text, CSV, or a ZIP of frames) with the panel above, or run an analysis
        such as sequence clustering on the <a href="/jobs" onClick={linkClick}>Jobs</a> page: the plot it makes appears here.</p>
    </div>
  );
}

export function LibraryPage() {
  const { username, outage, reconnected } = useSession();
  const [scope, setScope] = useState<Scope>('all');
  const [q, setQ] = useState('');
  const [tag, setTag] = useState('');
  const [collection, setCollection] = useState('');
  const [sort, setSort] = useState<Sort>('updated');
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<PlotPage | null>(null);
  const [collections, setCollections] = useState<Collection[]>([]);
  const [tagList, setTagList] = useState<{ tag: string; count: number }[]>([]);
  const [editing, setEditing] = useState<string | null>(null);
  // Each plot's save or delete in flight, kept here rather than in its editor: a list reload may take the
  // card away and bring it back (a search typed meanwhile), and the new editor must still say "Deleting…".
  const [busy, setBusy] = useState<ReadonlyMap<string, EditorBusy>>(new Map());
  // Bumped after an edit to reload the list with the filters as they are then, not as the edit's click saw them.
  const [edits, setEdits] = useState(0);
  /** The list request in flight: a newer one aborts it, so an older answer landing late never replaces a newer one. */
  const listRequest = useRef<AbortController | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [storageUse, setStorageUse] = useState<StorageUse | null>(null);
  // Its own: a list reload (debounced after typing) clears `error`, and took a collection's 409 with it.
  const [collectionError, setCollectionError] = useState<unknown>(null);

  const load = useCallback(() => {
    listRequest.current?.abort();
    const request = new AbortController();
    listRequest.current = request;
    setError(null);
    plots.list({ scope, q, tag, collection, sort, page, pageSize: PAGE_SIZE }, request.signal).then(
      (answer) => { if (!request.signal.aborted) setResult(answer); },
      (e: unknown) => { if (!request.signal.aborted) setError(e); },
    );
  }, [scope, q, tag, collection, sort, page, reconnected, edits]); // reconnected: the server answers again, so what failed meanwhile is asked again

  useEffect(() => {
    const t = setTimeout(load, 200); // debounce typing in the search box
    return () => {
      clearTimeout(t);
      listRequest.current?.abort(); // its filters are no longer the page's
    };
  }, [load]);
  const setPlotBusy = (id: string) => (kind: EditorBusy | null) => setBusy((current) => {
    const next = new Map(current);
    if (kind) next.set(id, kind);
    else next.delete(id);
    return next;
  });
  const loadCollections = useCallback(() => {
    // Collections are their owner's: an anonymous visit asks for none (the API would answer 401).
    if (username) collectionsApi.list().then(setCollections, () => setCollections([]));
    else setCollections([]);
  }, [username]);
  useEffect(() => {
    // Signed-in users only; asked again after each edit (a delete makes room).
    if (username) storage.use().then(setStorageUse, () => setStorageUse(null));
    else setStorageUse(null);
  }, [username, edits, reconnected]);
  useEffect(() => {
    if (username === undefined) return; // the session is still loading: its answer runs this again
    loadCollections();
    tagsApi.list().then(setTagList, () => setTagList([]));
  }, [username, loadCollections, reconnected]);

  const pages = result ? Math.max(1, Math.ceil(result.total / result.pageSize)) : 1;
  const resetPage = <T,>(set: (v: T) => void) => (v: T) => { set(v); setPage(1); };

  return (
    <main className="page">
      {username && <UploadPanel collections={collections} onUploaded={(p) => navigate(`/plots/${encodeURIComponent(p.id)}`)} />}
      {username === null && <LoginPrompt to="to upload plots and see your own. Public plots:" />}
      {storageUse && <StorageMeter use={storageUse} onShowLargest={() => { setScope('mine'); setSort('size'); setPage(1); }} />}
      <div className="filters row">
        {username && (['all', 'mine', 'public'] as const).map((s) => (
          <button key={s} className={scope === s ? 'active' : ''} onClick={() => resetPage(setScope)(s)}>
            {s === 'all' ? 'All' : s === 'mine' ? 'My plots' : 'Public'}
          </button>
        ))}
        <input type="search" className="library-search" placeholder="Search name, description, tags" value={q} onChange={(e) => resetPage(setQ)(e.target.value)} data-testid="library-search" />
        <select value={tag} onChange={(e) => resetPage(setTag)(e.target.value)} aria-label="tag">
          <option value="">any tag</option>
          {tagList.map((t) => <option key={t.tag} value={t.tag}>{t.tag} ({t.count})</option>)}
        </select>
        <select value={collection} onChange={(e) => resetPage(setCollection)(e.target.value)} aria-label="collection">
          <option value="">any collection</option>
          {collections.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
        {username && <CollectionActions collections={collections} selected={collection} onChange={setCollections}
          onDeleted={() => resetPage(setCollection)('')} onError={setCollectionError} />}
        <select value={sort} onChange={(e) => resetPage(setSort)(e.target.value as Sort)} aria-label="sort">
          <option value="updated">recently updated</option><option value="created">recently created</option>
          <option value="name">name</option><option value="points">points</option>
          {username && <option value="size">size</option>}
        </select>
      </div>
      <ErrorMessage error={collectionError} />
      {/* While the server is down the banner above says so, and the list reloads by itself once it answers. */}
      <ErrorMessage error={outage && isOutage(error) ? null : error} />
      {result && result.items.length === 0 && <EmptyLibrary filtered={Boolean(q || tag || collection)} scope={username ? scope : 'public'} />}
      <ul className="plots">
        {result?.items.map((p) => (
          <li key={p.id} className="plot-card" data-testid="plot-card">
            <a href={`/plots/${encodeURIComponent(p.id)}`} onClick={linkClick}>
              <Thumbnail plot={p} />
              <b className="plot-name" title={p.name}>{p.name}</b>
            </a>
            <div className="meta">
              {p.owner} · {p.visibility} · {formatCount(p.points, 'point')}{p.frames > 1 ? ` · ${formatCount(p.frames, 'frame')}` : ''}
              {p.owner === username && p.storedBytes !== undefined ? ` · ${formatBytes(p.storedBytes)}` : ''}
            </div>
            {p.tags.length > 0 && <div className="tags">{p.tags.map((t) => <span key={t} className="tag" onClick={() => resetPage(setTag)(t)}>{t}</span>)}</div>}
            {p.owner === username && (editing === p.id
              ? <PlotEditor plot={p} collections={collections} busy={busy.get(p.id) ?? null} onBusy={setPlotBusy(p.id)}
                onDone={() => { setEditing(null); setEdits((n) => n + 1); loadCollections(); }} />
              : <button onClick={() => setEditing(p.id)}>Edit</button>)}
          </li>
        ))}
      </ul>
      {result && pages > 1 && (
        <div className="row pager">
          <button disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
          <span>Page {page} of {pages} ({formatCount(result.total, 'plot')})</span>
          <button disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
        </div>
      )}
    </main>
  );
}
