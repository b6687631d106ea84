// Cluster edits made in the viewer: a new cluster of chosen points, deleting such a cluster (its
// points go back to the clusters they had before it), and undoing the last of these edits. The
// points' cluster keys are rewritten in every frame they appear in (a time series matches points
// across frames by label), and the plot's cluster table follows with the counts. Each edit keeps
// what it overwrote in a blob: a made cluster its points' earlier keys (its "origin", kept while
// any later delete may need it), a delete the points it took from the cluster. The last
// MAX_UNDO edits are listed in the plot's details, newest last, for undo.
import { randomBytes } from 'node:crypto';
import {
  categoricalColor, clusterNamed, decodeSelectionMask, matchByLabel, SelectionMaskError,
  type Cluster, type ClusterCreate, type ClusterCreated, type ClusterEdit, type ClusterEdits, type ClusterKeysChanged, type ClusterUndo,
} from '@wpv/schema';
import type { z } from 'zod';
import { defaultCluster } from '../formats/reader.ts';
import { ApiError } from '../http/errors.ts';
import { frameBlobName, type BlobStore, type ReplacedBlob } from '../storage/blobs.ts';
import type { ClusterEditRecord, PlotDetails, PlotDoc } from '../storage/documents.ts';
import { clusterNameTaken, toPlot, type Plots } from './plots.ts';

const MAX_KEY = 0xffffffff;
/** Edits that undo can take back, per plot. */
export const MAX_UNDO = 20;

interface FrameKeys {
  keys: Uint32Array;
  labels: string[];
}

/** Points of one frame with a key each: the keys they had before an edit, or have after it. */
export interface KeyChange {
  frame: number;
  points: number[];
  keys: number[];
}

/** The points of a frame an edit moves and the key each one gets; null: the frame keeps its keys. */
type MovePlan = (frame: number, current: FrameKeys) => Promise<{ points: readonly number[]; keys: (k: number) => number } | null>;

export class ClusterEditor {
  constructor(
    private readonly plots: Plots,
    private readonly blobs: BlobStore,
    private readonly maxClusters: number,
  ) {}

  // One edit of a plot at a time: two new clusters would both pick the same key, and undo
  // must see the history as the edit before it left it.
  create(id: string, caller: string, input: z.output<typeof ClusterCreate>): Promise<ClusterCreated> {
    return this.plots.oneEditAtATime(id, () => this.createNow(id, caller, input));
  }

  delete(id: string, caller: string, key: number): Promise<ClusterKeysChanged> {
    return this.plots.oneEditAtATime(id, () => this.deleteNow(id, caller, key));
  }

  undo(id: string, caller: string, input: ClusterUndo): Promise<ClusterKeysChanged> {
    return this.plots.oneEditAtATime(id, () => this.undoNow(id, caller, input));
  }

  async edits(id: string, caller: string): Promise<ClusterEdits> {
    const doc = await this.plots.owned(id, caller);
    return editsOf(await this.plots.details(doc));
  }

