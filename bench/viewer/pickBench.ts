// Hover picking at N points: the viewer's screen grid (PlotRenderer.pick's index) against
// three.js Raycaster over the same THREE.Points, same camera, same cursor positions.
import * as THREE from 'three';
import { ScreenGrid } from '../../client/src/viewer/pickIndex';
import { projectToScreen } from '../../client/src/viewer/projection';

declare global { interface Window { pickResult?: unknown } }

async function run() {
  const n = Number(new URLSearchParams(location.search).get('n'));
  const positions = new Float32Array(await (await fetch(`/api/v1/plots/points-${n}/frames/0/positions`)).arrayBuffer());
  const canvas = document.getElementById('c') as HTMLCanvasElement;
  const width = canvas.clientWidth, height = canvas.clientHeight;
  const camera = new THREE.PerspectiveCamera(45, width / height, 0.01, 100);
  camera.position.set(0, 0, 6);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  const points = new THREE.Points(geometry);
  const pointPixels = 4;
  const queries = Array.from({ length: 200 }, (_, i) => [width * (0.3 + 0.4 * ((i * 0.618) % 1)), height * (0.3 + 0.4 * ((i * 0.382) % 1))]);

  // Screen grid: built once per camera pose (timed separately), then queried per mouse move.
  const vp = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  const b0 = performance.now();
  const grid = new ScreenGrid(projectToScreen(positions, vp.elements, width, height), width, height);
  const buildMs = performance.now() - b0;
  const g0 = performance.now();
  const gridHits = queries.map(([x, y]) => grid.pick(x, y, () => pointPixels / 2 + 2, pointPixels / 2 + 2));
  const gridMs = (performance.now() - g0) / queries.length;

  // Raycaster with the same pick radius converted to world units at the cloud's depth.
  const raycaster = new THREE.Raycaster();
  const worldPerPixel = (2 * 6 * Math.tan(THREE.MathUtils.degToRad(camera.fov / 2))) / height;
  raycaster.params.Points.threshold = (pointPixels / 2 + 2) * worldPerPixel;
  const rayQueries = queries.slice(0, n >= 1_000_000 ? 10 : 40);
  const r0 = performance.now();
  let rayHits = 0;
  for (const [x, y] of rayQueries) {
    raycaster.setFromCamera(new THREE.Vector2((x / width) * 2 - 1, 1 - (y / height) * 2), camera);
    if (raycaster.intersectObject(points).length) rayHits++;
  }
  const rayMs = (performance.now() - r0) / rayQueries.length;
  window.pickResult = { n, buildMs, gridMs, rayMs, gridHitRate: gridHits.filter((h) => h >= 0).length / queries.length, rayHitRate: rayHits / rayQueries.length };
}
run().catch((e) => { window.pickResult = { error: String(e) }; });
