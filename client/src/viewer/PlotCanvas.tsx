// The canvas and its pointer interactions: hover tooltip, click select, box and lasso selection.
import { useEffect, useRef, useState } from 'react';
import type { PlotRenderer } from './renderer';

export type Tool = 'orbit' | 'box' | 'lasso';

interface PointInfo {
  label: string;
  cluster: string;
  xyz: [number, number, number];
}

const CLICK_SLOP = 4; // pixels a press may move and still count as a click

export function PlotCanvas({ canvasRef, renderer, state, tool, describe, onSelect }: {
  canvasRef: React.RefObject<HTMLCanvasElement | null>;
  /** loading → drawn (first frame on screen) → complete (labels and edges too) */
  state: 'loading' | 'drawn' | 'complete';
  renderer: PlotRenderer | null;
  tool: Tool;
  describe: (index: number) => PointInfo;
  onSelect: (indices: number[], add: boolean) => void;
}) {
  const [hover, setHover] = useState<{ x: number; y: number; index: number } | null>(null);
  const [path, setPath] = useState<[number, number][]>([]);
  const press = useRef<{ x: number; y: number } | null>(null);
  const hoverFrame = useRef<number | null>(null);

  useEffect(() => { renderer?.setControlsEnabled(tool === 'orbit'); }, [renderer, tool]);

  const local = (e: React.PointerEvent): [number, number] => {
    const rect = e.currentTarget.getBoundingClientRect();
    return [e.clientX - rect.left, e.clientY - rect.top];
  };

  function onPointerMove(e: React.PointerEvent<HTMLCanvasElement>) {
    const [x, y] = local(e);
    if (press.current && tool !== 'orbit') {
      setPath((p) => (tool === 'box' ? [p[0] ?? [x, y], [x, y]] : [...p, [x, y]]));
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
    if (tool !== 'orbit') {
      e.currentTarget.setPointerCapture(e.pointerId);
      setPath([[x, y]]);
    }
  }

  function onPointerUp(e: React.PointerEvent<HTMLCanvasElement>) {
    const start = press.current;
    press.current = null;
    if (!start || !renderer) return;
    const [x, y] = local(e);
    if (tool === 'box' && path.length === 2) onSelect(renderer.selectRect(path[0][0], path[0][1], x, y), e.shiftKey);
    else if (tool === 'lasso' && path.length > 2) onSelect(renderer.selectPolygon(path), e.shiftKey);
    else if (Math.hypot(x - start.x, y - start.y) <= CLICK_SLOP) {
      const index = renderer.pick(x, y);
      if (index >= 0) onSelect([index], e.shiftKey);
    }
    setPath([]);
  }

  const info = hover && renderer ? describe(hover.index) : null;
  return (
    <div className="canvas-wrap">
      <canvas ref={canvasRef} className={`plot-canvas tool-${tool}`} data-testid="plot-canvas" data-state={state}
        onPointerMove={onPointerMove} onPointerDown={onPointerDown} onPointerUp={onPointerUp}
        onPointerLeave={() => setHover(null)} />
      {path.length > 1 && (
        <svg className="canvas-overlay">
          {tool === 'box'
            ? <rect x={Math.min(path[0][0], path[1][0])} y={Math.min(path[0][1], path[1][1])}
                width={Math.abs(path[1][0] - path[0][0])} height={Math.abs(path[1][1] - path[0][1])} />
            : <polygon points={path.map((p) => p.join(',')).join(' ')} />}
        </svg>
      )}
      {hover && info && (
        <div className="tooltip" data-testid="tooltip" style={{ left: hover.x + 14, top: hover.y + 14 }}>
          <b data-testid="tooltip-label">{info.label}</b>
          <div>cluster: {info.cluster}</div>
          <div>{info.xyz.map((v) => v.toPrecision(4)).join(', ')}</div>
        </div>
      )}
    </div>
  );
}
