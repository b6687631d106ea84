// The WebGL scene: every point of a frame in one THREE.Points draw call over typed-array
// attributes, edges as line segments sharing those buffers, trails (trailLayer.ts), an orbit camera
// (perspective 3D or orthographic 2D), on-demand rendering and screen-grid picking.
import * as THREE from 'three';
import { orthographicFitZoom, perspectiveFitDistance } from './cameraFit';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { BoundingBox } from '@wpv/schema';
import type { PointAttributes } from './clusterStyles';
import { ScreenGrid } from './pickIndex';
import { TrailLayer } from './trailLayer';
import { TreeLayer } from './treeLayer';
import type { TreeLines } from './treeModel';
import type { TrailScene } from './trails';
import { projectToScreen } from './projection';
import { PLAIN_POINT, lineFragmentShader, lineVertexShader, pointFragmentShader, pointVertexShader, shapeDefines } from './shaders';
import type { CameraState } from './viewState';

export type Mode = '2d' | '3d';

export class WebGLUnavailableError extends Error {}

export class PlotRenderer {
  private readonly renderer: THREE.WebGLRenderer;
  private readonly scene = new THREE.Scene();
  private readonly perspective = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
  private readonly orthographic = new THREE.OrthographicCamera(-1, 1, 1, -1, -1000, 1000);
  private camera: THREE.PerspectiveCamera | THREE.OrthographicCamera = this.perspective;
  private controls: OrbitControls;
  private readonly geometry = new THREE.BufferGeometry();
  private readonly pointMaterial: THREE.ShaderMaterial;
  private readonly points: THREE.Points;
  private readonly edgeGeometry = new THREE.BufferGeometry();
  private readonly edges: THREE.LineSegments;
  private readonly trails = new TrailLayer();
  private readonly tree = new TreeLayer();
  private readonly axes = new THREE.AxesHelper(1);
  private readonly lineMaterial: THREE.ShaderMaterial;
  /** the user's edges switch; the edges object is shown only when it also has segments */
  private edgesOn = true;
  private positions: Float32Array = new Float32Array(0);
  private attributes: PointAttributes | null = null;
  /** colours replacing the clusters' (colouring by a metadata column), used while their length fits */
  private pointColors: Uint8Array | null = null;
  private edgeLists: number[][] = [];
  private bbox: BoundingBox = { min: [-1, -1, -1], max: [1, 1, 1] };
  private mode: Mode = '3d';
  /** largest per-point size, bounding the pick search radius */
  private maxSize = 1;
  /** bit mask of the glyph shapes compiled into the point shader: discs, every format's default, until points arrive */
  private shapes = 1;
  private grid: ScreenGrid | null = null;
  private frameRequest: number | null = null;
  /** the canvas's layout size the drawing buffer was last sized to */
  private width = 0;
  private height = 0;
  private flight: number | null = null;
  private readonly resizeObserver: ResizeObserver;
  private readonly cameraListeners = new Set<() => void>();

