// The plot's tree in the viewer: loaded with the plot (none: null), attached and removed by the
// owner, drawn over the points of the frame on screen (the page calls `frameShown` on every
// frame switch), and, while the view asks for clades, the points coloured by the cut. Clade
// colours and a metadata column's colours take turns: choosing one turns the other off.
import { cutTree, cutTreeByWidth, hasBranchLengths, type PlotTree, type PlotTreeInfo, type TreeRoot } from '@wpv/schema';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { plots } from '../api/endpoints';
import type { LegendRow } from './metadata';
import type { Scene } from './scene';
import { cladeLegend, cladePointColors, cladePoints, leafPoints, nodePositions, shownLeafPoints, treeLines, treeModel } from './treeModel';
import { cladesShown, type ViewState } from './viewState';

type TreeView = Pick<ViewState, 'tree' | 'clades' | 'cladeWidth' | 'collapsed' | 'colorBy' | 'hidden'>;

export interface TreeController {
  tree: PlotTree | null;
  /** the clades of the cut (legend rows, in clade order) while the points are coloured by it */
  clades: LegendRow[] | null;
  /** the cut's outliers: leaves in pieces under `minSize` leaves, grey and in no clade */
  outliers: { leaves: number; minSize: number } | null;
  /** the cut's widest clade (its longest leaf-to-leaf path) */
  widest: number | null;
  /** every branch has a length: a cut at a width can be asked for */
  lengths: boolean;
  /** what the last upload matched (shown until another tree or none) */
  attached: PlotTreeInfo | null;
  busy: boolean;
  /** the last attach or remove's failure (a Newick error names its line and column) */
  error: unknown;
  attach(file: File, root: TreeRoot): Promise<void>;
  remove(): Promise<void>;
  /** the points of a clade in the frame on screen */
  pointsOf(clade: number): number[];
  /** redraws the tree at the frame now on screen */
  frameShown(): void;
}

export function useTree({ plotId, scene, ready, labelsLoaded, view, update, fail }: {
  plotId: string;
  scene: Scene;
  /** the first frame is on screen */
  ready: boolean;
  /** and its labels are in */
  labelsLoaded: boolean;
  view: TreeView;
  update(patch: Partial<ViewState>): void;
  fail(e: unknown): void;
}): TreeController {
  const [tree, setTree] = useState<PlotTree | null>(null);
  const [attached, setAttached] = useState<PlotTreeInfo | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!ready) return;
    let live = true;
    plots.tree(plotId).then((t) => { if (live) setTree(t); }, (e: unknown) => { if (live) fail(e); });
    return () => { live = false; };
  }, [plotId, ready, fail]);

  const model = useMemo(() => (tree ? treeModel(tree) : null), [tree]);
  const cut = useMemo(() => {
    if (!model) return null;
    if (view.cladeWidth !== null) return cutTreeByWidth(model.nodes, view.cladeWidth);
    return view.clades > 0 ? cutTree(model.nodes, view.clades) : null;
  }, [model, view.clades, view.cladeWidth]);
  const collapsed = useMemo(() => new Set(view.collapsed), [view.collapsed]);
  /** the leaves' points in the frame on screen (set as it is drawn), for the clades' counts */
  const [frameLeaves, setFrameLeaves] = useState<Int32Array | null>(null);
  const clades = useMemo(() => (model && cut && frameLeaves?.length === model.nodes.parent.length ? cladeLegend(model, cut, frameLeaves) : null), [model, cut, frameLeaves]);

  /** whether the points on screen wear clade colours (to give the clusters' back when the cut goes) */
  const coloured = useRef(false);
  const latest = useRef({ model, cut, collapsed, view });
  latest.current = { model, cut, collapsed, view };
  const frameShown = useCallback(() => {
    const { model, cut, collapsed, view } = latest.current;
    const r = scene.renderer, f = scene.frame;
    if (!r || !f) return;
    const leafPoint = model && leafPoints(model.nodes, f.index, f.labels);
    // Collapsed clades' marks are drawn with the branches off too: they stand for the points.
    const marked = view.tree || (cut !== null && collapsed.size > 0);
    const placed = model && leafPoint && marked ? nodePositions(model.nodes, shownLeafPoints(leafPoint, f.clusters, view.hidden), f.positions) : null;
    r.setTree(model && placed ? treeLines(model.nodes, placed, cut, collapsed, view.tree) : null);
    if (model && leafPoint && cut) {
      setFrameLeaves(leafPoint);
      r.setPointColors(cladePointColors(model, cut, collapsed, leafPoint, f.positions.length / 3));
      coloured.current = true;
    } else if (coloured.current) {
      coloured.current = false;
      if (view.colorBy === null) r.setPointColors(null); // a column's colours, chosen meanwhile, stay
    }
  }, [scene, setFrameLeaves]);

  // Declared after useColumns on the page, so this runs after its colours in the same commit.
  useEffect(() => { if (ready) frameShown(); }, [ready, labelsLoaded, model, cut, collapsed, view.tree, view.colorBy, view.hidden, frameShown]);
  // A column chosen for colour turns the clade colours off.
  useEffect(() => {
    if (view.colorBy !== null && cladesShown(view)) update({ clades: 0, cladeWidth: null, collapsed: [] });
  }, [view.colorBy, view.clades, view.cladeWidth, update]);

  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  const attach = useCallback((file: File, root: TreeRoot) => run(async () => {
    const info = await plots.putTree(plotId, file, root);
    setTree(await plots.tree(plotId));
    setAttached(info);
    update({ collapsed: [] });
  }), [plotId, update, run]);
  const remove = useCallback(() => run(async () => {
    await plots.deleteTree(plotId);
    setTree(null);
    setAttached(null);
    update({ clades: 0, cladeWidth: null, collapsed: [] });
  }), [plotId, update, run]);

  const pointsOf = useCallback((clade: number) => {
    const f = scene.frame;
    return model && cut && f ? cladePoints(model, cut, clade, leafPoints(model.nodes, f.index, f.labels)) : [];
  }, [scene, model, cut]);

  const outliers = useMemo(() => (cut ? { leaves: cut.outlierLeaves, minSize: cut.minSize } : null), [cut]);

  const lengths = useMemo(() => (model ? hasBranchLengths(model.nodes) : false), [model]);

  return { tree, clades, outliers, widest: cut?.widest ?? null, lengths, attached, busy, error, attach, remove, pointsOf, frameShown };
}
