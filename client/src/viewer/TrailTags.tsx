// Name tags at the heads of the trails, over the canvas; they follow the camera and the frame.
import { useEffect, useReducer, useRef, useSyncExternalStore } from 'react';
import type { PlotRenderer } from './renderer';
import type { TrailHeads } from './useTrails';

export function TrailTags({ renderer, canvasRef, heads: store }: {
  renderer: PlotRenderer | null;
  canvasRef: React.RefObject<HTMLCanvasElement | null>;
  heads: TrailHeads;
}) {
  const heads = useSyncExternalStore(store.subscribe, store.get);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const layer = useRef<HTMLDivElement>(null);
  useEffect(() => renderer?.onCameraChange(redraw), [renderer]);
  if (!renderer) return null;
  // The layer (rendered even without tags, so that it is measured before the first) covers the
  // tags' positioned parent; the canvas may sit anywhere inside it.
  const canvas = canvasRef.current?.getBoundingClientRect(), parent = layer.current?.getBoundingClientRect();
  const dx = canvas && parent ? canvas.left - parent.left : 0, dy = canvas && parent ? canvas.top - parent.top : 0;
  return (
    <div className="trail-tags" ref={layer} data-testid="trail-tags">
      {heads.map((h) => {
        const at = renderer.toScreen(h.xyz);
        return at && (
          <span key={h.trail} className="trail-tag" data-testid="trail-tag"
            style={{ left: dx + at.x + 8, top: dy + at.y - 8, borderColor: `rgb(${h.color.join(',')})` }}>{h.label}</span>
        );
      })}
    </div>
  );
}
