// The plot's tree: the owner attaches a Newick file (its leaves named like the points' labels)
// or removes it; anyone who can read the plot draws its branches, colours the points by the
// clades of a cut (into k clades, or with none wider than a width: OTUs at a distance threshold),
// and selects or collapses a clade from the list.
import { useState } from 'react';
import type { Rgba } from '@wpv/schema';
import { ErrorMessage } from '../pages/ErrorMessage';
import type { TreeController } from './useTree';
import { MAX_CLADES, cladesShown, type ViewState } from './viewState';

/** The cut a first "Colour by clade" asks for. */
const FIRST_CUT = 4;
const css = ({ r, g, b }: Rgba) => `rgb(${r}, ${g}, ${b})`;
/**
 * A width rounded up to the 6 significant digits the link keeps (viewState's `num`): the cut is the
 * same after a reload, and a widest clade's exact width still holds it.
 */
function roundUp(width: number): number {
  if (!(width > 0)) return 0;
  const rounded = Number(width.toPrecision(6));
  return rounded >= width ? rounded : Number((rounded + 10 ** (Math.floor(Math.log10(width)) - 5)).toPrecision(6));
}
/** A branch-length width with 3 significant digits. */
const formatWidth = (width: number) => Number(width.toPrecision(3)).toString();

export function TreePanel({ tree, view, update, canEdit, onSelect }: {
  tree: TreeController;
  view: ViewState;
  update(patch: Partial<ViewState>): void;
  canEdit: boolean;
  /** selects these points of the frame on screen */
  onSelect(points: number[]): void;
}) {
  const t = tree.tree;
  // For the next upload; until ticked or unticked, as the tree shown was rooted.
  const [midpoint, setMidpoint] = useState<boolean | null>(null);
  const rootAtMidpoint = midpoint ?? t?.root === 'midpoint';
  if (!t && !canEdit) return null;
  const cut = (k: number) => update({ clades: Math.min(MAX_CLADES, Math.max(0, Math.round(k) || 0)), cladeWidth: null, colorBy: null, collapsed: [] });
  // The width of the cut on screen: switching from "into k" keeps its clades, widened to the widest.
  const cutAt = (width: number) => update({ clades: 0, cladeWidth: roundUp(width), colorBy: null, collapsed: [] });
  const byWidth = view.cladeWidth !== null;
  const toggle = (clade: number) => update({
    collapsed: view.collapsed.includes(clade) ? view.collapsed.filter((c) => c !== clade) : [...view.collapsed, clade].sort((a, b) => a - b),
  });
  const info = tree.attached;
  return (
    <section className="panel tree-panel" data-testid="tree-panel">
      <h3>Tree</h3>
      {t && <p className="muted" data-testid="tree-info">{t.originalName}: {t.matched.toLocaleString()} of {t.leaves.toLocaleString()} leaves at points{t.root === 'midpoint' ? ', rooted at the midpoint' : ''}</p>}
      {info && info.unmatched.length > 0 && (
        <p className="muted" data-testid="tree-unmatched">
          {info.leaves - info.matched === 1 ? '1 leaf names no point and is left out' : `${(info.leaves - info.matched).toLocaleString()} leaves name no point and are left out`}
          : {info.unmatched.slice(0, 5).join(', ')}{info.leaves - info.matched > 5 ? '…' : ''}
        </p>
      )}
      {canEdit && (
        <>
          <div className="row">
            <label className="linklike" title="A Newick file whose leaf names are the points' labels">
              {t ? 'Replace the tree…' : 'Attach a Newick tree…'}
              <input type="file" hidden accept=".nwk,.newick,.tree,.tre,.txt" data-testid="tree-file" disabled={tree.busy}
                onChange={(e) => {
                  const f = e.target.files?.[0];
                  e.target.value = '';
                  if (f && (!t || window.confirm(`Replace ${t.originalName} by ${f.name}?`))) void tree.attach(f, rootAtMidpoint ? 'midpoint' : 'file');
                }} />
            </label>
            {t && <button onClick={() => void tree.remove()} disabled={tree.busy} data-testid="tree-remove">Remove</button>}
          </div>
          <label className="row" title="FastTree, RAxML and IQ-TREE write unrooted trees, rooted at an arbitrary node: the cut into clades needs a real root">
            <input type="checkbox" checked={rootAtMidpoint} onChange={(e) => setMidpoint(e.target.checked)} data-testid="tree-midpoint" />
            Root at the midpoint (for unrooted trees: FastTree, RAxML, IQ-TREE)
          </label>
        </>
      )}
      {t && (
        <>
          <label className="row">
            <input type="checkbox" checked={view.tree} onChange={(e) => update({ tree: e.target.checked })} data-testid="tree-lines" /> Draw branches
          </label>
          <div className="row">
            <label>
              <input type="checkbox" checked={cladesShown(view)} onChange={(e) => cut(e.target.checked ? FIRST_CUT : 0)} data-testid="tree-color" /> Colour by clade,
            </label>
            <select value={byWidth ? 'width' : 'count'} disabled={!cladesShown(view)} aria-label="cut by" data-testid="tree-cut-by"
              onChange={(e) => (e.target.value === 'width' ? cutAt(tree.widest ?? 0) : cut(tree.clades?.length ?? FIRST_CUT))}>
              <option value="count">cut into</option>
              <option value="width" disabled={!tree.lengths} title={tree.lengths ? undefined : 'needs a length on every branch'}>none wider than</option>
            </select>
            {byWidth
              ? <input type="number" min={0} step="any" value={view.cladeWidth ?? 0} className="clade-count clade-width"
                onChange={(e) => { if (e.target.value !== '' && Number.isFinite(Number(e.target.value))) cutAt(Number(e.target.value)); }}
                data-testid="tree-clade-width" aria-label="clade width" title="the longest leaf-to-leaf path within a clade, in branch lengths (substitutions per site for most trees: 0.03 ≈ 97 % identity)" />
              : <input type="number" min={1} max={MAX_CLADES} value={view.clades || FIRST_CUT} disabled={view.clades === 0} className="clade-count"
                onChange={(e) => cut(Number(e.target.value))} data-testid="tree-clades" aria-label="clades" />}
          </div>
          {byWidth && tree.clades && (
            <p className="muted" data-testid="tree-cut-note">
              {tree.clades.length.toLocaleString()} {tree.clades.length === 1 ? 'clade' : 'clades'}, the widest {formatWidth(tree.widest ?? 0)} (longest leaf-to-leaf path)
            </p>
          )}
          {!byWidth && tree.clades && tree.clades.length !== view.clades && (
            <p className="muted" data-testid="tree-cut-note">
              {tree.clades.length < view.clades ? `the tree splits into no more than ${tree.clades.length} clades` : `multifurcations split into ${tree.clades.length} clades`}
            </p>
          )}
          {tree.outliers && tree.outliers.leaves > 0 && (
            <p className="muted" data-testid="tree-outliers" title="Pieces split off a clade with fewer leaves than a tenth of the mean clade size are left out of the clades (lone reads on long branches, often sequencing noise)">
              {tree.outliers.leaves === 1 ? '1 leaf is an outlier' : `${tree.outliers.leaves.toLocaleString()} leaves are outliers`} (in pieces under {tree.outliers.minSize} leaves), grey
            </p>
          )}
          {tree.clades && (
            <ul className="legend clade-list" data-testid="clade-list">
              {tree.clades.map((c) => (
                <li key={c.key} data-testid="clade-row" data-collapsed={view.collapsed.includes(c.key) ? '1' : '0'}>
                  <span className="swatch" style={{ background: css(c.color) }} />
                  <span className="legend-label" title={c.label}>{c.label}</span>
                  <span className="muted">{c.count.toLocaleString()}</span>
                  <button onClick={() => onSelect(tree.pointsOf(c.key))} data-testid="clade-select" title="select the clade's points">select</button>
                  <button onClick={() => toggle(c.key)} data-testid="clade-collapse" title="draw the clade as one mark, its points dimmed">
                    {view.collapsed.includes(c.key) ? 'expand' : 'collapse'}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <ErrorMessage error={tree.error} />
    </section>
  );
}
