// The pointer tools, one row each (regl-scatterplot's mouse-mode constants are the model): the
// toolbar's buttons, the key map, the help overlay and the canvas's pointer handling all read
// this table, so a tool is added or changed here alone.
import type { ReactElement } from 'react';
import type { PlotRenderer } from './renderer';

export type ScreenPoint = [number, number];

export interface ToolSpec {
  id: 'orbit' | 'box' | 'lasso';
  /** the toolbar button's text in the camera's mode (the orbit tool pans in 2D) */
  label(mode: '2d' | '3d'): string;
  /** the keyboard shortcut */
  key: string;
  /** the help overlay's line */
  help: string;
  /** CSS cursor over the canvas */
  cursor: string;
  /** true: the camera controls own a drag (rotate, pan); the tool only takes clicks */
  camera: boolean;
  /** the path drawn while the pointer is pressed, after it moved to `p` */
  drag(path: ScreenPoint[], p: ScreenPoint): ScreenPoint[];
  /** the points the finished path selects, or null when it is too short to be a shape (a click) */
  select(renderer: PlotRenderer, path: ScreenPoint[]): number[] | null;
  /** the path drawn over the canvas while dragging */
  overlay(path: ScreenPoint[]): ReactElement | null;
}

export const TOOLS = [
  {
    id: 'orbit', label: (mode) => (mode === '2d' ? 'Pan' : 'Rotate'), key: 'o', help: 'rotate (pan in 2D); click selects', cursor: 'default', camera: true,
    drag: (path) => path,
    select: () => null,
    overlay: () => null,
  },
  {
    id: 'box', label: () => 'Box select', key: 'b', help: 'box select (shift adds)', cursor: 'crosshair', camera: false,
    drag: (path, p) => [path[0] ?? p, p],
    select: (r, path) => (path.length === 2 ? r.selectRect(path[0]![0], path[0]![1], path[1]![0], path[1]![1]) : null),
    overlay: ([a, b]) => (a && b
      ? <rect x={Math.min(a[0], b[0])} y={Math.min(a[1], b[1])} width={Math.abs(b[0] - a[0])} height={Math.abs(b[1] - a[1])} />
      : null),
  },
  {
    id: 'lasso', label: () => 'Lasso', key: 'l', help: 'lasso select (shift adds)', cursor: 'crosshair', camera: false,
    drag: (path, p) => [...path, p],
    select: (r, path) => (path.length > 2 ? r.selectPolygon(path) : null),
    overlay: (path) => <polygon points={path.map((p) => p.join(',')).join(' ')} />,
  },
] as const satisfies readonly ToolSpec[];

export type Tool = (typeof TOOLS)[number]['id'];

export const DEFAULT_TOOL: Tool = 'orbit';

export function toolSpec(id: Tool): ToolSpec {
  return TOOLS.find((t) => t.id === id)!;
}
