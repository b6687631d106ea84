// The plot viewer: loads a plot, renders it, and wires the panels (clusters, search,
// selection, time bar, named views) to the renderer and to the view state in the URL.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { categoricalColor, type Cluster, type Plot } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { ApiError } from '../api/http';
import { useSession } from '../app/session';
import { ErrorMessage } from '../pages/ErrorMessage';
import { ClustersPanel, type ClusterActions } from './ClustersPanel';
import { buildPointAttributes, countByCluster, resolveStyles, withCounts, type ClusterStyle, type PointAttributes } from './clusterStyles';
import type { SelectedPoint } from './csv';
import { fetchEdges, fetchFullFrame, fetchGeometry } from './frames';
import { HelpOverlay } from './HelpOverlay';
import { NamedViews } from './NamedViews';
import { Playback } from './playback';
import { PlotCanvas, type Tool } from './PlotCanvas';
import { PlotRenderer, WebGLUnavailableError } from './renderer';
import { assignCluster, followLabels, nextSelectionName, type FrameKeys } from './selection';
import { NamedSelections } from './NamedSelections';
import { SearchResults, type LabelSearch } from './SearchResults';
import { SelectionPanel } from './SelectionPanel';
import { uploadThumbnail } from './thumbnail';
import { TimeBar, type TrailsRequest } from './TimeBar';
import {
  FrameStore, addFrameToTrails, blendTargets, emptyTrails, missingTrailLabels, trailSegments, type FrameData,
} from './timeSeries';
import { Toolbar } from './Toolbar';
import { DEFAULT_VIEW, decodeViewState, encodeViewState, viewDefaults, type ClusterOverride, type ViewState } from './viewState';

/** The frame on screen; labels and edges arrive after the first render of a single plot. */
interface ShownFrame {
  index: number;
  positions: Float32Array;
  clusters: Uint32Array;
  labels: string[] | null;
}

interface Trails {
  labels: string[];
  length: number;
  paths: Float32Array[];
}

function highlightSet(selection: readonly number[], matches: readonly number[]): Set<number> {
  return new Set([...selection, ...matches]);
}

function describeLoadError(e: unknown): unknown {
  if (e instanceof ApiError && e.status === 404) return new Error('This plot does not exist, or it is private and you are not its owner.');
  return e;
}

