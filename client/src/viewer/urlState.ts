// The view state and the address bar (auspice's changeURL middleware is the model): the link is
// read into the state when the page opens, and the state, with the scene's camera and frame, is
// written back (debounced; replaceState, so history is not flooded). The page only sees a view.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { DisplaySettings } from '@wpv/schema';
import type { Scene } from './scene';
import { DEFAULT_VIEW, decodeViewState, encodeViewState, viewDefaults, withoutPlayback, type ViewState } from './viewState';

export interface ViewStore {
  view: ViewState;
  setView: React.Dispatch<React.SetStateAction<ViewState>>;
  update(patch: Partial<ViewState>): void;
  /** the parts of the link that were ignored */
  problems: string[];
  /** ?embed=1: canvas and a link out, for notebooks and other pages that frame the plot */
  embed: boolean;
  /** The plot's display settings set what the link leaves out (a single frame: no trails or speed); returns the view they give. */
  adopt(display: DisplaySettings | undefined, points: number, frames: number): ViewState;
  /** The scene's camera or frame moved (they live outside the view state). */
  moved(): void;
  /** the view with the scene's camera and frame */
  current(): ViewState;
  /** the current view's path and query (not embedded) */
  link(): string;
}

const query = (params: URLSearchParams) => (params.size ? '?' + params.toString() : '');

export function useViewStore(scene: Scene): ViewStore {
  const [opened] = useState(() => {
    const params = new URLSearchParams(location.search);
    return { ...decodeViewState(params), embed: params.get('embed') === '1' };
  });
  const [view, setView] = useState<ViewState>(opened.state);
  /** the plot's defaults, known once it has loaded: values equal to them stay out of the link */
  const defaults = useRef<ViewState>(DEFAULT_VIEW);
  const latest = useRef(view);
  useEffect(() => { latest.current = view; });

  const current = useCallback((): ViewState => {
    const r = scene.renderer;
    return { ...latest.current, camera: r ? r.getCamera() : latest.current.camera, frame: scene.frame?.index ?? 0 };
  }, [scene]);
  const params = useCallback(() => encodeViewState(current(), defaults.current), [current]);
  const link = useCallback(() => location.pathname + query(params()), [params]);

  const timer = useRef<number | undefined>(undefined);
  const moved = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      const p = params();
      if (opened.embed) p.set('embed', '1'); // the page stays embedded
      history.replaceState(null, '', location.pathname + query(p));
    }, 250);
  }, [params, opened.embed]);
  useEffect(() => () => clearTimeout(timer.current), []);
  // The link follows the view once a frame is on screen (before that the camera is unknown).
  useEffect(() => { if (scene.frame) moved(); }, [view, scene, moved]);

  const adopt = useCallback((display: DisplaySettings | undefined, points: number, frames: number) => {
    defaults.current = viewDefaults(display, points);
    const linked = decodeViewState(new URLSearchParams(location.search), defaults.current).state;
    const v = frames > 1 ? linked : withoutPlayback(linked, defaults.current);
    setView(v);
    return v;
  }, []);
  const update = useCallback((patch: Partial<ViewState>) => setView((v) => ({ ...v, ...patch })), []);
  return { view, setView, update, problems: opened.problems, embed: opened.embed, adopt, moved, current, link };
}
