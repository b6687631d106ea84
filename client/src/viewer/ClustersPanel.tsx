// Cluster table: counts, show/hide/solo/invert, recolour with alpha, rename, glyph and size, schemes,
// sort. The filter takes a substring, glob or /regex/; the bulk buttons act on the clusters it
// shows, or on the rows picked (click, ctrl/⌘-click, shift-click) when there are some.
import { useMemo, useState } from 'react';
import type { ClusterStyle } from './clusterStyles';
import { LOOSE_SILHOUETTE, rgbaToHex, hexToRgba, schemeColor, type ClusterEdit, type SchemeName } from '@wpv/schema';
import { clusterMatcher, hiddenAfter } from './clusterPattern';
import { VirtualList } from './VirtualList';
import type { ClusterOverride } from './viewState';

export const SHAPE_NAMES = ['disc', 'ball', 'star', 'cube', 'pyramid', 'cone', 'cylinder'];

export interface ClusterActions {
  setHidden(keys: number[]): void;
  override(changes: Record<number, ClusterOverride>): void;
  rename?(key: number, label: string): void;
  /** the clusters made from a selection (owner): they can be deleted */
  deletable?: ReadonlySet<number>;
  remove?(key: number): void;
  /** undo of the last make or delete (owner); `what` is undefined while there is none */
  undo?: { what?: ClusterEdit; run(): void };
  /** flies to a point: a cluster's centre (medoid) */
  goToCentre?(index: number): void;
  /** starts a re-clustering of the cluster's points (owner, clustering job's plot) */
  recluster?(key: number): void;
  /** a re-clustering being started: its buttons wait */
  reclusterBusy?: boolean;
}

const undoText = (edit: ClusterEdit) => `Undo ${edit.kind === 'make' ? 'making' : 'deleting'} “${edit.label}”`;

/** The colour inputs while the points wear other colours: faded, so that they are not read as the points'. */
const FADED = { opacity: 0.25 };

