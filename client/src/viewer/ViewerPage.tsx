// The plot viewer's page: it composes the data hooks (loading, view state, playback, search,
// trails, cluster edits) with the components that render them. Panels plug into the sidebar.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { encodeSelectionMask } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { formatCount } from '../app/format';
import { useSession } from '../app/session';
import { CanvasMessages, useNotices } from './CanvasMessages';
import { ClustersPanel, type ClusterActions } from './ClustersPanel';
import { ColorByPanel } from './ColorByPanel';
import { useClusterEdits } from './clusterEdits';
import { resolveStyles, withCounts } from './clusterStyles';
import { HelpOverlay } from './HelpOverlay';
import { useShortcuts } from './keymap';
import { NamedSelections } from './NamedSelections';
import { NamedViews } from './NamedViews';
import { PlotCanvas } from './PlotCanvas';
import { PlotLinks, useReclustering } from './Reclustering';
import { Scene } from './scene';
import { SearchResults } from './SearchResults';
import { nextSelectionName } from './selection';
import { SelectionPanel } from './SelectionPanel';
import { TimeBar } from './TimeBar';
import { TrailTags } from './TrailTags';
import { Toolbar } from './Toolbar';
import { TreePanel } from './TreePanel';
import { DEFAULT_TOOL, type Tool } from './tools';
import { missingColumnsText } from './metadata';
import { mergeOverrides } from './viewState';
import { useViewStore } from './urlState';
import { highlightSet, usePlayback } from './usePlayback';
import { usePlot } from './usePlot';
import { useRendererSync } from './useRendererSync';
import { useSearch } from './useSearch';
import { useColumns } from './useColumns';
import { usePlotErrors } from './usePlotErrors';
import { useThumbnail } from './useThumbnail';
import { useTrails } from './useTrails';
import { useTree } from './useTree';
import './viewer.css';

