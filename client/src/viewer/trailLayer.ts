// The renderer's trail objects: wide lines (three's LineSegments2, whose width is in screen
// pixels, unlike WebGL lines, which most browsers draw 1 px wide) and the frame marks, drawn
// over the points so that a trail is never hidden inside a cluster.
import * as THREE from 'three';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import type { TrailScene } from './trails';

const ON_TOP = 10; // render order after the points and edges

/**
 * The scene's colours are sRGB, as the canvas shows them (and as the points' own shader writes
 * them); three's line and point materials take linear colours and convert them on output.
 */
function toLinear(srgb: Float32Array): Float32Array {
  const out = new Float32Array(srgb.length), c = new THREE.Color();
  for (let i = 0; i < srgb.length; i += 3) {
    c.setRGB(srgb[i]!, srgb[i + 1]!, srgb[i + 2]!, THREE.SRGBColorSpace);
    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b;
  }
  return out;
}

export class TrailLayer {
  readonly object = new THREE.Group();
  private readonly lineMaterial = new LineMaterial({ linewidth: 3, vertexColors: true, worldUnits: false, depthTest: false });
  private readonly lines = new LineSegments2(new LineSegmentsGeometry(), this.lineMaterial);
  private readonly markMaterial = new THREE.PointsMaterial({ size: 6, sizeAttenuation: false, vertexColors: true, depthTest: false });
  private readonly marks = new THREE.Points(new THREE.BufferGeometry(), this.markMaterial);

  constructor() {
    for (const o of [this.lines, this.marks]) {
      o.frustumCulled = false; // the paths change every frame
      o.renderOrder = ON_TOP;
    }
    this.object.add(this.lines, this.marks);
    this.object.visible = false; // no program is linked for trails until there are some
  }

  /** Shows the trails of one frame (null: none). */
  set(scene: TrailScene | null): void {
    // New geometries each time: replacing a geometry's attributes would leave the old GPU buffers behind.
    this.lines.geometry.dispose();
    this.marks.geometry.dispose();
    this.lines.geometry = new LineSegmentsGeometry();
    this.marks.geometry = new THREE.BufferGeometry();
    const segments = scene?.segments.length ?? 0, marks = scene?.marks.length ?? 0;
    if (scene && segments) this.lines.geometry.setPositions(scene.segments).setColors(toLinear(scene.segmentColors));
    if (scene && marks) {
      this.marks.geometry.setAttribute('position', new THREE.BufferAttribute(scene.marks, 3));
      this.marks.geometry.setAttribute('color', new THREE.BufferAttribute(toLinear(scene.markColors), 3));
    }
    this.lines.visible = segments > 0;
    this.marks.visible = marks > 0;
    this.object.visible = segments + marks > 0;
  }

  /** Line width in CSS pixels; the marks are a little wider than the line. */
  setWidth(pixels: number): void {
    this.lineMaterial.linewidth = pixels;
    this.markMaterial.size = pixels + 4;
  }

  /** The canvas's CSS size, which the line width is measured against. */
  setResolution(width: number, height: number): void {
    this.lineMaterial.resolution.set(width, height);
  }

  dispose(): void {
    this.lines.geometry.dispose();
    this.marks.geometry.dispose();
    this.lineMaterial.dispose();
    this.markMaterial.dispose();
  }
}
