// The canvas and its pointer interactions: hover tooltip, click select, and the drag of the
// active tool (its row in tools.tsx says what a drag draws and selects).
import { useEffect, useRef, useState } from 'react';
import type { SelectedPoint } from './csv';
import type { PlotRenderer } from './renderer';
import { toolSpec, type ScreenPoint, type Tool } from './tools';


const CLICK_SLOP = 4; // pixels a press may move and still count as a click

export function PlotCanvas({ canvasRef, renderer, state, tool, describe, onSelect }: {
  canvasRef: React.RefObject<HTMLCanvasElement | null>;
  /** loading → drawn (first frame on screen) → complete (labels and edges too) */
  state: 'loading' | 'drawn' | 'complete';
  renderer: PlotRenderer | null;
  tool: Tool;
  describe: (index: number) => SelectedPoint;
  onSelect: (indices: number[], add: boolean) => void;
}) {
  const [hover, setHover] = useState<{ x: number; y: number; index: number } | null>(null);
  const [path, setPath] = useState<ScreenPoint[]>([]);
  const spec = toolSpec(tool);
  const press = useRef<{ x: number; y: number } | null>(null);
  const hoverFrame = useRef<number | null>(null);

  useEffect(() => { renderer?.setControlsEnabled(spec.camera); }, [renderer, spec]);

  const local = (e: React.PointerEvent): ScreenPoint => {
    const rect = e.currentTarget.getBoundingClientRect();
    return [e.clientX - rect.left, e.clientY - rect.top];
  };

  function onPointerMove(e: React.PointerEvent<HTMLCanvasElement>) {
    const [x, y] = local(e);
    if (press.current && !spec.camera) {
      setPath((p) => spec.drag(p, [x, y]));
      return;
    }
    if (e.buttons || !renderer) { setHover(null); return; }
    // At most one pick per animation frame, however fast the mouse moves.
    if (hoverFrame.current !== null) cancelAnimationFrame(hoverFrame.current);
    hoverFrame.current = requestAnimationFrame(() => {
      hoverFrame.current = null;
      const index = renderer.pick(x, y);
      setHover(index >= 0 ? { x, y, index } : null);
    });
  }

  function onPointerDown(e: React.PointerEvent<HTMLCanvasElement>) {
    const [x, y] = local(e);
    press.current = { x, y };
    if (!spec.camera) {
      e.currentTarget.setPointerCapture(e.pointerId);
      setPath([[x, y]]);
    }
  }

  function onPointerUp(e: React.PointerEvent<HTMLCanvasElement>) {
    const start = press.current;
    press.current = null;
    if (!start || !renderer) return;
    const [x, y] = local(e);
    const selected = spec.camera ? null : spec.select(renderer, path);
    if (selected) onSelect(selected, e.shiftKey);
    else if (Math.hypot(x - start.x, y - start.y) <= CLICK_SLOP) {
      const index = renderer.pick(x, y);
      if (index >= 0) onSelect([index], e.shiftKey);
    }
    setPath([]);
  }

  const info = hover && renderer ? describe(hover.index) : null;
  return (
    <div className="canvas-wrap">
      <canvas ref={canvasRef} className="plot-canvas" style={{ cursor: spec.cursor }} data-testid="plot-canvas" data-tool={tool} data-state={state}
        onPointerMove={onPointerMove} onPointerDown={onPointerDown} onPointerUp={onPointerUp}
        onPointerLeave={() => setHover(null)} />
      {path.length > 1 && (
        <svg className="canvas-overlay">{spec.overlay(path)}</svg>
      )}
      {hover && info && (
        <div className="tooltip" data-testid="tooltip" style={{ left: hover.x + 14, top: hover.y + 14 }}>
          <b data-testid="tooltip-label">{info.label}</b>
          <div>cluster: {info.cluster}</div>
          {info.columns?.map(([name, text]) => <div key={name} data-testid="tooltip-column">{name}: {text}</div>)}
          <div>{[info.x, info.y, info.z].map((v) => v.toPrecision(4)).join(', ')}</div>
        </div>
      )}
    </div>
  );
}