  private async createNow(id: string, caller: string, input: z.output<typeof ClusterCreate>): Promise<ClusterCreated> {
    let doc = await this.plots.owned(id, caller);
    if (input.frame >= doc.frames) throw new ApiError(400, 'bad_request', `frame: the plot has ${doc.frames} frame(s)`, 'frame');
    const details = await this.plots.details(doc);
    if (details.clusters.length >= this.maxClusters) {
      throw new ApiError(422, 'too_many_clusters', `the plot has ${details.clusters.length} clusters; at most ${this.maxClusters} are allowed`);
    }
    const named = clusterNamed(details.clusters, input.label);
    if (named) throw clusterNameTaken('label', named);
    // Above every key in use and every deleted made cluster's: their origins stay addressable.
    const key = [...details.clusters.map((c) => c.key), ...(details.madeClusters ?? [])].reduce((max, k) => Math.max(max, k), -1) + 1;
    if (key > MAX_KEY) throw new ApiError(422, 'too_many_clusters', 'no cluster key is left above the largest one');

    const source = await this.readFrame(doc, input.frame);
    const chosen = chosenPoints(input, source.keys.length);
    // The same points again would leave the earlier made cluster empty: a duplicate of no use.
    const same = sameCluster(source.keys, chosen);
    if (same !== null && details.madeClusters?.includes(same)) {
      const label = details.clusters.find((c) => c.key === same)?.label ?? String(same);
      throw new ApiError(409, 'already_a_cluster', `points: these points already form cluster "${label}" (key ${same}); rename it instead`, 'points');
    }

    const { label, shape, size, visible } = defaultCluster(key, input.label);
    const cluster: Cluster = { key, label, color: categoricalColor(details.clusters.length), shape, size, visible, count: 0 };
    const before = structuredClone(details.clusters);
    details.clusters.push(cluster);
    doc = await this.plots.saveClusterTable(doc, details);
    const { before: earlier } = await this.moveKeys(doc, details, before, async (frame, { labels }) => {
      const points = frame === input.frame ? chosen : matchedPoints(source.labels, labels, chosen);
      return points.length ? { points, keys: () => key } : null;
    }, input.frame, source);
    await this.putChanges(doc, originBlob(doc, key), earlier);
    details.madeClusters = [...(details.madeClusters ?? []), key];
    const record: ClusterEditRecord = { id: newEditId(), kind: 'make', cluster: { ...cluster }, index: details.clusters.length - 1, at: new Date().toISOString() };
    doc = await this.plots.saveClusterTable(doc, await this.pushEdit(doc, details, record));
    return { cluster, plot: toPlot(doc, details) };
  }

  /** A made cluster's points return to the clusters they had before it was made (or, were those deleted since, before those). */
  private async deleteNow(id: string, caller: string, key: number): Promise<ClusterKeysChanged> {
    let doc = await this.plots.owned(id, caller);
    const details = await this.plots.details(doc);
    const index = details.clusters.findIndex((c) => c.key === key);
    if (index < 0) throw new ApiError(404, 'not_found', `key: the plot has no cluster ${key}`, 'key');
    if (!details.madeClusters?.includes(key)) {
      throw new ApiError(422, 'not_made', `key: cluster "${details.clusters[index]!.label}" came with the plot; only clusters made from a selection can be deleted (hide it instead)`, 'key');
    }
    const live = new Set(details.clusters.map((c) => c.key));
    const origins = new Map<number, Map<number, Map<number, number>>>(); // cluster → frame → point → earlier key
    const earlierKey = async (cluster: number, frame: number, point: number): Promise<number> => {
      let byFrame = origins.get(cluster);
      if (!byFrame) {
        byFrame = new Map((await this.readChanges(doc, originBlob(doc, cluster))).map((c) => [c.frame, new Map(c.points.map((p, k) => [p, c.keys[k]!]))]));
        origins.set(cluster, byFrame);
      }
      const earlier = byFrame.get(frame)?.get(point);
      if (earlier === undefined) throw new Error(`cluster ${cluster}: no earlier key of point ${point} in frame ${frame}`);
      // A made cluster deleted since: its points went back further, and so does this one.
      return live.has(earlier) || !details.madeClusters!.includes(earlier) ? earlier : earlierKey(earlier, frame, point);
    };
    const deleted = details.clusters[index]!;
    const before = structuredClone(details.clusters);
    const { before: taken, after } = await this.moveKeys(doc, details, before, async (frame, { keys }) => {
      const points: number[] = [];
      keys.forEach((k, i) => { if (k === key) points.push(i); });
      if (!points.length) return null;
      const earlier = await Promise.all(points.map((p) => earlierKey(key, frame, p)));
      return { points, keys: (k) => earlier[k]! };
    });
    details.clusters.splice(index, 1);
    const record: ClusterEditRecord = { id: newEditId(), kind: 'delete', cluster: { ...deleted, count: before[index]!.count }, index, at: new Date().toISOString() };
    await this.putChanges(doc, diffBlob(doc, record.id), taken);
    doc = await this.plots.saveClusterTable(doc, await this.pushEdit(doc, details, record));
    return { plot: toPlot(doc, details), changes: after, ...editsOf(details) };
  }

