// Loading one frame of a plot from the API, with the timings the first-frame benchmark reports.
import type { FrameInfo } from '@wpv/schema';
import { plots } from '../api/endpoints';
import { ApiError } from '../api/http';
import type { FrameData } from './timeSeries';

/** Positions and cluster keys only: all the first render needs. */
export async function fetchGeometry(plotId: string, frame: number, signal?: AbortSignal) {
  const [positions, clusters] = await Promise.all([plots.positions(plotId, frame, signal), plots.clusters(plotId, frame, signal)]);
  if (positions.length !== clusters.length * 3)
    throw new ApiError(0, 'bad_reply', `frame ${frame}: ${positions.length / 3} positions but ${clusters.length} cluster keys`);
  return { positions, clusters };
}

export async function fetchEdges(plotId: string, info: FrameInfo | undefined): Promise<number[][]> {
  if (!info || info.edges === 0) return [];
  return (await plots.edges(plotId, info.index)).map((e) => e.vertices);
}

/** Everything about a frame, for time-series playback (labels are needed to match points across frames). */
export async function fetchFullFrame(plotId: string, info: FrameInfo, signal: AbortSignal): Promise<FrameData> {
  const [geometry, labels, edges] = await Promise.all([
    fetchGeometry(plotId, info.index, signal), plots.labels(plotId, info.index), fetchEdges(plotId, info),
  ]);
  return { ...geometry, labels, edges };
}
