// The viewer's keyboard shortcuts, one row each: the key handler and the help overlay read this
// table; the tools' keys come from the tool table.
import { useEffect, useRef } from 'react';
import type { Playback } from './playback';
import type { PlotRenderer } from './renderer';
import { TOOLS, type Tool } from './tools';
import type { ViewState } from './viewState';

export interface ShortcutContext {
  renderer: PlotRenderer | null;
  setView(change: (v: ViewState) => ViewState): void;
  setTool(tool: Tool): void;
  playback: Playback | null;
  /** Esc: clears the selection and the search, closes the help */
  dismiss(): void;
  toggleHelp(): void;
}

export interface Shortcut {
  /** `KeyboardEvent.key` values */
  keys: string[];
  /** as the help shows the keys */
  shown: string;
  help: string;
  run(c: ShortcutContext): void;
}

const pointSize = (c: ShortcutContext, step: number) =>
  c.setView((v) => ({ ...v, pointSize: Math.min(40, Math.max(1, v.pointSize + step)) }));

export const SHORTCUTS: Shortcut[] = [
  { keys: ['r'], shown: 'r', help: 'reset the camera', run: (c) => c.renderer?.resetCamera() },
  { keys: ['2'], shown: '2', help: '2D mode', run: (c) => c.setView((v) => ({ ...v, mode: '2d' })) },
  { keys: ['3'], shown: '3', help: '3D mode', run: (c) => c.setView((v) => ({ ...v, mode: '3d' })) },
  { keys: ['a'], shown: 'a', help: 'axes on/off', run: (c) => c.setView((v) => ({ ...v, axes: !v.axes })) },
  { keys: ['e'], shown: 'e', help: 'edges on/off', run: (c) => c.setView((v) => ({ ...v, edges: !v.edges })) },
  ...TOOLS.map((t): Shortcut => ({ keys: [t.key], shown: t.key, help: t.help, run: (c) => c.setTool(t.id) })),
  { keys: ['+'], shown: '+', help: 'bigger points', run: (c) => pointSize(c, 1) },
  { keys: ['-'], shown: '-', help: 'smaller points', run: (c) => pointSize(c, -1) },
  {
    keys: [' '], shown: 'space', help: 'play / pause (time series)',
    run: ({ playback }) => { if (playback?.playing) playback.pause(); else playback?.play(); },
  },
  { keys: ['ArrowLeft'], shown: '←', help: 'previous frame', run: (c) => void c.playback?.step(-1) },
  { keys: ['ArrowRight'], shown: '→', help: 'next frame', run: (c) => void c.playback?.step(1) },
  { keys: ['Escape'], shown: 'Esc', help: 'clear the selection and the search', run: (c) => c.dismiss() },
  { keys: ['?'], shown: '?', help: 'this help', run: (c) => c.toggleHelp() },
];

const BY_KEY = new Map(SHORTCUTS.flatMap((s) => s.keys.map((k) => [k, s] as const)));

/** Runs the shortcut of each key pressed outside a form field, with the context of the latest render. */
export function useShortcuts(context: ShortcutContext): void {
  const latest = useRef(context);
  useEffect(() => { latest.current = context; });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      const shortcut = BY_KEY.get(e.key);
      if (!shortcut) return;
      e.preventDefault();
      shortcut.run(latest.current);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
