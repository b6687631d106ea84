// What is on screen, outside React: the renderer, the frame it shows and the point attributes
// built for that frame from the wanted styles and highlights. The data hooks change it; the
// components read from it (a hovered point, the selected points).
import type { Plot } from '@wpv/schema';
import { buildPointAttributes, type ClusterStyle, type PointAttributes } from './clusterStyles';
import type { SelectedPoint } from './csv';
import type { PlotRenderer } from './renderer';
import type { FrameStore } from './timeSeries';

/** The frame on screen; labels and edges arrive after the first render of a single plot. */
export interface ShownFrame {
  index: number;
  positions: Float32Array;
  clusters: Uint32Array;
  labels: string[] | null;
}

export interface PointLook {
  styles: ClusterStyle[];
  highlighted: ReadonlySet<number>;
}

export class Scene {
  renderer: PlotRenderer | null = null;
  frame: ShownFrame | null = null;
  /** a time series' frames in memory */
  store: FrameStore | null = null;
  /** The frame the selection's indices refer to: they follow its points by label when the frame changes. */
  selectionFrame = 0;
  /** The styles and highlights of the latest render, read by work outside React (playback, loading). */
  wanted: PointLook = { styles: [], highlighted: new Set() };
  private attributes: PointAttributes | null = null;
  /** what the attributes on screen were built from */
  private builtFrom: PointLook | null = null;

  /** Puts a frame's points on screen with the wanted look; `next`: blend targets for playback. */
  show(frame: ShownFrame, bbox: Plot['bbox'], blendTo?: () => Float32Array): void {
    const r = this.renderer!;
    const previous = this.attributes;
    const attributes = buildPointAttributes(frame.clusters, this.wanted.styles, this.wanted.highlighted, previous ?? undefined);
    this.attributes = attributes;
    this.builtFrom = this.wanted;
    if (previous === attributes && this.frame?.positions.length === frame.positions.length) {
      r.updatePositions(frame.positions, blendTo?.());
      r.attributesChanged();
    } else {
      r.setPoints(frame.positions, attributes, bbox);
    }
    this.frame = frame;
  }

  /** Rebuilds the attributes when the wanted look changed since they were built. */
  restyle(): void {
    const f = this.frame;
    if (!this.renderer || !f || this.builtFrom === this.wanted) return;
    this.attributes = buildPointAttributes(f.clusters, this.wanted.styles, this.wanted.highlighted, this.attributes ?? undefined);
    this.builtFrom = this.wanted;
    this.renderer.attributesChanged();
  }

  /** A point of the frame on screen, as the tooltip and the selection list show it. */
  point(i: number, clusterLabel: ReadonlyMap<number, string>): SelectedPoint {
    const f = this.frame!;
    return {
      index: i, label: f.labels?.[i] ?? `#${i}`, cluster: clusterLabel.get(f.clusters[i]!) ?? String(f.clusters[i]),
      x: f.positions[3 * i]!, y: f.positions[3 * i + 1]!, z: f.positions[3 * i + 2]!,
    };
  }
}