  /** Takes back the last edit: `input.edit` must name it, so a tab that missed a newer edit cannot undo that one. */
  private async undoNow(id: string, caller: string, input: ClusterUndo): Promise<ClusterKeysChanged> {
    let doc = await this.plots.owned(id, caller);
    const details = await this.plots.details(doc);
    const last = details.clusterEdits?.at(-1);
    if (!last) throw new ApiError(409, 'nothing_to_undo', 'edit: the plot has no cluster edit to undo', 'edit');
    if (last.id !== input.edit) {
      throw new ApiError(409, 'stale_edit', `edit: the last cluster edit is now ${describeEdit(last)} (made elsewhere?); reload the plot to undo it`, 'edit');
    }
    const blob = last.kind === 'make' ? originBlob(doc, last.cluster.key) : diffBlob(doc, last.id);
    const byFrame = new Map((await this.readChanges(doc, blob)).map((c) => [c.frame, c]));
    const before = structuredClone(details.clusters);
    if (last.kind === 'delete') details.clusters.splice(last.index, 0, { ...last.cluster, count: 0 });
    doc = await this.plots.saveClusterTable(doc, details);
    const { after } = await this.moveKeys(doc, details, before, async (frame) => {
      const c = byFrame.get(frame);
      return c ? { points: c.points, keys: (k) => c.keys[k]! } : null;
    });
    if (last.kind === 'make') {
      details.clusters = details.clusters.filter((c) => c.key !== last.cluster.key);
      details.madeClusters = details.madeClusters?.filter((k) => k !== last.cluster.key);
    }
    details.clusterEdits = details.clusterEdits!.slice(0, -1);
    doc = await this.plots.saveClusterTable(doc, details);
    await this.blobs.delete(blob);
    return { plot: toPlot(doc, details), changes: after, ...editsOf(details) };
  }

  /**
   * Rewrites the keys `plan` chooses, frame by frame, with the counts in `details` following.
   * Every step leaves a consistent plot: each frame's key blob is replaced whole (new chunks,
   * then the pointer); the old chunks go after. A failure puts the old keys and `table` back.
   * Returns the moved points' keys before and after.
   */
  private async moveKeys(doc: PlotDoc, details: PlotDetails, table: Cluster[], plan: MovePlan, knownFrame = -1, known?: FrameKeys): Promise<{ before: KeyChange[]; after: KeyChange[] }> {
    const byKey = new Map(details.clusters.map((c) => [c.key, c]));
    const done: { change: KeyChange; replaced: ReplacedBlob | null }[] = [];
    const after: KeyChange[] = [];
    try {
      for (let frame = 0; frame < doc.frames; frame++) {
        const current = frame === knownFrame && known ? known : await this.readFrame(doc, frame);
        const move = await plan(frame, current);
        if (!move) continue;
        const { keys } = current;
        const change: KeyChange = { frame, points: [...move.points], keys: move.points.map((i) => keys[i]!) };
        const next = move.points.map((_, k) => move.keys(k));
        move.points.forEach((i, k) => {
          const from = byKey.get(keys[i]!), to = byKey.get(next[k]!);
          // Their silhouettes were the job's, for the points they had then.
          if (from) {
            from.count--;
            delete from.silhouette;
          }
          if (to) {
            to.count++;
            delete to.silhouette;
          }
          keys[i] = next[k]!;
        });
        const replaced = await this.blobs.replaceBuffer(doc._id, keysBlob(doc, frame), asBytes(keys), BINARY);
        done.push({ change, replaced });
        after.push({ frame, points: change.points, keys: next });
      }
    } catch (err) {
      for (const { change, replaced } of done) {
        const { keys } = await this.readFrame(doc, change.frame);
        change.points.forEach((i, k) => (keys[i] = change.keys[k]!));
        await this.blobs.putBuffer(doc._id, keysBlob(doc, change.frame), asBytes(keys), BINARY);
        if (replaced) await this.blobs.discard(replaced);
      }
      await this.plots.saveClusterTable(doc, { ...details, clusters: table });
      throw err;
    }
    void this.discardAll(done.flatMap((d) => (d.replaced ? [d.replaced] : [])));
    return { before: done.map((d) => d.change), after };
  }

