// Viewer toolbar: point and glyph sizes, glyphs on/off, 2D/3D, reset, axes, edges, selection tools, screenshot, link, help.
import type { Plot } from '@wpv/schema';
import type { ClusterStyle } from './clusterStyles';
import type { PlotRenderer } from './renderer';
import { annotateScreenshot } from './screenshotLegend';
import { TOOLS, type Tool } from './tools';
import type { ViewState } from './viewState';

function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Copies the view's link and says so. A private plot's link opens only for its owner: the notice
 * says that, and its owner (`makePublic`, absent for others) is offered to make the plot public,
 * the link copied whatever the answer.
 */
async function copyLink(plot: Plot, url: string, notify: (text: string) => void, makePublic?: () => Promise<void>) {
  const copied = await navigator.clipboard.writeText(url).then(() => true, () => (prompt('Copy this link', url), false));
  const done = copied ? 'Link copied.' : 'Link shown for copying.';
  if (plot.visibility === 'public') return notify(done);
  if (makePublic && confirm(`${done} This plot is private: only you can open the link.\nMake the plot public, so that anyone with the link can open it?`)) {
    await makePublic();
    return notify(`${done} The plot is now public: anyone with the link can open it.`);
  }
  notify(`${done} The plot is private: only ${makePublic ? 'you' : 'its owner'} can open it.`);
}

export function Toolbar({ plot, styles, view, update, tool, setTool, renderer, currentUrl, onHelp, notify, makePublic }: {
  plot: Plot;
  /** the clusters as shown, for the screenshot's legend */
  styles: readonly ClusterStyle[];
  view: ViewState;
  update: (patch: Partial<ViewState>) => void;
  tool: Tool;
  setTool: (t: Tool) => void;
  renderer: PlotRenderer | null;
  currentUrl: () => string;
  onHelp: () => void;
  /** says what was done, over the canvas */
  notify: (text: string) => void;
  makePublic?: () => Promise<void>;
}) {
  const hasEdges = plot.frameList.some((f) => f.edges > 0);
  return (
    <div className="toolbar row wrap">
      <label title="plain points (one-point clusters, or all with glyphs off), in screen pixels">Points
        <input type="range" min={1} max={40} step={0.5} value={view.pointSize} data-testid="point-size" className="size-slider"
          onChange={(e) => update({ pointSize: Number(e.target.value) })} /></label>
      <label title="draw clusters as their glyphs"><input type="checkbox" checked={view.glyphs} data-testid="glyphs-toggle"
        onChange={(e) => update({ glyphs: e.target.checked })} />Glyphs</label>
      <input type="range" min={1} max={40} step={0.5} value={view.glyphSize} data-testid="glyph-size" className="size-slider" aria-label="glyph size"
        title="glyphs of clusters of size 1, in screen pixels; a cluster's size multiplies it"
        disabled={!view.glyphs} onChange={(e) => update({ glyphSize: Number(e.target.value) })} />
      <button className={view.mode === '3d' ? 'active' : ''} onClick={() => update({ mode: '3d' })}>3D</button>
      <button className={view.mode === '2d' ? 'active' : ''} onClick={() => update({ mode: '2d' })}>2D</button>
      <button onClick={() => renderer?.resetCamera()} title="reset the camera (r)">Reset</button>
      <label><input type="checkbox" checked={view.axes} onChange={(e) => update({ axes: e.target.checked })} /> axes</label>
      {hasEdges && <label><input type="checkbox" checked={view.edges} onChange={(e) => update({ edges: e.target.checked })} data-testid="edges-toggle" /> edges</label>}
      <span className="sep" />
      {TOOLS.map((t) => (
        <button key={t.id} className={tool === t.id ? 'active' : ''} onClick={() => setTool(t.id)} data-testid={`tool-${t.id}`}
          title={`${t.help} (${t.key})`}>{t.label(view.mode)}</button>
      ))}
      <span className="sep" />
      <button data-testid="screenshot" title="PNG at twice the canvas resolution, with the title and a legend"
        onClick={() => void renderer?.screenshot(2).then((b) => annotateScreenshot(b, plot.name, styles)).then((b) => download(b, `${plot.name}.png`))}>Screenshot</button>
      <button data-testid="copy-link" onClick={() => void copyLink(plot, currentUrl(), notify, makePublic)}>Copy link</button>
      <button onClick={onHelp} title="keyboard shortcuts (?)">?</button>
    </div>
  );
}
