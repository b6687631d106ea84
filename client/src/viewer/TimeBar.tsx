// Time-series controls: play/pause/step/scrub/speed/loop/interpolate, frame title, trails.
import { useEffect, useState } from 'react';
import type { FrameInfo } from '@wpv/schema';
import type { Playback, PlaybackState } from './playback';

export interface TrailsRequest {
  labels: string[];
  length: number;
}

export function TimeBar({ playback, frames, onTrails, trailProgress, trailMissing }: {
  playback: Playback;
  frames: FrameInfo[];
  onTrails: (r: TrailsRequest) => void;
  trailProgress: string;
  /** requested trail labels that no frame has */
  trailMissing: string[];
}) {
  const [state, setState] = useState<PlaybackState>({ frame: playback.frame, playing: false, waiting: false });
  const [fps, setFps] = useState(playback.fps);
  const [loop, setLoop] = useState(playback.loop);
  const [interpolate, setInterpolate] = useState(playback.interpolate);
  const [trailLabels, setTrailLabels] = useState('');
  const [trailLength, setTrailLength] = useState(20);
  useEffect(() => playback.subscribe(setState), [playback]);

  const last = frames.length - 1;
  const requestTrails = (length = trailLength) =>
    onTrails({ labels: trailLabels.split(',').map((l) => l.trim()).filter(Boolean), length });

  return (
    <section className="timebar" data-testid="timebar">
      <div className="row">
        <button onClick={() => void playback.step(-1)} title="previous frame (←)">‹ Prev</button>
        {state.playing
          ? <button onClick={() => playback.pause()} data-testid="pause">Pause</button>
          : <button onClick={() => playback.play()} data-testid="play">Play</button>}
        <button onClick={() => void playback.step(1)} title="next frame (→)">Next ›</button>
        <input type="range" min={0} max={last} value={state.frame} className="scrub" aria-label="frame"
          onChange={(e) => { playback.pause(); void playback.seek(Number(e.target.value)); }} />
        <span data-testid="frame-number">{state.frame + 1} / {frames.length}</span>
        <b data-testid="frame-title" className="frame-title">{frames[state.frame]?.title || `frame ${state.frame + 1}`}</b>
        {state.waiting && <span className="muted">buffering…</span>}
      </div>
      <div className="row wrap">
        <label>Speed <select value={fps} onChange={(e) => { playback.fps = Number(e.target.value); setFps(playback.fps); }}>
          {[1, 2, 5, 10, 20, 30].map((v) => <option key={v} value={v}>{v} frames/s</option>)}</select></label>
        <label><input type="checkbox" checked={loop} onChange={(e) => { playback.loop = e.target.checked; setLoop(e.target.checked); }} /> loop</label>
        <label><input type="checkbox" checked={interpolate} onChange={(e) => { playback.interpolate = e.target.checked; setInterpolate(e.target.checked); }} /> smooth</label>
        <label>Trails for <input placeholder="labels, comma separated" value={trailLabels} onChange={(e) => setTrailLabels(e.target.value)} /></label>
        <label>length <input type="number" min={1} max={frames.length} value={trailLength}
          onChange={(e) => { const v = Math.max(1, Number(e.target.value) || 1); setTrailLength(v); }} /></label>
        <button onClick={() => requestTrails()}>Show trails</button>
        {trailProgress && <span className="muted">{trailProgress}</span>}
        {trailMissing.length > 0 && <span className="notice" data-testid="trail-not-found">Not found in any frame: {trailMissing.join(', ')}</span>}
      </div>
    </section>
  );
}
