export const SHORTCUTS: [string, string][] = [
  ['r', 'reset the camera'], ['2 / 3', '2D / 3D mode'], ['a', 'axes on/off'], ['e', 'edges on/off'],
  ['o / b / l', 'orbit / box select / lasso select'], ['+ / -', 'bigger / smaller points'],
  ['space', 'play / pause (time series)'], ['← / →', 'previous / next frame'], ['Esc', 'clear the selection'], ['?', 'this help'],
];

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <div className="overlay" onClick={onClose} role="dialog" aria-label="keyboard shortcuts">
      <div className="overlay-box">
        <h3>Keyboard shortcuts</h3>
        <table><tbody>{SHORTCUTS.map(([k, what]) => <tr key={k}><td><kbd>{k}</kbd></td><td>{what}</td></tr>)}</tbody></table>
        <p>Drag to rotate (pan in 2D), right-drag to pan, wheel to zoom. Hover a point to read its label; click to select (shift adds).</p>
      </div>
    </div>
  );
}