  constructor(private readonly canvas: HTMLCanvasElement) {
    try {
      this.renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: false });
    } catch {
      throw new WebGLUnavailableError('WebGL is not available in this browser');
    }
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.setClearColor(0x111418);
    this.pointMaterial = new THREE.ShaderMaterial({
      vertexShader: pointVertexShader,
      fragmentShader: pointFragmentShader,
      defines: shapeDefines(this.shapes),
      uniforms: { uPointScale: { value: 4 }, uGlyphScale: { value: 4 }, uPixelRatio: { value: window.devicePixelRatio }, uBlend: { value: 0 } },
    });
    this.lineMaterial = new THREE.ShaderMaterial({
      vertexShader: lineVertexShader, fragmentShader: lineFragmentShader,
      uniforms: { uOpacity: { value: 0.8 } }, transparent: true,
    });
    this.points = new THREE.Points(this.geometry, this.pointMaterial);
    this.edges = new THREE.LineSegments(this.edgeGeometry, this.lineMaterial);
    for (const o of [this.points, this.edges]) o.frustumCulled = false; // bounds change every frame
    // Drawn only once they have something to show: a first frame of points alone links one program.
    this.edges.visible = this.axes.visible = false;
    this.scene.add(this.points, this.edges, this.tree.object, this.trails.object, this.axes);
    this.controls = this.makeControls();
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(canvas);
    this.resize();
  }

  private makeControls(): OrbitControls {
    const c = new OrbitControls(this.camera, this.canvas);
    c.enableDamping = false;
    c.screenSpacePanning = true;
    if (this.mode === '2d') {
      c.enableRotate = false;
      c.mouseButtons = { LEFT: THREE.MOUSE.PAN, MIDDLE: THREE.MOUSE.DOLLY, RIGHT: THREE.MOUSE.PAN };
    }
    c.addEventListener('change', () => this.cameraChanged());
    return c;
  }

  private cameraChanged(): void {
    this.grid = null;
    this.requestRender();
    for (const l of this.cameraListeners) l();
  }

  onCameraChange(listener: () => void): () => void {
    this.cameraListeners.add(listener);
    return () => this.cameraListeners.delete(listener);
  }

  private resize(): void {
    const w = this.canvas.clientWidth || 1, h = this.canvas.clientHeight || 1;
    if (w === this.width && h === this.height) return; // a redraw would only repeat the frame
    this.width = w;
    this.height = h;
    this.renderer.setSize(w, h, false);
    this.trails.setResolution(w, h);
    this.perspective.aspect = w / h;
    this.perspective.updateProjectionMatrix();
    this.updateOrthoFrustum();
    this.grid = null;
    this.requestRender();
  }

  private radius(): number {
    const [a, b] = [this.bbox.min, this.bbox.max];
    return Math.max(1e-6, 0.5 * Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]));
  }

  private center(): THREE.Vector3 {
    const [a, b] = [this.bbox.min, this.bbox.max];
    return new THREE.Vector3((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2);
  }

  private updateOrthoFrustum(): void {
    const r = this.radius(), aspect = (this.canvas.clientWidth || 1) / (this.canvas.clientHeight || 1);
    Object.assign(this.orthographic, { left: -r * aspect, right: r * aspect, top: r, bottom: -r, near: -100 * r, far: 100 * r });
    this.orthographic.updateProjectionMatrix();
  }

  /** Replaces the points (a new plot or a frame with a different point count). */
  setPoints(positions: Float32Array, attributes: PointAttributes, bbox: BoundingBox): void {
    this.positions = positions;
    this.attributes = attributes;
    this.bbox = bbox;
    const g = this.geometry;
    const position = new THREE.BufferAttribute(positions, 3);
    g.setAttribute('position', position);
    g.setAttribute('position2', position); // same buffer until interpolation needs a target
    this.setColorBuffer();
    g.setAttribute('size', new THREE.BufferAttribute(attributes.size, 1));
    g.setAttribute('shape', new THREE.BufferAttribute(attributes.shape, 1));
    g.setAttribute('visibility', new THREE.BufferAttribute(attributes.visibility, 1));
    this.edgeGeometry.setAttribute('position', g.getAttribute('position'));
    this.updateOrthoFrustum();
    this.axes.position.copy(this.center());
    this.axes.scale.setScalar(this.radius());
    this.scanAttributes();
    this.rebuildEdgeIndex();
    this.grid = null;
    this.requestRender();
  }

  /** A new frame with the same point count: reuses the GPU buffers. `next` enables interpolation towards it. */
  updatePositions(positions: Float32Array, next?: Float32Array): void {
    this.positions = positions;
    const position = this.geometry.getAttribute('position') as THREE.BufferAttribute;
    if (position.array.length !== positions.length) throw new Error('point count changed: use setPoints');
    position.array = positions;
    position.needsUpdate = true;
    // Edges are not interpolated: they follow the frame shown.
    this.geometry.setAttribute('position2', next ? new THREE.BufferAttribute(next, 3) : position);
    this.grid = null;
    this.requestRender();
  }

  /** Per-point RGBA replacing the cluster colours (colour by a metadata column); null gives them back. */
  setPointColors(rgba: Uint8Array | null): void {
    this.pointColors = rgba;
    if (this.attributes) this.setColorBuffer();
    this.requestRender();
  }

  private setColorBuffer(): void {
    const own = this.attributes!.rgba;
    const rgba = new THREE.BufferAttribute(this.pointColors?.length === own.length ? this.pointColors : own, 4, true);
    this.geometry.setAttribute('rgba', rgba);
    this.edgeGeometry.setAttribute('rgba', rgba);
  }

  /** Colours, sizes, shapes or visibility changed in place. */
  attributesChanged(): void {
    for (const name of ['rgba', 'size', 'shape', 'visibility']) (this.geometry.getAttribute(name) as THREE.BufferAttribute).needsUpdate = true;
    this.scanAttributes();
    this.rebuildEdgeIndex();
    this.grid = null;
    this.requestRender();
  }

  /** Tracks the largest point size (pick radius), whether any point needs blending and the shapes in use. */
  private scanAttributes(): void {
    const a = this.attributes;
    let max = 0;
    let translucent = false;
    let shapes = 0;
    if (a) {
      for (let i = 0; i < a.size.length; i++) if (a.size[i] > max) max = a.size[i];
      for (let i = 3; i < a.rgba.length; i += 4) if (a.rgba[i] < 255) { translucent = true; break; }
      for (let i = 0; i < a.shape.length; i++) shapes |= 1 << a.shape[i];
    }
    this.maxSize = max;
    // Blending costs a framebuffer read per fragment in software renderers: only when needed.
    this.pointMaterial.transparent = translucent;
    if (shapes && shapes !== this.shapes) {
      this.shapes = shapes;
      this.pointMaterial.defines = shapeDefines(shapes);
      this.pointMaterial.needsUpdate = true;
    }
  }

  /** Compiles the points' shaders ahead of the first render (while the data is still on its way). */
  precompile(): void {
    this.renderer.compile(this.points, this.camera, this.scene);
  }

  setBlend(t: number): void {
    this.pointMaterial.uniforms.uBlend.value = t;
    this.requestRender();
  }

  /** Screen pixels of a plain point and of a glyph of size 1. */
  setPointScale(pointPixels: number, glyphPixels: number): void {
    const u = this.pointMaterial.uniforms;
    if (u.uPointScale.value === pointPixels && u.uGlyphScale.value === glyphPixels) return;
    u.uPointScale.value = pointPixels;
    u.uGlyphScale.value = glyphPixels;
    this.requestRender();
  }

  /** Edges are polylines through point indices; drawn as segments between visible points. */
  setEdges(edgeLists: number[][]): void {
    this.edgeLists = edgeLists;
    this.rebuildEdgeIndex();
  }

  setEdgesVisible(visible: boolean): void {
    if (visible === this.edgesOn) return;
    this.edgesOn = visible;
    this.edges.visible = visible && this.edgeGeometry.index !== null;
    this.requestRender();
  }

  private rebuildEdgeIndex(): void {
    const vis = this.attributes?.visibility;
    const n = this.positions.length / 3;
    const index: number[] = [];
    const hadEdges = this.edgeGeometry.index !== null;
    for (const list of this.edgeLists)
      for (let k = 0; k + 1 < list.length; k++) {
        const a = list[k], b = list[k + 1];
        if (a < n && b < n && (!vis || (vis[a] && vis[b]))) index.push(a, b);
      }
    this.edgeGeometry.setIndex(index.length ? new THREE.BufferAttribute(new Uint32Array(index), 1) : null);
    this.edgeGeometry.setDrawRange(0, index.length);
    this.edges.visible = this.edgesOn && index.length > 0;
    if (hadEdges || index.length) this.requestRender();
  }

  /** The trails as drawn at the frame shown (null: none). */
  setTrails(scene: TrailScene | null): void {
    this.trails.set(scene);
    this.requestRender();
  }

  /** A plot's tree as drawn at the frame shown (null: none). */
  setTree(lines: TreeLines | null): void {
    this.tree.set(lines);
    this.requestRender();
  }

  setTrailWidth(pixels: number): void {
    this.trails.setWidth(pixels);
    this.requestRender();
  }

  /** Canvas pixel position of a plot position, or null when it is behind the camera or off screen. */
  toScreen(xyz: readonly [number, number, number]): { x: number; y: number } | null {
    this.camera.updateMatrixWorld();
    const v = new THREE.Vector3(...xyz).project(this.camera);
    if (v.z > 1 || Math.abs(v.x) > 1 || Math.abs(v.y) > 1) return null;
    return { x: (v.x + 1) / 2 * this.canvas.clientWidth, y: (1 - v.y) / 2 * this.canvas.clientHeight };
  }

  setAxesVisible(visible: boolean): void {
    if (visible === this.axes.visible) return;
    this.axes.visible = visible;
    this.requestRender();
  }

  /** Off while a selection tool owns the mouse. */
  setControlsEnabled(enabled: boolean): void {
    this.controls.enabled = enabled;
  }

  setMode(mode: Mode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    const enabled = this.controls.enabled;
    this.controls.dispose();
    this.camera = mode === '2d' ? this.orthographic : this.perspective;
    this.controls = this.makeControls();
    this.controls.enabled = enabled;
    this.resetCamera();
  }

  resetCamera(): void {
    const c = this.center(), r = this.radius();
    this.stopFlight();
    if (this.mode === '2d') {
      this.orthographic.position.set(c.x, c.y, c.z + 10 * r);
      this.orthographic.up.set(0, 1, 0);
      this.orthographic.zoom = orthographicFitZoom(this.positions, c.toArray(), r, this.perspective.aspect);
      this.orthographic.updateProjectionMatrix();
    } else {
      const dist = perspectiveFitDistance(this.positions, c.toArray(), this.perspective.fov, this.perspective.aspect);
      this.perspective.position.set(c.x, c.y, c.z + dist);
      this.perspective.up.set(0, 1, 0);
      this.perspective.near = dist / 1000;
      this.perspective.far = dist * 100;
      this.perspective.updateProjectionMatrix();
    }
    this.controls.target.copy(c);
    this.controls.update();
    this.cameraChanged();
  }

  getCamera(): CameraState {
    const p = this.camera.position, t = this.controls.target, u = this.camera.up;
    return { position: [p.x, p.y, p.z], target: [t.x, t.y, t.z], up: [u.x, u.y, u.z], zoom: this.camera.zoom };
  }

  setCamera(s: CameraState): void {
    this.stopFlight();
    this.camera.position.set(...s.position);
    this.camera.up.set(...s.up);
    this.camera.zoom = s.zoom;
    this.camera.updateProjectionMatrix();
    this.controls.target.set(...s.target);
    this.controls.update();
    this.cameraChanged();
  }

  /** Animates the camera to frame the given points, keeping the viewing direction. */
  flyTo(indices: readonly number[]): void {
    if (!indices.length) return;
    const box = new THREE.Box3();
    const v = new THREE.Vector3();
    for (const i of indices) box.expandByPoint(v.fromArray(this.positions, 3 * i));
    const target = box.getCenter(new THREE.Vector3());
    // Never closer than a fifth of the plot: a single match keeps its neighbourhood in view.
    const r = Math.max(box.getSize(new THREE.Vector3()).length() / 2, this.radius() / 5);
    const dir = this.camera.position.clone().sub(this.controls.target).normalize();
    const dist = this.mode === '2d' ? this.camera.position.distanceTo(this.controls.target)
      : r / Math.sin(THREE.MathUtils.degToRad(this.perspective.fov / 2));
    const fromPos = this.camera.position.clone(), fromTarget = this.controls.target.clone(), fromZoom = this.camera.zoom;
    const toPos = target.clone().addScaledVector(dir, dist);
    const toZoom = this.mode === '2d' ? this.radius() / r : this.camera.zoom;
    const start = performance.now();
    this.stopFlight();
    const step = () => {
      const t = Math.min(1, (performance.now() - start) / 600);
      const e = t * t * (3 - 2 * t);
      this.camera.position.lerpVectors(fromPos, toPos, e);
      this.controls.target.lerpVectors(fromTarget, target, e);
      this.camera.zoom = fromZoom + (toZoom - fromZoom) * e;
      this.camera.updateProjectionMatrix();
      this.controls.update();
      this.cameraChanged();
      this.flight = t < 1 ? requestAnimationFrame(step) : null;
    };
    this.flight = requestAnimationFrame(step);
  }

  private stopFlight(): void {
    if (this.flight !== null) cancelAnimationFrame(this.flight);
    this.flight = null;
  }

  /** The screen grid for the current camera, rebuilt lazily after the camera or the points change. */
  private screenGrid(): ScreenGrid {
    if (!this.grid) {
      this.camera.updateMatrixWorld();
      const vp = new THREE.Matrix4().multiplyMatrices(this.camera.projectionMatrix, this.camera.matrixWorldInverse);
      const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
      this.grid = new ScreenGrid(projectToScreen(this.positions, vp.elements, w, h, this.attributes?.visibility), w, h);
    }
    return this.grid;
  }

  /** Index of the point drawn under canvas pixel (x, y), or -1. */
  pick(x: number, y: number): number {
    const a = this.attributes;
    if (!a || !a.size.length) return -1;
    const point = this.pointMaterial.uniforms.uPointScale.value as number;
    const glyph = this.pointMaterial.uniforms.uGlyphScale.value as number;
    const tolerance = 2; // pixels of slack around a point's drawn radius
    const pixels = (i: number) => (a.shape[i] === PLAIN_POINT ? point : a.size[i] * glyph);
    return this.screenGrid().pick(x, y, (i) => pixels(i) / 2 + tolerance, Math.max(point, this.maxSize * glyph) / 2 + tolerance);
  }

  selectRect(x0: number, y0: number, x1: number, y1: number): number[] {
    return this.screenGrid().inRect(x0, y0, x1, y1);
  }

  selectPolygon(polygon: [number, number][]): number[] {
    return this.screenGrid().inPolygon(polygon);
  }

  requestRender(): void {
    // Before the first points there is nothing to draw; the page's background shows instead.
    if (this.frameRequest !== null || !this.attributes) return;
    this.frameRequest = requestAnimationFrame(() => {
      this.frameRequest = null;
      const start = performance.now();
      this.renderer.render(this.scene, this.camera); // issues GL commands and buffer uploads; rasterising happens off-thread
      performance.measure('wpv:render', { start, end: performance.now() });
    });
  }

  /**
   * Renders now in two timed steps, GPU upload (a render with nothing drawn) then the draw,
   * each waited for with a one-pixel read; used for the first frame.
   */
  renderTimed(): { uploadMs: number; drawMs: number } {
    this.resize(); // to the canvas's current layout, which the resize observer reports later
    this.cancelRender(); // this frame shows every change requested so far
    const gl = this.renderer.getContext();
    const pixel = new Uint8Array(4);
    const count = this.positions.length / 3;
    const t0 = performance.now();
    this.geometry.setDrawRange(0, 0);
    this.renderer.render(this.scene, this.camera);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    const t1 = performance.now();
    this.geometry.setDrawRange(0, count);
    this.renderer.render(this.scene, this.camera);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return { uploadMs: t1 - t0, drawMs: performance.now() - t1 };
  }

  private cancelRender(): void {
    if (this.frameRequest !== null) cancelAnimationFrame(this.frameRequest);
    this.frameRequest = null;
  }

  /** A PNG of the current view at `scale` × the canvas resolution. */
  screenshot(scale = 1): Promise<Blob> {
    const ratio = this.renderer.getPixelRatio();
    const setRatio = (r: number) => {
      this.renderer.setPixelRatio(r); // resizes the drawing buffer, which clears it
      this.pointMaterial.uniforms.uPixelRatio.value = r;
    };
    if (scale !== 1) setRatio(ratio * scale);
    this.cancelRender(); // this frame shows every change requested so far
    this.renderer.render(this.scene, this.camera);
    const blob = new Promise<Blob>((resolve, reject) =>
      this.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('screenshot failed'))), 'image/png'));
    if (scale !== 1) {
      setRatio(ratio);
      this.requestRender();
    }
    return blob;
  }

  dispose(): void {
    this.stopFlight();
    this.cancelRender();
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.geometry.dispose();
    this.edgeGeometry.dispose();
    this.trails.dispose();
    this.tree.dispose();
    this.pointMaterial.dispose();
    this.lineMaterial.dispose();
    this.renderer.dispose();
  }
}
