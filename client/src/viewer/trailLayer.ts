// The renderer's trail objects: wide lines (three's LineSegments2, whose width is in screen
// pixels, unlike WebGL lines, which most browsers draw 1 px wide) and the frame marks, drawn
// over the points so that a trail is never hidden inside a cluster. The buffers are kept and
// refilled on each frame switch (grown when a frame needs more), not reallocated.
import * as THREE from 'three';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import type { TrailScene } from './trails';

const ON_TOP = 10; // render order after the points and edges

/**
 * Writes `srgb` into `out` as linear colours: the scene's colours are sRGB, as the canvas shows
 * them (and as the points' own shader writes them); three's line and point materials take
 * linear colours and convert them on output.
 */
export function toLinear(srgb: Float32Array, out: THREE.TypedArray): void {
  const c = new THREE.Color();
  for (let i = 0; i < srgb.length; i += 3) {
    c.setRGB(srgb[i]!, srgb[i + 1]!, srgb[i + 2]!, THREE.SRGBColorSpace);
    out[i] = c.r; out[i + 1] = c.g; out[i + 2] = c.b;
  }
}

/** Marks a buffer's first `length` floats for upload. */
function upload(buffer: THREE.InterleavedBuffer | THREE.BufferAttribute, length: number): void {
  buffer.clearUpdateRanges();
  buffer.addUpdateRange(0, length);
  buffer.needsUpdate = true;
}

export class TrailLayer {
  readonly object = new THREE.Group();
  private readonly lineMaterial = new LineMaterial({ linewidth: 3, vertexColors: true, worldUnits: false, depthTest: false });
  private readonly lines = new LineSegments2(new LineSegmentsGeometry(), this.lineMaterial);
  private readonly markMaterial = new THREE.PointsMaterial({ size: 6, sizeAttenuation: false, vertexColors: true, depthTest: false });
  private readonly marks = new THREE.Points(new THREE.BufferGeometry(), this.markMaterial);
  /** segments and marks the buffers hold */
  private segmentCapacity = 0;
  private markCapacity = 0;

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
    const segments = (scene?.segments.length ?? 0) / 6, marks = (scene?.marks.length ?? 0) / 3;
    if (scene && segments) {
      if (segments > this.segmentCapacity) this.growLines(segments);
      const start = this.lines.geometry.getAttribute('instanceStart') as THREE.InterleavedBufferAttribute;
      const color = this.lines.geometry.getAttribute('instanceColorStart') as THREE.InterleavedBufferAttribute;
      start.data.array.set(scene.segments);
      toLinear(scene.segmentColors, color.data.array);
      upload(start.data, scene.segments.length);
      upload(color.data, scene.segments.length);
      this.lines.geometry.instanceCount = segments;
    }
    if (scene && marks) {
      if (marks > this.markCapacity) this.growMarks(marks);
      const position = this.marks.geometry.getAttribute('position') as THREE.BufferAttribute;
      const color = this.marks.geometry.getAttribute('color') as THREE.BufferAttribute;
      position.array.set(scene.marks);
      toLinear(scene.markColors, color.array);
      upload(position, scene.marks.length);
      upload(color, scene.marks.length);
      this.marks.geometry.setDrawRange(0, marks);
    }
    this.lines.visible = segments > 0;
    this.marks.visible = marks > 0;
    this.object.visible = segments + marks > 0;
  }

  /** New line buffers for at least `segments` (the old geometry's GPU buffers are freed). */
  private growLines(segments: number): void {
    this.segmentCapacity = Math.max(segments, 2 * this.segmentCapacity, 256);
    const room = new Float32Array(6 * this.segmentCapacity);
    this.lines.geometry.dispose();
    this.lines.geometry = new LineSegmentsGeometry().setPositions(room).setColors(room.slice());
    for (const name of ['instanceStart', 'instanceColorStart'])
      (this.lines.geometry.getAttribute(name) as THREE.InterleavedBufferAttribute).data.setUsage(THREE.DynamicDrawUsage);
  }

  private growMarks(marks: number): void {
    this.markCapacity = Math.max(marks, 2 * this.markCapacity, 256);
    this.marks.geometry.dispose();
    this.marks.geometry = new THREE.BufferGeometry();
    for (const name of ['position', 'color'])
      this.marks.geometry.setAttribute(name, new THREE.BufferAttribute(new Float32Array(3 * this.markCapacity), 3).setUsage(THREE.DynamicDrawUsage));
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
