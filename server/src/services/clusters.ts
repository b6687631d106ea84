// New clusters made from points chosen in the viewer. The points' cluster keys are rewritten
// in every frame they appear in (a time series matches points across frames by label), and
// the plot's cluster table gains the cluster while the clusters the points left lose them.
import {
  categoricalColor, decodeSelectionMask, matchByLabel, SelectionMaskError, type Cluster, type ClusterCreate, type ClusterCreated,
} from '@wpv/schema';
import type { z } from 'zod';
import { defaultCluster } from '../formats/reader.ts';
import { ApiError } from '../http/errors.ts';
import { frameBlobName, type BlobInfo, type BlobStore } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';
import { toPlot, type Plots } from './plots.ts';

const MAX_KEY = 0xffffffff;

interface FrameKeys {
  keys: Uint32Array;
  labels: string[];
}

export class ClusterEditor {
  constructor(
    private readonly plots: Plots,
    private readonly blobs: BlobStore,
    private readonly maxClusters: number,
  ) {}

  create(id: string, caller: string, input: z.output<typeof ClusterCreate>): Promise<ClusterCreated> {
    // One edit of a plot at a time: two new clusters would both pick the same key.
    return this.plots.oneEditAtATime(id, () => this.createNow(id, caller, input));
  }

  /**
   * Every step leaves a consistent plot: the cluster is declared (count 0) before any point
   * carries its key; each frame's key blob is replaced whole (new chunks, then the pointer);
   * the counts are stored last; the old chunks go after the reply. A failure puts the old keys back.
   */
  private async createNow(id: string, caller: string, input: z.output<typeof ClusterCreate>): Promise<ClusterCreated> {
    let doc = await this.plots.owned(id, caller);
    if (input.frame >= doc.frames) throw new ApiError(400, 'bad_request', `frame: the plot has ${doc.frames} frame(s)`, 'frame');
    const details = await this.plots.details(doc);
    if (details.clusters.length >= this.maxClusters) {
      throw new ApiError(422, 'too_many_clusters', `the plot has ${details.clusters.length} clusters; at most ${this.maxClusters} are allowed`);
    }
    const key = details.clusters.reduce((max, c) => Math.max(max, c.key), -1) + 1;
    if (key > MAX_KEY) throw new ApiError(422, 'too_many_clusters', 'no cluster key is left above the largest one');

    const source = await this.readFrame(doc, input.frame);
    const chosen = chosenPoints(input, source.keys.length);

    const { label, shape, size, visible } = defaultCluster(key, input.label);
    const cluster: Cluster = { key, label, color: categoricalColor(details.clusters.length), shape, size, visible, count: 0 };
    const before = structuredClone(details.clusters);
    details.clusters.push(cluster);
    doc = await this.plots.saveClusterTable(doc, details);

    const byKey = new Map(details.clusters.map((c) => [c.key, c]));
    const done: { frame: number; moved: readonly number[]; oldKeys: number[]; replaced: BlobInfo | null }[] = [];
    try {
      for (let frame = 0; frame < doc.frames; frame++) {
        const { keys, labels } = frame === input.frame ? source : await this.readFrame(doc, frame);
        const moved = frame === input.frame ? chosen : matchedPoints(source.labels, labels, chosen);
        if (!moved.length) continue;
        const oldKeys = moved.map((i) => keys[i]);
        for (const i of moved) {
          const from = byKey.get(keys[i]);
          if (from) from.count--;
          keys[i] = key;
        }
        cluster.count += moved.length;
        const replaced = await this.blobs.replaceBuffer(doc._id, keysBlob(doc, frame), asBytes(keys), BINARY);
        done.push({ frame, moved, oldKeys, replaced });
      }
    } catch (err) {
      for (const { frame, moved, oldKeys, replaced } of done) {
        const { keys } = await this.readFrame(doc, frame);
        moved.forEach((i, k) => (keys[i] = oldKeys[k]));
        await this.blobs.putBuffer(doc._id, keysBlob(doc, frame), asBytes(keys), BINARY);
        if (replaced) await this.blobs.discard(replaced);
      }
      await this.plots.saveClusterTable(doc, { ...details, clusters: before });
      throw err;
    }
    doc = await this.plots.saveClusterTable(doc, details);
    void this.discardAll(done.flatMap((d) => (d.replaced ? [d.replaced] : [])));
    return { cluster, plot: toPlot(doc, details) };
  }

  /** A frame's keys (a copy: the store's cache shares its buffers) and, in a time series, its labels. */
  private async readFrame(doc: PlotDoc, frame: number): Promise<FrameKeys> {
    const bytes = await this.blobs.readAll(await this.plots.frameBlob(doc, frame, 'clusters'));
    const keys = new Uint32Array(bytes.byteLength / 4);
    new Uint8Array(keys.buffer).set(bytes);
    return { keys, labels: doc.frames > 1 ? await this.plots.labels(doc, frame) : [] };
  }

  /** Old versions' chunks, unreferenced since the switch: a failure here leaves only garbage. */
  private async discardAll(versions: BlobInfo[]): Promise<void> {
    try {
      for (const version of versions) await this.blobs.discard(version);
    } catch (err) {
      console.error('clusters: old key chunks not deleted', err);
    }
  }
}

const BINARY = 'application/octet-stream';
const keysBlob = (doc: PlotDoc, frame: number) => frameBlobName(doc._id, frame, 'clusters');
/** Uint32 keys as the API's little-endian bytes (main.ts checks the host is little-endian). */
const asBytes = (keys: Uint32Array) => new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength);

/** The indices of `frame` a request chooses, given as indices or as a mask over its `count` points. */
function chosenPoints({ points, mask, frame }: z.output<typeof ClusterCreate>, count: number): readonly number[] {
  if (points) {
    const outside = points.find((i) => i >= count);
    if (outside !== undefined) {
      throw new ApiError(400, 'bad_request', `points: index ${outside} is out of range (frame ${frame} has ${count} points)`, 'points');
    }
    return points;
  }
  const invalid = (message: string) => new ApiError(400, 'bad_request', `mask: ${message} (frame ${frame})`, 'mask');
  let chosen: number[];
  try {
    chosen = decodeSelectionMask(mask!, count); // the schema lets through exactly one of points and mask
  } catch (err) {
    throw err instanceof SelectionMaskError ? invalid(err.message) : err;
  }
  if (!chosen.length) throw invalid('no point is selected');
  return chosen;
}

/** Where the chosen points of one frame are in another frame, matched by label (each point once). */
function matchedPoints(from: readonly string[], to: readonly string[], points: readonly number[]): number[] {
  const match = matchByLabel(from, to);
  return [...new Set(points.map((i) => match[i]).filter((j) => j >= 0))];
}
