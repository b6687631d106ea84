// Loading a plot into the scene: its metadata, then its first frame as fast as possible, then
// that frame's labels and edges, then (a time series) the store of frames behind playback.
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { Cluster, DisplaySettings, Plot } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { fetchEdges, fetchFullFrame, fetchGeometry } from './frames';
import { PlotRenderer, WebGLUnavailableError } from './renderer';
import type { Scene } from './scene';
import { FrameStore } from './timeSeries';
import type { ViewState } from './viewState';

export interface PlotEvents {
  /** the frame the link asks for */
  frame: number;
  /** The plot's display settings are known: returns the view to draw the first frame with. */
  adopt(display: DisplaySettings | undefined, points: number, frames: number): ViewState;
  /** the first frame is on screen, or the camera moved */
  moved(): void;
  notify(text: string): void;
  /** the plot could not be loaded */
  fail(error: unknown): void;
}

export interface LoadedPlot {
  plot: Plot | null;
  setPlot(p: Plot): void;
  clusters: Cluster[];
  setClusters(c: Cluster[]): void;
  /** the first frame is on screen */
  ready: boolean;
  /** the first frame's labels and edges too */
  labelsLoaded: boolean;
  noWebGL: boolean;
  /** a time series' frames, once the first is complete */
  store: FrameStore | null;
}

export function usePlot(plotId: string, scene: Scene, canvasRef: React.RefObject<HTMLCanvasElement | null>, events: PlotEvents): LoadedPlot {
  const [plot, setPlot] = useState<Plot | null>(null);
  const [clusters, setClusters] = useState<Cluster[]>([]);
  const [ready, setReady] = useState(false);
  const [labelsLoaded, setLabelsLoaded] = useState(false);
  const [noWebGL, setNoWebGL] = useState(false);
  const [store, setStore] = useState<FrameStore | null>(null);
  const on = useRef(events);
  useEffect(() => { on.current = events; });

  useEffect(() => {
    let cancelled = false;
    let renderer: PlotRenderer | null = null;
    let frames: FrameStore | null = null;
    (async () => {
      // Metadata and the first frame's geometry are fetched together, and the shaders
      // compile meanwhile: the first frame waits for one round trip, not three steps.
      // A later frame the link asks for is fetched once the frame count says it exists.
      const t0 = performance.now();
      const early = on.current.frame === 0 ? fetchGeometry(plotId, 0) : null;
      early?.catch(() => undefined); // handled below, once the frame count is known
      try {
        renderer = new PlotRenderer(canvasRef.current!);
      } catch (e) {
        if (e instanceof WebGLUnavailableError) return setNoWebGL(true);
        throw e;
      }
      scene.renderer = renderer;
      renderer.precompile();
      const p = await plots.get(plotId);
      if (cancelled) return;
      // The toolbar is laid out now, so that the first frame is drawn at the canvas's final
      // size and with the view's styles; the panels render after that frame (they wait for `ready`).
      let v!: ViewState;
      flushSync(() => {
        v = on.current.adopt(p.display, p.points, p.frames); // sizes and glyphs the link does not set come from the file or the point count
        setPlot(p);
        setClusters(p.clusters);
      });
      const frame = v.frame < p.frames ? v.frame : 0;
      if (frame !== v.frame) on.current.notify(`This plot has ${p.frames} frame(s); showing the first.`);
      const geometry = await (frame === 0 && early ? early : fetchGeometry(plotId, frame));
      if (cancelled) return;
      const t1 = performance.now();
      scene.selectionFrame = frame;
      scene.show({ index: frame, ...geometry, labels: null }, p.bbox);
      const t2 = performance.now();
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
      on.current.moved();
      renderer.onCameraChange(() => on.current.moved());
      setReady(true);

      const [labels, edges] = await Promise.all([plots.labels(plotId, frame), fetchEdges(plotId, p.frameList[frame])]);
      if (cancelled) return;
      if (scene.frame?.index === frame) scene.frame.labels = labels;
      renderer.setEdges(edges);
      setLabelsLoaded(true);
      if (p.frames > 1) {
        frames = new FrameStore(p.frames, (f, signal) => fetchFullFrame(plotId, p.frameList[f]!, signal));
        scene.store = frames;
        void frames.prefetchFrom(frame, true); // ready before the first press of Play
        setStore(frames);
      }
    })().catch((e: unknown) => { if (!cancelled) on.current.fail(e); });
    return () => {
      cancelled = true;
      frames?.dispose();
      scene.store = null;
      renderer?.dispose();
      scene.renderer = null;
      scene.frame = null;
    };
  }, [plotId, scene, canvasRef]);

  return { plot, setPlot, clusters, setClusters, ready, labelsLoaded, noWebGL, store };
}