export function ViewerPage({ plotId }: { plotId: string }) {
  const { username } = useSession();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [scene] = useState(() => new Scene());
  const { view, setView, update, problems, embed, adopt, moved, current, link } = useViewStore(scene);
  const { error, unavailable, failLoad, report: setError } = usePlotErrors(plotId);
  const { notice, notify: setNotice, dismiss: dismissNotice } = useNotices(problems.length ? `Parts of this link were ignored: ${problems.join('; ')}` : '');
  const [tool, setTool] = useState<Tool>(DEFAULT_TOOL);
  const [help, setHelp] = useState(false);

  const loaded = usePlot(plotId, scene, canvasRef, { frame: view.frame, adopt, moved, notify: setNotice, fail: failLoad });
  const { plot, setPlot, clusters, setClusters, ready, labelsLoaded } = loaded;
  const isOwner = !!plot && plot.owner === username;
  const reclustering = useReclustering(plot, isOwner, setNotice, setError);
  const search = useSearch(plotId, scene, view.hidden, setError);
  // The frame on screen: playback moves it outside the view state; read again when playback rests (its counts re-render).
  const columns = useColumns(plotId, plot, scene, scene.frame?.index ?? view.frame, ready, setError, view, update);
  const missingColumns = columns.unknown.length ? missingColumnsText(columns.unknown) : '';
  useEffect(() => { if (missingColumns) setNotice(missingColumns); }, [missingColumns, setNotice]);
  const trails = useTrails({
    frameCount: plot?.frames ?? 0, store: loaded.store, renderer: () => scene.renderer,
    currentFrame: () => scene.frame?.index ?? 0, onFollow: (trails) => update({ trails }), onError: setError,
  });
  // After useColumns: its colours and the clade colours take turns (useTree.ts).
  const tree = useTree({ plotId, scene, ready, labelsLoaded, view, update, fail: setError });
  const { playback, frameCounts } = usePlayback(scene, plot, loaded.store, {
    selection: view.selection, matches: search.matches, moved,
    drawTrails: (f, blend) => { trails.drawAt(f, blend); if (!blend) tree.frameShown(); },
    followed: (selection, matches) => { update({ selection }); search.setMatches(matches); }, failed: setError,
  });
  useEffect(() => { if (playback) playback.fps = view.fps; }, [playback, view.fps]);
  // The link's trails are followed once playback is ready (the first frame is complete).
  const { follow } = trails;
  useEffect(() => {
    const wanted = current().trails;
    if (playback && wanted.length) follow(wanted);
  }, [playback, current, follow]);

  const { hidden, overrides, glyphs } = view;
  const styles = useMemo(() => resolveStyles(clusters, { hidden, overrides, glyphs }), [clusters, hidden, overrides, glyphs]);
  const clusterLabel = useMemo(() => new Map(styles.map((s) => [s.key, s.label])), [styles]);
  const panelStyles = useMemo(() => (frameCounts ? withCounts(styles, frameCounts) : styles), [styles, frameCounts]);
  const highlighted = useMemo(() => highlightSet(view.selection, search.matches), [view.selection, search.matches]);
  useLayoutEffect(() => { scene.wanted = { styles, highlighted }; }, [scene, styles, highlighted]);
  useRendererSync(scene, ready, view, styles, highlighted);
  const thumbnailStale = useThumbnail(plotId, plot, isOwner, labelsLoaded, scene, setNotice);
  const edits = useClusterEdits({ plotId, isOwner, scene, clusters, setPlot, setClusters, notify: setNotice, fail: setError, thumbnailStale });

  const dismiss = useCallback(() => { update({ selection: [] }); search.clear(); setHelp(false); }, [update, search]);
  // Once the plot is unavailable, nothing that asks the server for it works: those controls are disabled.
  const offline = unavailable !== null;
  useEffect(() => { if (offline) playback?.pause(); }, [offline, playback]);
  useShortcuts({ renderer: scene.renderer, setView, setTool, playback: offline ? null : playback, dismiss, toggleHelp: () => setHelp((h) => !h) });

  const clusterActions: ClusterActions = {
    setHidden: (hidden) => update({ hidden }),
    override: (changes) => setView((v) => ({ ...v, overrides: mergeOverrides(v.overrides, changes) })),
    rename: isOwner ? edits.rename : undefined,
    ...(isOwner && { deletable: edits.made, remove: edits.remove, undo: { what: edits.last, run: edits.undo } }),
    goToCentre: (i) => { select([i], scene.frame?.index ?? 0); scene.renderer?.flyTo([i]); },
    recluster: reclustering.start && ((key) => void reclustering.start!({ cluster: key })),
    reclusterBusy: reclustering.busy,
  };
  const canvasState = labelsLoaded ? 'complete' : ready ? 'drawn' : 'loading';
  const selectedPoints = useMemo(() => {
    const f = canvasState === 'loading' ? null : scene.frame;
    return f ? view.selection.filter((i) => i < f.clusters.length).map((i) => scene.point(i, clusterLabel)) : [];
  }, [canvasState, scene, view.selection, clusterLabel]);
  const select = (indices: number[], frame: number) => {
    scene.selectionFrame = frame;
    update({ selection: indices });
  };
  /** The hidden cluster a point of the frame on screen is in, if it is. */
  const hiddenClusterOf = (i: number) => {
    const key = scene.frame?.clusters[i];
    return key !== undefined && view.hidden.includes(key) ? { key, label: clusterLabel.get(key) ?? String(key) } : undefined;
  };
  /** A search hit: flown to, its cluster shown first where hidden (else the camera flew to empty space). */
  const goToHit = (i: number, label: string) => {
    const hidden = hiddenClusterOf(i);
    if (hidden) {
      update({ hidden: view.hidden.filter((k) => k !== hidden.key) });
      setNotice(`“${label}” is in cluster “${hidden.label}”, which was hidden: the cluster is shown again.`);
    }
    scene.renderer?.flyTo([i]);
  };

  if (loaded.noWebGL) {
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
          <Toolbar plot={plot} styles={tree.clades ?? columns.legend ?? styles} view={view} update={update} tool={tool} setTool={setTool}
            renderer={scene.renderer} currentUrl={() => location.origin + link()} onHelp={() => setHelp(true)} notify={setNotice}
            makePublic={isOwner && !offline ? async () => {
              try { setPlot(await plots.patch(plotId, { visibility: 'public' })); } catch (e) { setError(e); throw e; }
            } : undefined} />
        )}
        <CanvasMessages error={error} unavailable={unavailable} embed={embed} notice={embed ? null : notice} dismissNotice={dismissNotice} />
        <PlotCanvas
          canvasRef={canvasRef} renderer={ready ? scene.renderer : null} tool={tool}
          state={canvasState}
          describe={(i) => columns.describe(scene.point(i, clusterLabel))}
          onSelect={(indices, add) => select(add ? [...new Set([...view.selection, ...indices])].sort((a, b) => a - b) : indices, scene.frame?.index ?? 0)}
        />
        <TrailTags renderer={ready ? scene.renderer : null} canvasRef={canvasRef} heads={trails.heads} />
        {!ready && !error && !offline && <div className="loading">Loading…</div>}
        {playback && plot && (
          <fieldset className="contents" disabled={offline}>
            <TimeBar playback={playback} frames={plot.frameList} fps={view.fps} setFps={(fps) => update({ fps })} trails={trails} selectionLabels={selectedPoints.map((p) => p.label)} />
          </fieldset>
        )}
      </div>
      {embed ? !offline && <EmbedLink href={link()} /> : (
      <aside className="sidebar">
        {plot && ready && (
          <fieldset className="contents" disabled={offline}>
            <h2 data-testid="plot-name">{plot.name}</h2>
            <p className="muted">{plot.owner} · {plot.visibility} · {formatCount(plot.points, 'point')}{plot.frames > 1 ? ` · ${formatCount(plot.frames, 'frame')}` : ''}
              {' · '}<a href={plots.exportUrl(plotId, 'pviz')}>export</a></p>
            <PlotLinks plot={plot} />
            {/* The results open over the panels below, which stay put. */}
            <div className="search-anchor">
              <form className="row" onSubmit={(e) => { const f = new FormData(e.currentTarget); e.preventDefault(); void search.find(f.get('label') as string, (f.get('column') as string | null) ?? undefined); }}>
                <input name="label" type="search" className="label-search" placeholder={plot.columns.length ? 'Labels and metadata' : 'Search point labels'} data-testid="label-search" />
                {plot.columns.length > 0 && (
                  <select name="column" className="search-in" data-testid="search-column" aria-label="Search in">
                    <option value="" title="the labels and every text column">labels &amp; text</option>
                    {plot.columns.map((c) => <option key={c.name} value={c.name}>{c.name}</option>)}
                  </select>
                )}
                <button type="submit">Find</button>
              </form>
              {search.search && (
                <div className="search-popup">
                  <SearchResults search={search.search} matches={search.matches} onClose={search.clear}
                    labelOf={(i) => columns.label(i, scene.frame?.labels?.[i] ?? '')} hiddenIn={(i) => hiddenClusterOf(i)?.label} onPick={goToHit} />
                </div>
              )}
            </div>
            <ColorByPanel columns={plot.columns} state={columns} />
            <TreePanel tree={tree} view={view} update={update} canEdit={isOwner && labelsLoaded}
              onSelect={(indices) => select(indices, scene.frame?.index ?? 0)} />
            <ClustersPanel styles={panelStyles} actions={clusterActions}
              coloursNotDrawn={tree.clades ? 'The points wear their clade\'s colour (Tree panel), not these cluster colours.' : undefined} />
            {/* Always there for the owner (disabled without changes): appearing it moved the panels below. */}
            {isOwner && <button data-testid="save-styles" disabled={Object.keys(view.overrides).length === 0}
              onClick={() => void edits.saveStyles(styles).then((saved) => saved && update({ overrides: {} }))}>Save cluster styles to the plot</button>}
            <SelectionPanel points={selectedPoints} onClear={() => update({ selection: [] })}
              recluster={reclustering.start && { start: () => void reclustering.start!({ mask: encodeSelectionMask(view.selection, plot.points) }), busy: reclustering.busy }}
              makeCluster={isOwner && labelsLoaded ? { defaultName: nextSelectionName(clusters.map((c) => c.label)), make: (label) => edits.make(label, view.selection) } : undefined} />
            <NamedSelections plotId={plotId} canSave={isOwner} selection={view.selection} frame={scene.selectionFrame}
              pointCount={(f) => plot.frameList[f]?.points ?? 0}
              apply={(indices, f) => {
                select(indices, f);
                if (playback && f !== playback.frame) void playback.seek(f);
              }} />
            <NamedViews plotId={plotId} canSave={isOwner} current={current}
              apply={(s) => {
                scene.selectionFrame = s.frame;
                setView(s);
                scene.renderer?.setMode(s.mode); // before the camera: a mode change resets it
                if (s.camera) scene.renderer?.setCamera(s.camera);
                if (playback && s.frame !== playback.frame) void playback.seek(s.frame);
                if (playback) trails.follow(s.trails);
              }} />
          </fieldset>
        )}
      </aside>
      )}
      {help && <HelpOverlay onClose={() => setHelp(false)} />}
    </main>
  );
}

/** Embed mode's one control: the same view, opened in WebPlotViz in a new tab (not for a plot that is unavailable: it would open the same message). */
function EmbedLink({ href }: { href: string }) {
  return <a className="embed-link" href={href} target="_blank" rel="noopener" data-testid="embed-link">open in WebPlotViz</a>;
}
