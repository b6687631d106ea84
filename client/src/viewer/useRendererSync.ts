// The view's look pushed to the renderer once the first frame is on screen.
import { useEffect } from 'react';
import type { ClusterStyle } from './clusterStyles';
import type { Scene } from './scene';
import type { ViewState } from './viewState';

export function useRendererSync(scene: Scene, ready: boolean, view: ViewState, styles: ClusterStyle[], highlighted: ReadonlySet<number>): void {
  const { pointSize, glyphSize, mode, edges, axes } = view;
  useEffect(() => { if (ready) scene.restyle(); }, [scene, ready, styles, highlighted]);
  useEffect(() => { if (ready) scene.renderer?.setPointScale(pointSize, glyphSize); }, [scene, ready, pointSize, glyphSize]);
  useEffect(() => { if (ready) scene.renderer?.setMode(mode); }, [scene, ready, mode]);
  useEffect(() => { if (ready) scene.renderer?.setEdgesVisible(edges); }, [scene, ready, edges]);
  useEffect(() => { if (ready) scene.renderer?.setAxesVisible(axes); }, [scene, ready, axes]);
}
