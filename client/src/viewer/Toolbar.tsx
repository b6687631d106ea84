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
 * Copies the view's link. A private plot's link opens for nobody else: say so first, and let
 * its owner make it public (`makePublic`, absent for others).
 */
async function copyLink(plot: Plot, url: string, makePublic?: () => Promise<void>) {
  if (plot.visibility === 'private') {
    if (!makePublic) return void alert('This plot is private: only its owner can open this link.');
    if (!confirm('This plot is private: nobody else can open this link.\nMake the plot public and copy the link?')) return;
    await makePublic();
  }
  await navigator.clipboard.writeText(url).catch(() => prompt('Copy this link', url));
}

export function Toolbar({ plot, styles, view, update, tool, setTool, renderer, currentUrl, onHelp, makePublic }: {
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
      <button data-testid="copy-link" onClick={() => void copyLink(plot, currentUrl(), makePublic)}>Copy link</button>
      <button onClick={onHelp} title="keyboard shortcuts (?)">?</button>
    </div>
  );
}
