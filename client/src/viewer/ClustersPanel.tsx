// Cluster table: counts, show/hide/solo/invert, recolour with alpha, rename, glyph and size, schemes, sort.
import { useMemo, useState } from 'react';
import type { ClusterStyle } from './clusterStyles';
import { rgbaToHex, hexToRgba, schemeColor, type SchemeName } from '@wpv/schema';
import { VirtualList } from './VirtualList';
import type { ClusterOverride } from './viewState';

export const SHAPE_NAMES = ['disc', 'ball', 'star', 'cube', 'pyramid', 'cone', 'cylinder'];

export interface ClusterActions {
  setHidden(keys: number[]): void;
  override(changes: Record<number, ClusterOverride>): void;
  rename?(key: number, label: string): void;
}

export function ClustersPanel({ styles, actions }: { styles: ClusterStyle[]; actions: ClusterActions }) {
  const [sort, setSort] = useState<'file' | 'size' | 'label'>('file');
  const [filter, setFilter] = useState('');
  const [renaming, setRenaming] = useState<number | null>(null);

  const shown = useMemo(() => {
    const f = filter.toLowerCase();
    const list = styles.filter((s) => !f || s.label.toLowerCase().includes(f));
    if (sort === 'size') list.sort((a, b) => b.count - a.count);
    if (sort === 'label') list.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
    return list;
  }, [styles, sort, filter]);

  const hiddenKeys = () => styles.filter((s) => !s.visible).map((s) => s.key);
  const toggle = (key: number) => {
    const hidden = new Set(hiddenKeys());
    if (hidden.has(key)) hidden.delete(key); else hidden.add(key);
    actions.setHidden([...hidden]);
  };
  const applyScheme = (scheme: SchemeName) => {
    if (scheme === 'file') return actions.override(Object.fromEntries(styles.map((s) => [s.key, { color: undefined }])));
    actions.override(Object.fromEntries(styles.map((s, i) => [s.key, { color: schemeColor(scheme, i, styles.length) }])));
  };

  return (
    <section className="panel clusters" data-testid="clusters-panel">
      <h3>Clusters ({styles.length})</h3>
      <div className="row wrap">
        <button onClick={() => actions.setHidden([])}>Show all</button>
        <button onClick={() => actions.setHidden(styles.map((s) => s.key))}>Hide all</button>
        <button onClick={() => actions.setHidden(styles.filter((s) => s.visible).map((s) => s.key))}>Invert</button>
        <select aria-label="sort clusters" value={sort} onChange={(e) => setSort(e.target.value as typeof sort)}>
          <option value="file">file order</option><option value="size">by size</option><option value="label">by label</option>
        </select>
        <select aria-label="colour scheme" defaultValue="" onChange={(e) => { if (e.target.value) applyScheme(e.target.value as SchemeName); e.target.value = ''; }}>
          <option value="" disabled>colours…</option>
          <option value="file">from file</option><option value="categorical">categorical</option><option value="rainbow">rainbow</option>
        </select>
      </div>
      <input type="search" placeholder="filter clusters" value={filter} onChange={(e) => setFilter(e.target.value)} />
      <VirtualList
        items={shown} rowHeight={30} height={280} keyOf={(s) => s.key}
        render={(s) => (
          <div className="cluster-row" data-testid="cluster-row" data-key={s.key}>
            <input type="checkbox" checked={s.visible} onChange={() => toggle(s.key)} title="show / hide" aria-label={`show ${s.label}`} />
            <input type="color" value={rgbaToHex(s.color).slice(0, 7)} title="colour"
              onChange={(e) => actions.override({ [s.key]: { color: { ...hexToRgba(e.target.value), a: s.color.a } } })} />
            <input type="range" min={0} max={255} value={s.color.a} title="opacity" className="alpha"
              onChange={(e) => actions.override({ [s.key]: { color: { ...s.color, a: Number(e.target.value) } } })} />
            {renaming === s.key && actions.rename
              ? <input autoFocus defaultValue={s.label} className="rename"
                  onBlur={(e) => { actions.rename!(s.key, e.target.value); setRenaming(null); }}
                  onKeyDown={(e) => { if (e.key === 'Enter') e.currentTarget.blur(); if (e.key === 'Escape') setRenaming(null); }} />
              : <span className="label" title={actions.rename ? 'double-click to rename' : s.label}
                  onDoubleClick={() => actions.rename && setRenaming(s.key)}>{s.label}</span>}
            <span className="count">{s.count}</span>
            <select value={s.shape} title="glyph" onChange={(e) => actions.override({ [s.key]: { shape: Number(e.target.value) } })}>
              {SHAPE_NAMES.map((n, i) => <option key={n} value={i}>{n}</option>)}
            </select>
            <input type="number" min={0.1} step={0.5} value={s.size} title="size" className="size"
              onChange={(e) => { const v = Number(e.target.value); if (v > 0) actions.override({ [s.key]: { size: v } }); }} />
            <button title="show only this cluster" onClick={() => actions.setHidden(styles.filter((o) => o.key !== s.key).map((o) => o.key))}>solo</button>
          </div>
        )}
      />
    </section>
  );
}
