// Screen position of a world point for the viewer's perspective camera (fov 45°), computed
// independently of the client from the camera in the view link.

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => { const l = Math.hypot(...a); return a.map((v) => v / l); };

/** camera: { position, target, up, zoom }; returns [x, y] in CSS pixels of a width×height canvas, or null behind. */
export function projector(camera, width, height, fovDegrees = 45) {
  const back = normalize(sub(camera.position, camera.target)); // camera looks along -back
  const right = normalize(cross(camera.up, back));
  const up = cross(back, right);
  const f = 1 / Math.tan((fovDegrees * Math.PI) / 360) * camera.zoom;
  const aspect = width / height;
  return (p) => {
    const d = sub(p, camera.position);
    const z = -dot(d, back);
    if (z <= 0) return null;
    const nx = (f / aspect) * dot(d, right) / z, ny = f * dot(d, up) / z;
    return [(nx + 1) * width / 2, (1 - ny) * height / 2, z];
  };
}

export function cameraFromUrl(url) {
  const cam = new URL(url).searchParams.get('cam');
  if (!cam) return null;
  const n = cam.split(',').map(Number);
  return { position: n.slice(0, 3), target: n.slice(3, 6), up: n.slice(6, 9), zoom: n[9] };
}
