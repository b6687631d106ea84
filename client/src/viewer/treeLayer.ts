// The renderer's tree objects: branches as thin lines (WebGL's 1 px lines: a tree of thousands
// of branches stays light, unlike the trails' wide ones) drawn over the points and half
// transparent, so a dense clade's points still show; and the marks of collapsed clades.
import * as THREE from 'three';
import { toLinear } from './trailLayer';
import type { TreeLines } from './treeModel';

const OVER_POINTS = 5; // after the points and edges, before the trails

export class TreeLayer {
  readonly object = new THREE.Group();
  private readonly lineMaterial = new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.7, depthTest: false });
  private readonly lines = new THREE.LineSegments(new THREE.BufferGeometry(), this.lineMaterial);
  private readonly markMaterial = new THREE.PointsMaterial({ size: 14, sizeAttenuation: false, vertexColors: true, depthTest: false });
  private readonly marks = new THREE.Points(new THREE.BufferGeometry(), this.markMaterial);

  constructor() {
    for (const o of [this.lines, this.marks]) {
      o.frustumCulled = false; // the positions change with every frame
      o.renderOrder = OVER_POINTS;
    }
    this.object.add(this.lines, this.marks);
    this.object.visible = false;
  }

  /** Shows these branches and marks (null: no tree). New buffers each time: a cut or a frame switch changes them all. */
  set(tree: TreeLines | null): void {
    // The old geometry is disposed, which frees its GPU buffers (replaced attributes would stay).
    this.lines.geometry.dispose();
    this.lines.geometry = geometry(tree?.segments, tree?.segmentColors);
    this.marks.geometry.dispose();
    this.marks.geometry = geometry(tree?.marks, tree?.markColors);
    this.object.visible = !!tree && tree.segments.length + tree.marks.length > 0;
  }

  dispose(): void {
    this.lines.geometry.dispose();
    this.marks.geometry.dispose();
    this.lineMaterial.dispose();
    this.markMaterial.dispose();
  }
}

function geometry(positions: Float32Array = new Float32Array(0), srgb: Float32Array = new Float32Array(0)): THREE.BufferGeometry {
  const colors = new Float32Array(srgb.length);
  toLinear(srgb, colors);
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  g.setAttribute('color', new THREE.BufferAttribute(colors, 3));
  return g;
}
