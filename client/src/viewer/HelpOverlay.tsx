// The keyboard shortcuts and mouse gestures, from the key map's table.
import { SHORTCUTS } from './keymap';

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <div className="overlay" onClick={onClose} role="dialog" aria-label="keyboard shortcuts">
      <div className="overlay-box">
        <h3>Keyboard shortcuts</h3>
        <table><tbody>{SHORTCUTS.map((s) => <tr key={s.shown}><td><kbd>{s.shown}</kbd></td><td>{s.help}</td></tr>)}</tbody></table>
        <p>Drag to rotate (pan in 2D), right-drag to pan, wheel to zoom. Hover a point to read its label; click to select (shift adds).</p>
      </div>
    </div>
  );
}