export function ClustersPanel({ styles, actions, coloursNotDrawn }: {
  styles: ClusterStyle[];
  actions: ClusterActions;
  /** why the points do not wear the clusters' colours now (coloured by clade), said above the list */
  coloursNotDrawn?: string;
}) {
  const [sort, setSort] = useState<'file' | 'size' | 'label'>('file');
  const [filter, setFilter] = useState('');
  const [renaming, setRenaming] = useState<number | null>(null);
  const [picked, setPicked] = useState<ReadonlySet<number>>(new Set());
  const [anchor, setAnchor] = useState<number | null>(null);

  const matcher = useMemo(() => clusterMatcher(filter), [filter]);
  const shown = useMemo(() => {
    const list = styles.filter((s) => matcher.test(s.label));
    if (sort === 'size') list.sort((a, b) => b.count - a.count);
    if (sort === 'label') list.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
    return list;
  }, [styles, sort, matcher]);
  const pickedStyles = useMemo(() => styles.filter((s) => picked.has(s.key)), [styles, picked]);
  /** What the bulk buttons act on: the picked rows, else every cluster the filter shows. */
  const targets = pickedStyles.length ? pickedStyles : shown;
  const scope = pickedStyles.length ? `${pickedStyles.length} picked` : filter.trim() ? `${shown.length} matching` : 'all';

  const visibility = (action: 'show' | 'hide' | 'invert' | 'solo', of: readonly ClusterStyle[] = targets) =>
    actions.setHidden(hiddenAfter(styles, of, action));
  const applyScheme = (scheme: SchemeName) => {
    if (scheme === 'file') return actions.override(Object.fromEntries(targets.map((s) => [s.key, { color: undefined }])));
    actions.override(Object.fromEntries(targets.map((s, i) => [s.key, { color: schemeColor(scheme, i, targets.length) }])));
  };
  const styleTargets = (change: (s: ClusterStyle) => ClusterOverride) =>
    actions.override(Object.fromEntries(targets.map((s) => [s.key, change(s)])));

  /** Click picks one row, ctrl/⌘ toggles it, shift extends from the last click over the rows shown. */
  const pick = (key: number, e: React.MouseEvent) => {
    const next = new Set(e.ctrlKey || e.metaKey || e.shiftKey ? picked : []);
    if (e.shiftKey && anchor !== null) {
      const a = shown.findIndex((s) => s.key === anchor), b = shown.findIndex((s) => s.key === key);
      if (a >= 0 && b >= 0) for (let i = Math.min(a, b); i <= Math.max(a, b); i++) next.add(shown[i]!.key);
    } else if ((e.ctrlKey || e.metaKey) && next.has(key)) next.delete(key);
    else next.add(key);
    setPicked(next);
    setAnchor(key);
  };

  return (
    <section className="panel clusters" data-testid="clusters-panel">
      {/* Undo and the pattern's error take no room of their own, where appearing they moved the list under the pointer:
          undo sits in the heading, disabled with nothing to undo; the error is drawn over the bulk bar (nothing to act on then). */}
      <div className="row heading">
        <h3>Clusters ({styles.length})</h3>
        {actions.undo && (
          <button data-testid="undo-cluster-edit" disabled={!actions.undo.what} onClick={actions.undo.run} className="undo"
            title={actions.undo.what ? `${undoText(actions.undo.what)} (the last cluster edit, in any tab)` : 'no cluster edit to undo'}>
            {actions.undo.what ? undoText(actions.undo.what) : 'Undo'}</button>
        )}
      </div>
      {coloursNotDrawn && <p className="muted small" data-testid="cluster-colours-not-drawn">{coloursNotDrawn}</p>}
      <div className="filter">
        <input type="search" placeholder="filter: text, glob* or /regex/" value={filter} aria-label="filter clusters"
          aria-invalid={!!matcher.error} onChange={(e) => setFilter(e.target.value)} />
        {matcher.error && <p className="error small">{matcher.error}</p>}
      </div>
      <div className="row wrap bulk" data-testid="cluster-bulk">
        <span className="muted small scope" data-testid="cluster-scope" title={scope}>{scope}:</span>
        <button onClick={() => visibility('show')}>Show</button>
        <button onClick={() => visibility('hide')}>Hide</button>
        <button onClick={() => visibility('invert')}>Invert</button>
        <button onClick={() => visibility('solo')} title="hide every other cluster">Only these</button>
        <button onClick={() => setPicked(new Set(shown.map((s) => s.key)))} title="pick every cluster the filter shows">Pick matching</button>
        {/* Always there (disabled without picks): a button appearing on the first click would reflow the bar,
            move the list under the pointer and turn a double-click (rename) into two clicks on different rows. */}
        <button disabled={pickedStyles.length === 0} onClick={() => setPicked(new Set())}>Clear picks</button>
      </div>
      <div className="row wrap bulk">
        <input type="color" style={coloursNotDrawn ? FADED : undefined} title={`colour of ${scope}`} aria-label="colour of the targets"
          onChange={(e) => styleTargets((s) => ({ color: { ...hexToRgba(e.target.value), a: s.color.a } }))} />
        <select aria-label="glyph of the targets" defaultValue="" onChange={(e) => { if (e.target.value) styleTargets(() => ({ shape: Number(e.target.value) })); e.target.value = ''; }}>
          <option value="" disabled>glyph…</option>
          {SHAPE_NAMES.map((n, i) => <option key={n} value={i}>{n}</option>)}
        </select>
        <select aria-label="size of the targets" defaultValue="" onChange={(e) => { if (e.target.value) styleTargets(() => ({ size: Number(e.target.value) })); e.target.value = ''; }}>
          <option value="" disabled>size…</option>
          {[0.5, 1, 2, 3, 5, 8].map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
        <select aria-label="colour scheme" defaultValue="" onChange={(e) => { if (e.target.value) applyScheme(e.target.value as SchemeName); e.target.value = ''; }}>
          <option value="" disabled>colours…</option>
          <option value="file">from file</option><option value="categorical">categorical</option><option value="rainbow">rainbow</option>
        </select>
        <select aria-label="sort clusters" value={sort} onChange={(e) => setSort(e.target.value as typeof sort)}>
          <option value="file">file order</option><option value="size">by size</option><option value="label">by label</option>
        </select>
      </div>
      <VirtualList
        items={shown} rowHeight={30} keyOf={(s) => s.key}
        render={(s) => (
          <div className={`cluster-row${picked.has(s.key) ? ' picked' : ''}`} data-testid="cluster-row" data-key={s.key}
            onClick={(e) => { if (e.target === e.currentTarget || (e.target as HTMLElement).classList.contains('label')) pick(s.key, e); }}>
            <input type="checkbox" checked={s.visible} onChange={() => visibility(s.visible ? 'hide' : 'show', [s])} title="show / hide" aria-label={`show ${s.label}`} />
            <input type="color" style={coloursNotDrawn ? FADED : undefined} value={rgbaToHex(s.color).slice(0, 7)} title="colour"
              onChange={(e) => actions.override({ [s.key]: { color: { ...hexToRgba(e.target.value), a: s.color.a } } })} />
            <input type="range" min={0} max={255} value={s.color.a} title="opacity" className="alpha"
              onChange={(e) => actions.override({ [s.key]: { color: { ...s.color, a: Number(e.target.value) } } })} />
            {renaming === s.key && actions.rename
              ? <input autoFocus defaultValue={s.label} className="rename"
                  onBlur={(e) => { actions.rename!(s.key, e.target.value); setRenaming(null); }}
                  onKeyDown={(e) => { if (e.key === 'Enter') e.currentTarget.blur(); if (e.key === 'Escape') setRenaming(null); }} />
              : <span className="label" title={actions.rename ? `${s.label} — click to pick, double-click to rename` : s.label}
                  onDoubleClick={() => actions.rename && setRenaming(s.key)}>{s.label}</span>}
            <span className="count" title={s.silhouette === undefined ? 'points in this frame' : `points in this frame; mean silhouette ${s.silhouette.toFixed(2)}`}>
              {s.count.toLocaleString()}
            </span>
            {s.silhouette !== undefined && s.silhouette <= LOOSE_SILHOUETTE &&
              <span className="loose" data-testid="loose-cluster"
                title={`mean silhouette ${s.silhouette.toFixed(2)} (≤ ${LOOSE_SILHOUETTE}: no substantial structure): its points are about as near other clusters as each other, so read them as points that fit no cluster`}>loose</span>}
            <select value={s.shape} title="glyph" onChange={(e) => actions.override({ [s.key]: { shape: Number(e.target.value) } })}>
              {SHAPE_NAMES.map((n, i) => <option key={n} value={i}>{n}</option>)}
            </select>
            <input type="number" min={0.1} step={0.5} value={s.size} title="size" className="size"
              onChange={(e) => { const v = Number(e.target.value); if (v > 0) actions.override({ [s.key]: { size: v } }); }} />
            <button title="show only this cluster" onClick={() => visibility('solo', [s])}>solo</button>
            {actions.remove && actions.deletable?.has(s.key) && (
              <button title="delete this cluster: its points go back to the clusters they had before" data-testid="delete-cluster"
                onClick={() => actions.remove!(s.key)}>✕</button>
            )}
            {s.centre !== undefined && actions.goToCentre &&
              <button aria-label="go to the centre" data-testid="go-to-centre" disabled={!s.visible} onClick={() => actions.goToCentre!(s.centre!)}
                title={s.visible ? "go to the cluster's centre (its medoid, drawn as a large star)" : 'the cluster is hidden: show it to go to its centre'}>◎</button>}
            {actions.recluster &&
              <button title="re-cluster this cluster's points: a new job on their part of the distance matrix" aria-label="re-cluster" data-testid="recluster-cluster" disabled={actions.reclusterBusy} onClick={() => actions.recluster!(s.key)}>⋔</button>}
          </div>
        )}
      />
    </section>
  );
}