  /** Adds an edit to the undo list; the oldest beyond MAX_UNDO drops out with its blob (a made cluster keeps its origin). */
  private async pushEdit(doc: PlotDoc, details: PlotDetails, record: ClusterEditRecord): Promise<PlotDetails> {
    const edits = [...(details.clusterEdits ?? []), record];
    for (const old of edits.splice(0, Math.max(0, edits.length - MAX_UNDO))) {
      if (old.kind === 'delete') await this.blobs.delete(diffBlob(doc, old.id));
    }
    details.clusterEdits = edits;
    return details;
  }

  private putChanges(doc: PlotDoc, name: string, changes: readonly KeyChange[]): Promise<void> {
    return this.blobs.putBuffer(doc._id, name, encodeChanges(changes), BINARY);
  }

  private async readChanges(doc: PlotDoc, name: string): Promise<KeyChange[]> {
    const info = await this.blobs.find(name);
    if (!info) throw new Error(`plot ${doc._id}: cluster edit blob ${name} is missing`);
    return decodeChanges(await this.blobs.readAll(info));
  }

  /** A frame's keys (a copy: the store's cache shares its buffers) and, in a time series, its labels. */
  private async readFrame(doc: PlotDoc, frame: number): Promise<FrameKeys> {
    const bytes = await this.blobs.readAll(await this.plots.frameBlob(doc, frame, 'clusters'));
    const keys = new Uint32Array(bytes.byteLength / 4);
    new Uint8Array(keys.buffer).set(bytes);
    return { keys, labels: doc.frames > 1 ? await this.plots.labels(doc, frame) : [] };
  }

  /** Old versions' chunks, unreferenced since the switch: a failure here leaves only garbage. */
  private async discardAll(versions: ReplacedBlob[]): Promise<void> {
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

const originBlob = (doc: PlotDoc, key: number) => `${doc._id}/cluster-origins/${key}`;
const diffBlob = (doc: PlotDoc, edit: string) => `${doc._id}/cluster-edits/${edit}`;
const newEditId = () => randomBytes(6).toString('hex');

function describeEdit(e: ClusterEditRecord): string {
  return `${e.kind === 'make' ? 'making' : 'deleting'} "${e.cluster.label}"`;
}

function editsOf(details: PlotDetails): ClusterEdits {
  const edits: ClusterEdit[] = (details.clusterEdits ?? []).map((e) => ({ id: e.id, kind: e.kind, key: e.cluster.key, label: e.cluster.label, at: e.at }));
  const live = new Set(details.clusters.map((c) => c.key));
  return { edits, made: (details.madeClusters ?? []).filter((k) => live.has(k)) };
}

/** The key every chosen point has when they are all the points with it, else null. */
export function sameCluster(keys: Uint32Array, chosen: readonly number[]): number | null {
  const key = keys[chosen[0]!];
  if (key === undefined || chosen.some((i) => keys[i] !== key)) return null;
  let count = 0;
  for (const k of keys) if (k === key) count++;
  return count === chosen.length ? key : null;
}

/** Key changes as Uint32 LE: frame count, then per frame its index, n, n points and n keys. */
export function encodeChanges(changes: readonly KeyChange[]): Uint8Array {
  const words = new Uint32Array(1 + changes.reduce((n, c) => n + 2 + 2 * c.points.length, 0));
  let at = 0;
  words[at++] = changes.length;
  for (const c of changes) {
    words[at++] = c.frame;
    words[at++] = c.points.length;
    words.set(c.points, at);
    words.set(c.keys, at + c.points.length);
    at += 2 * c.points.length;
  }
  return asBytes(words);
}

export function decodeChanges(bytes: Uint8Array): KeyChange[] {
  const words = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(words.buffer).set(bytes);
  const changes: KeyChange[] = [];
  let at = 1;
  for (let f = 0; f < words[0]!; f++) {
    const frame = words[at]!, n = words[at + 1]!;
    at += 2;
    changes.push({ frame, points: [...words.subarray(at, at + n)], keys: [...words.subarray(at + n, at + 2 * n)] });
    at += 2 * n;
  }
  return changes;
}
