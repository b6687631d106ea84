// Time-series controls: play/pause/step/scrub/speed/loop/interpolate, frame title, trails.
import { useEffect, useState } from 'react';
import type { FrameInfo } from '@wpv/schema';
import type { Playback, PlaybackState } from './playback';
import type { TrailsController } from './useTrails';
import { SPEEDS } from './viewState';

export function TimeBar({ playback, frames, fps, setFps, trails, selectionLabels }: {
  playback: Playback;
  frames: FrameInfo[];
  /** the playback speed (frames per second), kept in the view state */
  fps: number;
  setFps(fps: number): void;
  trails: TrailsController;
  /** labels of the selected points, which "Trails for selection" follows */
  selectionLabels: string[];
}) {
  const [state, setState] = useState<PlaybackState>({ frame: playback.frame, playing: false, waiting: false });
  const [loop, setLoop] = useState(playback.loop);
  const [interpolate, setInterpolate] = useState(playback.interpolate);
  const [trailLabels, setTrailLabels] = useState('');
  useEffect(() => playback.subscribe(setState), [playback]);

  const last = frames.length - 1;
  const { settings } = trails;

  return (
    <section className="timebar" data-testid="timebar">
      <div className="row">
        <button onClick={() => void playback.step(-1)} title="previous frame (←)">‹ Prev</button>
        {/* One width for both words: the scrub slider beside it stays put. */}
        <button className="play-pause" onClick={() => (state.playing ? playback.pause() : playback.play())}
          data-testid={state.playing ? 'pause' : 'play'}>{state.playing ? 'Pause' : 'Play'}</button>
        <button onClick={() => void playback.step(1)} title="next frame (→)">Next ›</button>
        <input type="range" min={0} max={last} value={state.frame} className="scrub" aria-label="frame"
          onChange={(e) => { playback.pause(); void playback.seek(Number(e.target.value)); }} />
        {/* As wide as the widest number ("9 / 60" then "10 / 60" narrowed the slider while playing). */}
        <span data-testid="frame-number" className="frame-number" style={{ minWidth: `${2 * String(frames.length).length + 3}ch` }}>
          {state.frame + 1} / {frames.length}</span>
        <b data-testid="frame-title" className="frame-title">{frames[state.frame]?.title || `frame ${state.frame + 1}`}</b>
        {/* Always there, hidden while not waiting: appearing it narrowed the slider. */}
        <span className={state.waiting ? 'muted buffering' : 'muted buffering idle'} data-testid="buffering" aria-hidden={!state.waiting}>buffering…</span>
      </div>
      <div className="row wrap">
        <label>Speed <select value={fps} onChange={(e) => setFps(Number(e.target.value))} data-testid="speed">
          {SPEEDS.map((v) => <option key={v} value={v}>{v} frames/s</option>)}</select></label>
        <label><input type="checkbox" checked={loop} onChange={(e) => { playback.loop = e.target.checked; setLoop(e.target.checked); }} /> loop</label>
        <label><input type="checkbox" checked={interpolate} onChange={(e) => { playback.interpolate = e.target.checked; setInterpolate(e.target.checked); }} /> smooth</label>
      </div>
      <div className="row wrap" data-testid="trail-controls">
        <b>Trails</b>
        <button disabled={!selectionLabels.length} onClick={() => trails.follow(selectionLabels)} data-testid="trails-from-selection"
          title="follow the selected points through all frames">For selection ({selectionLabels.length})</button>
        <form className="row" onSubmit={(e) => { e.preventDefault(); trails.follow(trailLabels.split(',')); }}>
          <input placeholder="or labels, comma separated" className="trail-labels" value={trailLabels} onChange={(e) => setTrailLabels(e.target.value)} data-testid="trail-labels" />
          <button type="submit">Follow</button>
        </form>
        <label>length <input type="number" min={1} max={frames.length} value={settings.length} className="narrow"
          onChange={(e) => trails.configure({ length: Math.max(1, Number(e.target.value) || 1) })} /></label>
        <label>width <input type="range" min={1} max={12} value={settings.width} data-testid="trail-width"
          onChange={(e) => trails.configure({ width: Number(e.target.value) })} /></label>
        <label><input type="checkbox" checked={settings.marks} onChange={(e) => trails.configure({ marks: e.target.checked })} /> frame marks</label>
        <button disabled={!trails.labels.length} onClick={() => trails.clear()} data-testid="trails-clear">Clear trails</button>
      </div>
      {/* One line, always there: status text appearing or wrapping changed the canvas's height. */}
      <div className="trail-status" data-testid="trail-status">
        {trails.progress && <span className="muted" data-testid="trail-progress">{trails.progress}</span>}
        {trails.labels.length > 0 && !trails.progress && <span className="muted" data-testid="trail-following">following {trails.labels.length - trails.missing.length}</span>}
        {trails.leftOut > 0 && <span className="notice" data-testid="trail-left-out">following the first {trails.labels.length} labels; {trails.leftOut} more left out</span>}
        {trails.missing.length > 0 && <span className="notice" data-testid="trail-not-found">Not found in any frame: {trails.missing.join(', ')}</span>}
      </div>
    </section>
  );
}