export function ViewerPage({ plotId }: { plotId: string }) {
  const { username } = useSession();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const rendererRef = useRef<PlotRenderer | null>(null);
  const frameRef = useRef<ShownFrame | null>(null);
  const attributesRef = useRef<PointAttributes | null>(null);
  /** The styles and highlights the attributes on screen were built from. */
  const builtFrom = useRef<{ styles: ClusterStyle[]; highlighted: Set<number> } | null>(null);
  const trailsRef = useRef<Trails | null>(null);
  const storeRef = useRef<FrameStore | null>(null);
  /** The frame the selection's indices refer to: they follow its points by label when the frame changes. */
  const selectionFrameRef = useRef(0);
  const [initial] = useState(() => decodeViewState(new URLSearchParams(location.search)));
  /** Embed mode (?embed=1, for notebooks and other pages that frame the plot): the canvas and a link out. */
  const [embed] = useState(() => new URLSearchParams(location.search).get('embed') === '1');
  /** The plot's defaults (its file's display settings), known once the plot has loaded. */
  const defaultsRef = useRef<ViewState>(DEFAULT_VIEW);
  const [view, setView] = useState<ViewState>(initial.state);
  const [plot, setPlot] = useState<Plot | null>(null);
  const [clusters, setClusters] = useState<Cluster[]>([]);
  const [playback, setPlayback] = useState<Playback | null>(null);
  const [ready, setReady] = useState(false);
  const [labelsLoaded, setLabelsLoaded] = useState(false);
  const [noWebGL, setNoWebGL] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState(initial.problems.length ? `Parts of this link were ignored: ${initial.problems.join('; ')}` : '');
  const [tool, setTool] = useState<Tool>('orbit');
  const [searchMatches, setSearchMatches] = useState<number[]>([]);
  const [labelSearch, setLabelSearch] = useState<LabelSearch | null>(null);
  const [trailProgress, setTrailProgress] = useState('');
  const [trailMissing, setTrailMissing] = useState<string[]>([]);
  const [help, setHelp] = useState(false);
  /** Cluster sizes in the frame on screen, for a time series (its cluster table sums all frames). */
  const [frameCounts, setFrameCounts] = useState<Map<number, number> | null>(null);
  const countsTimer = useRef<number | undefined>(undefined);

  const styles = useMemo(() => resolveStyles(clusters, view), [clusters, view.hidden, view.overrides, view.glyphs]);
  const clusterLabel = useMemo(() => new Map(styles.map((s) => [s.key, s.label])), [styles]);
  const panelStyles = useMemo(() => (frameCounts ? withCounts(styles, frameCounts) : styles), [styles, frameCounts]);
  const highlighted = useMemo(() => highlightSet(view.selection, searchMatches), [view.selection, searchMatches]);
  const isOwner = !!plot && plot.owner === username;
  // Callbacks that run outside React's render (playback, camera events) read the latest values here.
  const latest = useRef({ styles, highlighted, view, searchMatches });
  latest.current = { styles, highlighted, view, searchMatches };

  // --- the URL follows the view (debounced; replaceState so history is not flooded) ---
  const urlTimer = useRef<number | undefined>(undefined);
  const currentViewState = useCallback((): ViewState => {
    const r = rendererRef.current;
    return { ...latest.current.view, camera: r ? r.getCamera() : latest.current.view.camera, frame: frameRef.current?.index ?? 0 };
  }, []);
  const scheduleUrlUpdate = useCallback(() => {
    clearTimeout(urlTimer.current);
    urlTimer.current = window.setTimeout(() => {
      const params = encodeViewState(currentViewState(), defaultsRef.current);
      if (embed) params.set('embed', '1'); // the page stays embedded
      const query = params.toString();
      history.replaceState(null, '', location.pathname + (query ? '?' + query : ''));
    }, 250);
  }, [currentViewState, embed]);
  useEffect(() => { if (ready) scheduleUrlUpdate(); }, [view, ready, scheduleUrlUpdate]);

  const drawTrails = useCallback((frame: number) => {
    const t = trailsRef.current;
    if (!t) return;
    const { vertices, trail } = trailSegments(t.paths, frame, t.length);
    const colors = new Uint8Array(vertices.length / 3 * 4);
    trail.forEach((index, s) => {
      const c = categoricalColor(index);
      for (const v of [2 * s, 2 * s + 1]) colors.set([c.r, c.g, c.b, 255], 4 * v);
    });
    rendererRef.current?.setTrails(vertices, colors);
  }, []);

  /** Moves the selection and search matches onto the same labelled points of the frame about to be shown. */
  const followSelection = useCallback((index: number, labels: string[]) => {
    const from = frameRef.current;
    if (!from?.labels || from.index === index) return;
    const { view: v, searchMatches: matches } = latest.current;
    const selection = selectionFrameRef.current === from.index ? followLabels(v.selection, from.labels, labels) : v.selection;
    if (selectionFrameRef.current === from.index) selectionFrameRef.current = index;
    const found = followLabels(matches, from.labels, labels);
    if (selection === v.selection && found === matches) return;
    // Read by this frame's attributes before React renders the new state.
    latest.current = { ...latest.current, view: { ...v, selection: [...selection] }, searchMatches: [...found], highlighted: highlightSet(selection, found) };
    setView((old) => ({ ...old, selection: [...selection] }));
    setSearchMatches([...found]);
  }, []);

  /** Puts a time-series frame on screen: the work timed as "main-thread ms per frame switch". */
  const showFrame = useCallback((index: number, data: FrameData, next?: FrameData) => {
    const start = performance.now();
    const r = rendererRef.current;
    if (!r) return;
    followSelection(index, data.labels);
    const { styles: s, highlighted: h } = latest.current;
    const previous = attributesRef.current;
    const attributes = buildPointAttributes(data.clusters, s, h, previous ?? undefined);
    attributesRef.current = attributes;
    if (previous === attributes && frameRef.current?.positions.length === data.positions.length) {
      r.updatePositions(data.positions, next ? blendTargets(data, next) : undefined);
      r.attributesChanged();
    } else {
      r.setPoints(data.positions, attributes, plot!.bbox);
    }
    r.setEdges(data.edges);
    frameRef.current = { index, positions: data.positions, clusters: data.clusters, labels: data.labels };
    // Counted once playback rests on a frame, not on every frame it passes.
    clearTimeout(countsTimer.current);
    countsTimer.current = window.setTimeout(() => setFrameCounts(countByCluster(data.clusters)), 150);
    drawTrails(index);
    scheduleUrlUpdate();
    performance.measure('wpv:frame-switch', { start, end: performance.now() });
  }, [plot, drawTrails, scheduleUrlUpdate, followSelection]);

  const showFrameRef = useRef(showFrame);
  showFrameRef.current = showFrame;

  // --- loading: metadata, then the first frame as fast as possible, then labels and edges ---
  useEffect(() => {
    let cancelled = false;
    let renderer: PlotRenderer | null = null;
    let store: FrameStore | null = null;
    (async () => {
      let v = initial.state;
      // Metadata and the first frame's geometry are fetched together, and the shaders
      // compile meanwhile: the first frame waits for one round trip, not three steps.
      const t0 = performance.now();
      const earlyGeometry = fetchGeometry(plotId, v.frame);
      earlyGeometry.catch(() => undefined); // handled below, once the frame count is known
      try {
        renderer = new PlotRenderer(canvasRef.current!);
      } catch (e) {
        if (e instanceof WebGLUnavailableError) return setNoWebGL(true);
        throw e;
      }
      rendererRef.current = renderer;
      renderer.precompile();
      const p = await plots.get(plotId);
      if (cancelled) return;
      // Sizes and glyphs the link does not set come from the file's display settings.
      defaultsRef.current = viewDefaults(p.display);
      v = decodeViewState(new URLSearchParams(location.search), defaultsRef.current).state;
      // The toolbar is laid out now, so that the first frame is drawn at the canvas's final
      // size; the panels render after that frame (they wait for `ready`).
      flushSync(() => {
        setView(v);
        setPlot(p);
        setClusters(p.clusters);
      });
      const frame = v.frame < p.frames ? v.frame : 0;
      if (frame !== v.frame) setNotice(`This plot has ${p.frames} frame(s); showing the first.`);
      const geometry = frame === v.frame ? await earlyGeometry : await fetchGeometry(plotId, frame);
      if (cancelled) return;
      const t1 = performance.now();
      const { styles: s, highlighted: h } = latest.current;
      const attributes = buildPointAttributes(geometry.clusters, s, h);
      attributesRef.current = attributes;
      builtFrom.current = { styles: s, highlighted: h };
      const t2 = performance.now();
      renderer.setPoints(geometry.positions, attributes, p.bbox);
      renderer.setPointScale(v.pointSize, v.glyphSize);
      renderer.setMode(v.mode);
      renderer.setEdgesVisible(v.edges);
      renderer.setAxesVisible(v.axes);
      if (v.camera) renderer.setCamera(v.camera);
      else renderer.resetCamera();
      const { uploadMs, drawMs } = renderer.renderTimed();
      performance.measure('wpv:fetch', { start: t0, end: t1 });
      performance.measure('wpv:decode', { start: t1, end: t2 });
      performance.measure('wpv:upload', { start: t2, duration: uploadMs });
      performance.measure('wpv:draw', { start: t2 + uploadMs, duration: drawMs });
      performance.mark('wpv:first-frame');
      frameRef.current = { index: frame, ...geometry, labels: null };
      if (p.frames > 1) setFrameCounts(countByCluster(geometry.clusters));
      selectionFrameRef.current = frame;
      renderer.onCameraChange(scheduleUrlUpdate);
      setReady(true);

      const [labels, edges] = await Promise.all([plots.labels(plotId, frame), fetchEdges(plotId, p.frameList[frame])]);
      if (cancelled) return;
      if (frameRef.current.index === frame) frameRef.current.labels = labels;
      renderer.setEdges(edges);
      setLabelsLoaded(true);
      if (p.frames > 1) {
        store = new FrameStore(p.frames, (f, signal) => fetchFullFrame(plotId, p.frameList[f], signal));
        storeRef.current = store;
        void store.prefetchFrom(frame, true); // ready before the first press of Play
        setPlayback(new Playback(store, { show: (f, d, n) => showFrameRef.current(f, d, n), setBlend: (t) => renderer?.setBlend(t) }, frame));
      }
    })().catch((e: unknown) => { if (!cancelled) setError(describeLoadError(e)); });
    return () => {
      cancelled = true;
      store?.dispose();
      storeRef.current = null;
      renderer?.dispose();
      rendererRef.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads once per plot; later changes go through effects below
  }, [plotId]);
  useEffect(() => () => playback?.dispose(), [playback]);

  // --- view changes pushed to the renderer ---
  useEffect(() => {
    const r = rendererRef.current, f = frameRef.current;
    if (!ready || !r || !f) return;
    if (builtFrom.current?.styles === styles && builtFrom.current.highlighted === highlighted) return; // already on screen
    attributesRef.current = buildPointAttributes(f.clusters, styles, highlighted, attributesRef.current ?? undefined);
    builtFrom.current = { styles, highlighted };
    r.attributesChanged();
  }, [ready, styles, highlighted]);
  useEffect(() => { if (ready) rendererRef.current?.setPointScale(view.pointSize, view.glyphSize); }, [ready, view.pointSize, view.glyphSize]);
  useEffect(() => { if (ready) rendererRef.current?.setMode(view.mode); }, [ready, view.mode]);
  useEffect(() => { if (ready) rendererRef.current?.setEdgesVisible(view.edges); }, [ready, view.edges]);
  useEffect(() => { if (ready) rendererRef.current?.setAxesVisible(view.axes); }, [ready, view.axes]);

  // The owner's first complete view becomes the library thumbnail when there is none yet, or
  // when a new cluster made it stale (the session may load after the plot, hence an effect;
  // declared after the renderer's effects so the picture shows this commit's colours).
  const thumbnailDone = useRef(false);
  useEffect(() => {
    if (!labelsLoaded || !plot || plot.hasThumbnail || plot.owner !== username || thumbnailDone.current || !rendererRef.current) return;
    thumbnailDone.current = true;
    uploadThumbnail(plotId, rendererRef.current).catch((e: unknown) => setNotice(`The thumbnail could not be stored: ${(e as Error).message}`));
  }, [labelsLoaded, plot, username, plotId]);

  const update = useCallback((patch: Partial<ViewState>) => setView((v) => ({ ...v, ...patch })), []);

  const clusterActions: ClusterActions = {
    setHidden: (hidden) => update({ hidden }),
    override: (changes) => setView((v) => {
      const overrides = { ...v.overrides };
      for (const [key, change] of Object.entries(changes)) {
        const merged: ClusterOverride = { ...overrides[Number(key)], ...change };
        for (const k of Object.keys(merged) as (keyof ClusterOverride)[]) if (merged[k] === undefined) delete merged[k];
        if (Object.keys(merged).length) overrides[Number(key)] = merged; else delete overrides[Number(key)];
      }
      return { ...v, overrides };
    }),
    rename: isOwner ? (key, label) => {
      plots.patch(plotId, { clusters: [{ key, label }] }).then((p) => setClusters(p.clusters), setError);
    } : undefined,
  };

  /** Writes the view's colours, sizes, shapes and visibility into the plot itself (owner). */
  async function saveStylesToPlot() {
    try {
      const edits = styles.map((s: ClusterStyle) => ({ key: s.key, color: s.color, size: s.size, shape: s.shape, visible: s.visible }));
      const p = await plots.patch(plotId, { clusters: edits });
      setClusters(p.clusters);
      update({ overrides: {} });
      setNotice('Cluster styles saved to the plot.');
      if (rendererRef.current) await uploadThumbnail(plotId, rendererRef.current);
    } catch (e) { setError(e); }
  }

  /** The owner turns the selection into a cluster: stored by the server, applied here to the frames in memory. */
  async function makeCluster(label: string): Promise<boolean> {
    const shown = frameRef.current;
    if (!shown) return false;
    const pointCount = shown.clusters.length;
    const points = view.selection.filter((i) => i < pointCount);
    try {
      const { cluster, plot: p } = await plots.createCluster(plotId, { label, frame: shown.index, points, pointCount });
      const source: FrameKeys = { ...shown, labels: shown.labels ?? [] };
      const cached = Array.from({ length: p.frames }, (_, f) => storeRef.current?.peek(f)).flatMap((d, index) => (d ? [{ ...d, index }] : []));
      assignCluster(cluster.key, points, source, [source, ...cached]);
      thumbnailDone.current = false;
      setPlot({ ...p, hasThumbnail: false }); // the stored thumbnail shows the old clusters
      setClusters(p.clusters);
      setNotice(`Cluster "${cluster.label}" made of ${cluster.count} point(s)${p.frames > 1 ? ' over all frames' : ''}.`);
      return true;
    } catch (e) { setError(e); return false; }
  }

  async function search(label: string) {
    if (!label.trim()) return clearSearch();
    try {
      const result = await plots.search(plotId, label.trim(), frameRef.current?.index ?? 0);
      setSearchMatches(result.indices);
      setLabelSearch({ query: label.trim(), truncated: result.truncated });
      rendererRef.current?.flyTo(result.indices);
    } catch (e) { setError(e); }
  }

  function clearSearch() {
    setSearchMatches([]);
    setLabelSearch(null);
  }

  async function showTrails(req: TrailsRequest) {
    if (!plot || !playback) return;
    setTrailMissing([]);
    if (!req.labels.length) {
      trailsRef.current = null;
      rendererRef.current?.setTrails(new Float32Array(0), new Uint8Array(0));
      return;
    }
    const paths = emptyTrails(req.labels, plot.frames);
    const controller = new AbortController();
    try {
      // Every frame, not just those played so far: trails show the whole history.
      for (let f = 0; f < plot.frames; f++) {
        setTrailProgress(`loading frames for trails: ${f + 1}/${plot.frames}`);
        addFrameToTrails(paths, req.labels, f, await fetchFullFrame(plotId, plot.frameList[f], controller.signal));
      }
      trailsRef.current = { labels: req.labels, length: req.length, paths };
      setTrailMissing(missingTrailLabels(paths, req.labels));
      drawTrails(playback.frame);
      setTrailProgress('');
    } catch (e) { setTrailProgress(''); setError(e); }
  }

  const selectedPoints = useMemo((): SelectedPoint[] => {
    const f = frameRef.current;
    if (!f) return [];
    return view.selection.filter((i) => i < f.clusters.length).map((i) => ({
      index: i, label: f.labels?.[i] ?? `#${i}`, cluster: clusterLabel.get(f.clusters[i]) ?? String(f.clusters[i]),
      x: f.positions[3 * i], y: f.positions[3 * i + 1], z: f.positions[3 * i + 2],
    }));
  }, [view.selection, clusterLabel, labelsLoaded]); // eslint-disable-line react-hooks/exhaustive-deps -- frameRef changes with labelsLoaded

  // --- keyboard shortcuts ---
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      const r = rendererRef.current;
      const actions: Record<string, () => void> = {
        r: () => r?.resetCamera(), '2': () => update({ mode: '2d' }), '3': () => update({ mode: '3d' }),
        a: () => setView((v) => ({ ...v, axes: !v.axes })), e: () => setView((v) => ({ ...v, edges: !v.edges })),
        o: () => setTool('orbit'), b: () => setTool('box'), l: () => setTool('lasso'),
        '+': () => setView((v) => ({ ...v, pointSize: Math.min(40, v.pointSize + 1) })),
        '-': () => setView((v) => ({ ...v, pointSize: Math.max(1, v.pointSize - 1) })),
        ' ': () => { if (playback?.playing) playback.pause(); else playback?.play(); },
        ArrowLeft: () => void playback?.step(-1), ArrowRight: () => void playback?.step(1),
        Escape: () => { update({ selection: [] }); clearSearch(); setHelp(false); },
        '?': () => setHelp((h) => !h),
      };
      const action = actions[e.key];
      if (action) { e.preventDefault(); action(); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [playback, update]);

  if (noWebGL) {
    return (
      <main className="page">
        <h1>WebGL is not available</h1>
        <p>The plot viewer draws with WebGL, which this browser does not provide (or has turned off).
          Try a current Chrome, Firefox, Safari or Edge, and check that hardware acceleration is enabled.</p>
      </main>
    );
  }

  return (
    <main className={embed ? 'viewer embed' : 'viewer'}>
      <div className="stage">
        {plot && !embed && (
          <Toolbar plot={plot} styles={styles} view={view} update={update} tool={tool} setTool={setTool}
            renderer={rendererRef.current} currentUrl={() => location.origin + location.pathname + '?' + encodeViewState(currentViewState(), defaultsRef.current).toString()}
            onHelp={() => setHelp(true)}
            makePublic={isOwner ? async () => {
              try { setPlot(await plots.patch(plotId, { visibility: 'public' })); } catch (e) { setError(e); throw e; }
            } : undefined} />
        )}
        <PlotCanvas
          canvasRef={canvasRef} renderer={ready ? rendererRef.current : null} tool={tool}
          state={labelsLoaded ? 'complete' : ready ? 'drawn' : 'loading'}
          describe={(i) => {
            const f = frameRef.current!;
            return { label: f.labels?.[i] ?? `#${i}`, cluster: clusterLabel.get(f.clusters[i]) ?? String(f.clusters[i]), xyz: [f.positions[3 * i], f.positions[3 * i + 1], f.positions[3 * i + 2]] };
          }}
          onSelect={(indices, add) => {
            selectionFrameRef.current = frameRef.current?.index ?? 0;
            update({ selection: add ? [...new Set([...view.selection, ...indices])].sort((a, b) => a - b) : indices });
          }}
        />
        {!ready && !error && <div className="loading">Loading…</div>}
        {playback && plot && <TimeBar playback={playback} frames={plot.frameList} onTrails={(r) => void showTrails(r)} trailProgress={trailProgress} trailMissing={trailMissing} />}
      </div>
      {embed ? <EmbedLink href={location.pathname + "?" + encodeViewState(currentViewState(), defaultsRef.current).toString()} /> : (
      <aside className="sidebar">
        <ErrorMessage error={error} />
        {notice && <p className="notice" data-testid="notice" onClick={() => setNotice('')}>{notice}</p>}
        {plot && ready && (
          <>
            <h2 data-testid="plot-name">{plot.name}</h2>
            <p className="muted">{plot.owner} · {plot.visibility} · {plot.points.toLocaleString()} points{plot.frames > 1 ? ` · ${plot.frames} frames` : ''}
              {' · '}<a href={plots.exportUrl(plotId, 'pviz')}>export</a></p>
            <form className="row" onSubmit={(e) => { e.preventDefault(); void search(new FormData(e.currentTarget).get('label') as string); }}>
              <input name="label" type="search" placeholder="Search point labels" data-testid="label-search" />
              <button type="submit">Find</button>
            </form>
            {labelSearch && <SearchResults search={labelSearch} matches={searchMatches} onClose={clearSearch}
              labelOf={(i) => frameRef.current?.labels?.[i] ?? ''} onPick={(i) => rendererRef.current?.flyTo([i])} />}
            <ClustersPanel styles={panelStyles} actions={clusterActions} />
            {isOwner && Object.keys(view.overrides).length > 0 && <button onClick={() => void saveStylesToPlot()}>Save cluster styles to the plot</button>}
            <SelectionPanel points={selectedPoints} onClear={() => update({ selection: [] })}
              makeCluster={isOwner && labelsLoaded ? { defaultName: nextSelectionName(clusters.map((c) => c.label)), make: makeCluster } : undefined} />
            <NamedSelections plotId={plotId} canSave={isOwner} selection={view.selection} frame={selectionFrameRef.current}
              pointCount={(f) => plot.frameList[f]?.points ?? 0}
              apply={(indices, f) => {
                selectionFrameRef.current = f;
                update({ selection: indices });
                if (playback && f !== playback.frame) void playback.seek(f);
              }} />
            <NamedViews plotId={plotId} canSave={isOwner} current={currentViewState}
              apply={(s) => {
                selectionFrameRef.current = s.frame;
                setView(s);
                rendererRef.current?.setMode(s.mode); // before the camera: a mode change resets it
                if (s.camera) rendererRef.current?.setCamera(s.camera);
                if (playback && s.frame !== playback.frame) void playback.seek(s.frame);
              }} />
          </>
        )}
      </aside>
      )}
      {help && <HelpOverlay onClose={() => setHelp(false)} />}
    </main>
  );
}

/** Embed mode's one control: the same view, opened in WebPlotViz in a new tab. */
function EmbedLink({ href }: { href: string }) {
  return <a className="embed-link" href={href} target="_blank" rel="noopener" data-testid="embed-link">open in WebPlotViz</a>;
}
