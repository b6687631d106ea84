// Plot ingest, access rules and metadata. A plot becomes visible only once every
// blob is stored; a failed ingest removes what it wrote.
import {
  categoricalColor,
  clusterNameKey,
  clusterNamed,
  columnArray,
  columnText,
  nameFrom,
  sortKey,
  type BoundingBox,
  type Cluster,
  type Plot,
  type PlotCreated,
  type PlotPage,
  type PlotPatch,
  type PlotQuery,
  type PlotSummary,
  type Visibility,
} from '@wpv/schema';
import type { Filter } from 'mongodb';
import { ApiError, notFound } from '../http/errors.ts';
import { parseFile, sniffFormat } from '../formats/index.ts';
import { encodeColumns, type EncodedColumns } from '../formats/columns.ts';
import type { FormatName, ParseLimits, ParsedPlot } from '../formats/types.ts';
import type { Config } from '../config.ts';
import { columnBlobName, frameBlobName, plotBlobName, type BlobStore, type FrameBlobKind } from '../storage/blobs.ts';
import type { Store } from '../storage/db.ts';
import { newId } from '../storage/ids.ts';
import { PlotLinks } from '../storage/plot-links.ts';
import { StorageQuota } from './storage-quota.ts';
import { foldedPattern } from './text-keys.ts';
import { drawThumbnail } from './thumbnails.ts';
import { Recent } from '../storage/recent.ts';
import type { PlotDetails, PlotDoc } from '../storage/documents.ts';

export interface UploadedFile {
  path: string;
  originalName: string;
  bytes?: number;
}

export interface PlotFields {
  name?: string;
  description: string;
  visibility: Visibility;
  collection?: string;
  tags: string[];
}

// Every request for a plot's data first reads its document (access rules, frame count): remembered
// this long, so 50 readers of one plot cost the store one lookup a second, not one each. Writes in
// this process forget it at once (a plot made private is private for the next request); another API
// process sees a change after at most this long.
const PLOT_CACHE_MS = 1_000;
/** Frame blobs written per insertMany while a plot is stored (a few MB: far fewer round trips, bounded memory). */
const BLOB_BATCH_BYTES = 8 << 20;

const SORTS: Record<PlotQuery['sort'], Record<string, 1 | -1>> = {
  updated: { updatedAt: -1 },
  created: { createdAt: -1 },
  name: { sortName: 1 },
  points: { points: -1 },
  size: { storedBytes: -1 },
};

export class Plots {
  private readonly blobs: BlobStore;
  /** Each user's storage quota, which uploads are held to. */
  readonly quota: StorageQuota;
  private readonly links: PlotLinks;
  /** What an upload's parse is held to (MAX_POINTS, MAX_FRAMES, archive sizes). */
  readonly parseLimits: ParseLimits;
  /** Deleted plots whose data is being removed (see delete). */
  private readonly removals = new Set<Promise<void>>();
  /** The detail edit in progress per plot (see oneEditAtATime). */
  private readonly editing = new Map<string, Promise<unknown>>();
  /** Ready plot documents by id; shared by every request, so never mutated. */
  private readonly recent = new Recent<PlotDoc>(PLOT_CACHE_MS);

  constructor(
    private readonly store: Store,
    private readonly limits: Config['limits'],
  ) {
    this.blobs = store.blobs;
    this.links = new PlotLinks(store.plotLinks);
    this.quota = new StorageQuota(store.plots, limits.userStorageBytes, store.jobActive);
    this.parseLimits = {
      maxPoints: limits.points,
      maxFrames: limits.frames,
      maxUncompressedBytes: limits.uncompressedBytes,
      maxCompressionRatio: limits.compressionRatio,
    };
  }

  /** An uploaded file as a new plot; `signal`: the upload is abandoned when it aborts (untilClientGone). */
  async ingest(owner: string, file: UploadedFile, fields: PlotFields, signal?: AbortSignal): Promise<PlotCreated> {
    const format = await sniffFormat(file.path, file.originalName);
    const parsed = await parseFile(file.path, file.originalName, this.parseLimits, signal);
    // A lower bound of what storing it takes (positions and cluster keys, and the file itself), before anything is written.
    const needed = (file.bytes ?? 0) + parsed.frames.reduce((sum, frame) => sum + frame.clusterKeys.length * 16, 0);
    const room = await this.quota.room(owner);
    if (needed > room) throw this.quota.exceeded('storing this plot', room, needed);
    return this.ingestParsed(owner, parsed, fields, { format, originalName: file.originalName, file, reserveBytes: needed }, undefined, signal);
  }

  /**
   * Stores a plot already parsed (an upload, or a job's result built in memory: no file
   * to write and read back). `source.file`, when there is one, is kept as the original.
   * `id`: a plot id chosen by the caller (a job's plot), which makes the ingest idempotent: a ready
   * plot of that id is returned as it is, the leftover of an ingest cut short is removed first.
   * `signal`: when it aborts before the plot is ready, what was stored is removed and its reason thrown.
   * `reserveBytes` (an upload): counted against the owner's quota from the moment the plot exists,
   * then replaced by what its blobs take; if the owner's plots then take more than the quota
   * (uploads made together), it is refused and removed. `keptBytes` (a job's plot): the bytes of the
   * job's files kept as long as the plot (its distance matrix), counted with its blobs.
   */
  async ingestParsed(
    owner: string,
    parsed: ParsedPlot,
    fields: PlotFields,
    { format, originalName, file, reserveBytes, keptBytes = 0 }: { format: FormatName; originalName: string; file?: UploadedFile; reserveBytes?: number; keptBytes?: number },
    id?: string,
    signal?: AbortSignal,
  ): Promise<PlotCreated> {
    signal?.throwIfAborted();
    if (id) {
      const existing = await this.store.plots.findOne({ _id: id });
      if (existing?.state === 'ready') return { ...toPlot(existing, await this.details(existing)), warnings: [] };
      if (existing) await this.remove(id);
    }
    if (fields.collection) await this.requireOwnCollection(owner, fields.collection);
    if (parsed.clusters.length > this.limits.clusters) {
      throw new ApiError(422, 'too_many_clusters', `${parsed.clusters.length} clusters; at most ${this.limits.clusters} are allowed`);
    }
    const columns = encodeColumns(parsed.frames, { maxColumns: this.limits.columns, maxCategories: this.limits.columnCategories });
    const clusters = clusterTable(parsed);
    const thumbnail = firstFrameThumbnail(parsed, clusters);
    const now = new Date();
    const name = fields.name || nameFrom(parsed.title || originalName) || 'untitled';
    const doc: PlotDoc = {
      _id: id ?? newId(16),
      state: 'ingesting',
      name,
      sortName: sortKey(name),
      description: fields.description,
      owner,
      visibility: fields.visibility,
      collection: fields.collection ?? null,
      tags: uniqueTags(fields.tags),
      createdAt: now,
      updatedAt: now,
      format,
      originalName,
      frames: parsed.frames.length,
      points: Math.max(...parsed.frames.map((f) => f.clusterKeys.length)),
      clusterCount: parsed.clusters.length,
      bbox: boundingBox(parsed),
      hasThumbnail: thumbnail !== null,
      thumbnailDrawn: thumbnail !== null,
      ...(parsed.display && { display: parsed.display }),
      ...(parsed.parent && { parent: parsed.parent }),
      ...(reserveBytes !== undefined && { storedBytes: reserveBytes }),
    };
    const details: PlotDetails = {
      clusters,
      frameList: parsed.frames.map((f, index) => ({ index, title: f.title, points: f.clusterKeys.length, edges: f.edges.length })),
      views: {},
      columns: columns.columns,
    };
    const detailsJson = this.detailsJson(details);
    await this.store.plots.insertOne(doc);
    try {
      await this.blobs.startPlot(doc._id); // first: a plot removed before it would be looked for blob by blob
      if (reserveBytes !== undefined) await this.quota.holds(owner, reserveBytes);
      await this.store.plotDetails.insertOne({ _id: doc._id, json: detailsJson });
      const storedBytes = keptBytes + (await this.storeBlobs(doc._id, parsed, columns, thumbnail, file));
      if (reserveBytes !== undefined) {
        // The reservation was a lower bound: held to the quota again with what the plot takes.
        await this.store.plots.updateOne({ _id: doc._id }, { $set: { storedBytes } });
        await this.quota.holds(owner, storedBytes);
      }
      signal?.throwIfAborted(); // the last moment to abandon: the plot is visible once ready
      await this.store.plots.updateOne({ _id: doc._id }, { $set: { state: 'ready', storedBytes } });
      this.recent.delete(doc._id);
      if (doc.parent) await this.links.add(doc.parent, doc._id);
    } catch (err) {
      await this.remove(doc._id);
      throw err;
    }
    const warnings = [...parsed.warnings];
    if (doc.collection && !(await this.keptInCollection(doc._id, owner, doc.collection))) {
      warnings.push(`the collection ${doc.collection} was deleted during the upload; the plot is in no collection`);
      doc.collection = null;
    }
    return { ...toPlot({ ...doc, state: 'ready' }, details), warnings };
  }

  /** Writes the new plot's blobs; the bytes they take (the storage quota's count). */
  private async storeBlobs(plotId: string, parsed: ParsedPlot, columns: EncodedColumns, thumbnail: Buffer | null, file?: UploadedFile): Promise<number> {
    // The plot is new (ingestParsed removed any leftover): its frames' blobs go in batches of a few MB.
    let batch: { name: string; data: Uint8Array; contentType: string }[] = [];
    let batchBytes = 0;
    let storedBytes = 0;
    const add = (name: string, data: Uint8Array, contentType: string) => {
      batch.push({ name, data, contentType });
      batchBytes += data.byteLength;
      storedBytes += data.byteLength;
    };
    if (thumbnail) add(plotBlobName(plotId, 'thumbnail'), thumbnail, 'image/png');
    for (const [index, frame] of parsed.frames.entries()) {
      const put = (kind: FrameBlobKind, data: Uint8Array, type: string) => add(frameBlobName(plotId, index, kind), data, type);
      put('positions', toLittleEndianBytes(frame.positions), 'application/octet-stream');
      put('clusters', toLittleEndianBytes(frame.clusterKeys), 'application/octet-stream');
      put('labels', Buffer.from(JSON.stringify(frame.labels)), 'application/json');
      put('edges', Buffer.from(JSON.stringify(frame.edges)), 'application/json');
      for (const [column, data] of columns.frames[index]!.entries()) add(columnBlobName(plotId, index, column), data, 'application/octet-stream');
      if (batchBytes >= BLOB_BATCH_BYTES || index === parsed.frames.length - 1) {
        await this.blobs.putNew(plotId, batch);
        batch = [];
        batchBytes = 0;
      }
    }
    if (file) storedBytes += await this.blobs.putFile(plotId, plotBlobName(plotId, 'original'), file.path, 'application/octet-stream');
    return storedBytes;
  }

  /** A plot the caller may read; private plots of others are indistinguishable from missing ones. */
  async readable(id: string, caller: string | null): Promise<PlotDoc> {
    const doc = await this.recent.get(id, () => this.store.plots.findOne({ _id: id, state: 'ready' }));
    if (!doc || (doc.visibility !== 'public' && doc.owner !== caller)) throw notFound();
    return doc;
  }

  /**
   * Plots stored before links had documents of their own listed their re-clusterings in a
   * `children` array: each moves to links once (at start-up); the number of plots moved.
   */
  async moveChildLists(): Promise<number> {
    const listing = { children: { $exists: true } } as Filter<PlotDoc>;
    const old = (await this.store.plots.find(listing, { projection: { children: 1 } }).toArray()) as unknown as { _id: string; children: string[] }[];
    for (const { _id, children } of old) {
      const linked = new Set(await this.links.children(_id));
      for (const child of children.filter((id) => !linked.has(id))) await this.links.add(_id, child);
      await this.store.plots.updateOne({ _id }, { $unset: { children: '' } } as object);
      this.recent.delete(_id);
    }
    return old.length;
  }

  /**
   * Plots whose stored sort key is not the one the current rule (sortKey) gives, or that have none
   * (stored before names had one), get theirs, at start-up; the number of plots given a new one.
   */
  async refreshSortNames(): Promise<number> {
    const all = await this.store.plots.find({}, { projection: { name: 1, sortName: 1 } }).toArray();
    const stale = all.filter((doc) => doc.sortName !== sortKey(doc.name));
    for (const { _id } of stale) {
      // One of the plot's edits, reading the name then: a rename in this process meanwhile sets its own.
      await this.oneEditAtATime(_id, async () => {
        const doc = await this.store.plots.findOne({ _id }, { projection: { name: 1 } });
        if (doc) await this.store.plots.updateOne({ _id }, { $set: { sortName: sortKey(doc.name) } });
      });
      this.recent.delete(_id);
    }
    return stale.length;
  }

  /** The re-clusterings of a plot that the caller may read, oldest first. */
  async visibleChildren(doc: PlotDoc, caller: string | null): Promise<string[]> {
    const children = await this.links.children(doc._id);
    const visible = await Promise.all(children.map((id) => this.mayRead(id, caller)));
    return children.filter((_, i) => visible[i]);
  }

  /** The plot a re-clustering was made from, if the caller may read it (it may be private, or deleted). */
  async visibleParent(doc: PlotDoc, caller: string | null): Promise<string | undefined> {
    return doc.parent && (await this.mayRead(doc.parent, caller)) ? doc.parent : undefined;
  }

  private mayRead(id: string, caller: string | null): Promise<boolean> {
    return this.readable(id, caller).then(() => true, () => false);
  }

  isPublic(id: string): Promise<boolean> {
    return this.mayRead(id, null);
  }

  async details(doc: PlotDoc): Promise<PlotDetails> {
    const details = await this.store.plotDetails.findOne({ _id: doc._id });
    if (!details) throw notFound();
    return JSON.parse(details.json);
  }

  private async saveDetails(id: string, details: PlotDetails): Promise<void> {
    await this.store.plotDetails.updateOne({ _id: id }, { $set: { json: this.detailsJson(details) } });
  }

  /** The stored form of the details, which must stay under the store's 16 MB document limit. */
  private detailsJson(details: PlotDetails): string {
    const json = JSON.stringify(details);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.detailsBytes) {
      throw new ApiError(413, 'too_large', `the plot's cluster table and saved views would take ${bytes} bytes; at most ${this.limits.detailsBytes} are allowed (delete some views)`);
    }
    return json;
  }

  /** Stores a changed cluster table (new clusters, new counts); the plot counts as updated. */
  async saveClusterTable(doc: PlotDoc, details: PlotDetails): Promise<PlotDoc> {
    await this.saveDetails(doc._id, details);
    const set = { clusterCount: details.clusters.length, updatedAt: new Date() };
    await this.store.plots.updateOne({ _id: doc._id }, { $set: set });
    this.recent.delete(doc._id);
    return { ...doc, ...set };
  }

  async owned(id: string, caller: string): Promise<PlotDoc> {
    const doc = await this.readable(id, caller);
    if (doc.owner !== caller) throw new ApiError(403, 'forbidden', 'only the owner can change this plot');
    return doc;
  }

  async list(query: PlotQuery, caller: string | null): Promise<PlotPage> {
    const filter: Filter<PlotDoc> = { state: 'ready' };
    const visible: Filter<PlotDoc>[] =
      query.scope === 'mine' ? [{ owner: caller ?? '\0nobody' }]
      : query.scope === 'public' || !caller ? [{ visibility: 'public' }]
      : [{ owner: caller }, { visibility: 'public' }];
    const and: Filter<PlotDoc>[] = [{ $or: visible }];
    if (query.q) {
      const pattern = { $regex: foldedPattern(query.q), $options: 'i' };
      and.push({ $or: [{ name: pattern }, { description: pattern }, { tags: pattern }] });
    }
    if (query.tag) filter.tags = query.tag;
    if (query.collection) filter.collection = query.collection;
    if (query.owner) filter.owner = query.owner;
    filter.$and = and;
    const [total, docs] = await Promise.all([
      this.store.plots.countDocuments(filter),
      this.store.plots
        .find(filter)
        .sort({ ...SORTS[query.sort], _id: 1 })
        .skip((query.page - 1) * query.pageSize)
        .limit(query.pageSize)
        .toArray(),
    ]);
    return { items: docs.map(toSummary), page: query.page, pageSize: query.pageSize, total };
  }

  /**
   * Runs the edits of one plot one after another. The details are one JSON document read,
   * changed and written back, and FerretDB does not isolate concurrent updates of a document
   * (it reads, changes and writes it back too): two overlapping edits (a rename and a saved
   * view, or the thumbnail's flag) would lose one.
   * One API process serialises its own edits; compose runs one.
   */
  oneEditAtATime<T>(id: string, work: () => Promise<T>): Promise<T> {
    const next = (this.editing.get(id) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.editing.set(id, next);
    const forget = () => {
      if (this.editing.get(id) === next) this.editing.delete(id);
    };
    next.then(forget, forget);
    return next;
  }

  patch(id: string, caller: string, patch: PlotPatch): Promise<Plot> {
    return this.oneEditAtATime(id, () => this.patchNow(id, caller, patch));
  }

  private async patchNow(id: string, caller: string, patch: PlotPatch): Promise<Plot> {
    const doc = await this.owned(id, caller);
    const details = await this.details(doc);
    const { clusters: clusterEdits, tags, collection, ...simple } = patch;
    const set: Partial<PlotDoc> = { ...simple, updatedAt: new Date() };
    if (simple.name !== undefined) set.sortName = sortKey(simple.name);
    if (tags) set.tags = uniqueTags(tags);
    if (collection !== undefined) {
      if (collection !== null) await this.requireOwnCollection(caller, collection);
      set.collection = collection;
    }
    if (clusterEdits) {
      const byKey = new Map(details.clusters.map((c) => [c.key, c]));
      const renamed: { index: number; cluster: Cluster }[] = [];
      for (const [index, { key, ...edit }] of clusterEdits.entries()) {
        const cluster = byKey.get(key);
        if (!cluster) throw new ApiError(400, 'bad_request', `no cluster with key ${key}`, 'clusters');
        if (edit.label !== undefined && clusterNameKey(edit.label) !== clusterNameKey(cluster.label)) renamed.push({ index, cluster });
        Object.assign(cluster, edit);
      }
      // Checked against the table as the whole patch leaves it, so two clusters may swap names.
      for (const { index, cluster } of renamed) {
        const other = clusterNamed(details.clusters, cluster.label, cluster.key);
        if (other) throw clusterNameTaken(`clusters.${index}.label`, other);
      }
      await this.saveDetails(id, details);
    }
    await this.store.plots.updateOne({ _id: id }, { $set: set });
    // The rest of the patch stands; the plot shows that it is in no collection.
    if (set.collection && !(await this.keptInCollection(id, caller, set.collection))) set.collection = null;
    this.recent.delete(id);
    return toPlot({ ...doc, ...set }, details);
  }

  /**
   * Deletes the plot: hidden at once, its data removed after the answer, as one of the plot's edits:
   * an edit under way (a thumbnail or selection being stored) finishes first and its blobs go too;
   * a later one finds the plot gone (stillStored). A removal cut short is finished at start-up (sweepAbandoned).
   */
  async delete(id: string, caller: string): Promise<void> {
    await this.owned(id, caller);
    await this.hide(id);
    const removal = this.oneEditAtATime(id, () => this.removeData(id))
      .catch((err) => console.error(`plots: removing the data of deleted plot ${id} stopped; the next start-up finishes it`, err));
    this.removals.add(removal);
    void removal.finally(() => this.removals.delete(removal));
  }

  /** Resolves once the data of every plot deleted so far is removed (tests; a clean stop). */
  async removalsDone(): Promise<void> {
    while (this.removals.size) await Promise.all(this.removals);
  }

  private async remove(id: string): Promise<void> {
    await this.hide(id);
    await this.removeData(id);
  }

  /**
   * Whether the plot is still there to edit, asked inside one of its edits before it stores a blob:
   * once a plot is being deleted its removal may have listed its blobs already, and a blob stored
   * after that would be left behind.
   */
  async stillStored(id: string): Promise<boolean> {
    return (await this.store.plots.findOne({ _id: id }, { projection: { state: 1 } }))?.state === 'ready';
  }

  /**
   * A half-deleted plot is never served: it is `ingesting` before any of its data goes; its re-clustering
   * links go with it. It no longer counts against the quota (`deleting`): a delete makes room at once.
   */
  private async hide(id: string): Promise<void> {
    await this.store.plots.updateOne({ _id: id }, { $set: { state: 'ingesting', deleting: true } });
    this.recent.delete(id);
    await this.links.removeAll(id); // its re-clusterings keep their `parent`: a deleted one is not shown
  }

  private async removeData(id: string): Promise<void> {
    await this.blobs.deletePlot(id);
    await this.store.plotDetails.deleteOne({ _id: id });
    await this.store.plots.deleteOne({ _id: id });
  }

  /** Finishes removals and ingests cut short by a crash (older than `ageMs`). */
  async sweepAbandoned(ageMs: number): Promise<number> {
    const stale = await this.store.plots
      .find({ state: 'ingesting', createdAt: { $lt: new Date(Date.now() - ageMs) } }, { projection: { _id: 1 } })
      .toArray();
    for (const { _id } of stale) await this.remove(_id);
    return stale.length;
  }

  async frameBlob(doc: PlotDoc, frame: number, kind: FrameBlobKind) {
    if (!Number.isInteger(frame) || frame < 0 || frame >= doc.frames) throw notFound('frame');
    const file = await this.blobs.find(frameBlobName(doc._id, frame, kind));
    if (!file) throw notFound('frame data');
    return file;
  }

  /** A metadata column's values in a frame (`column`: its index in the plot's column list). */
  async columnBlob(doc: PlotDoc, frame: number, column: number) {
    if (!Number.isInteger(frame) || frame < 0 || frame >= doc.frames) throw notFound('frame');
    const file = Number.isInteger(column) && column >= 0 ? await this.blobs.find(columnBlobName(doc._id, frame, column)) : null;
    if (!file) throw notFound('column');
    return file;
  }

  async labels(doc: PlotDoc, frame: number): Promise<string[]> {
    return JSON.parse((await this.blobs.readAll(await this.frameBlob(doc, frame, 'labels'))).toString('utf8'));
  }

  /**
   * The points of a frame whose text contains `needle` (lower case), as a test per point index:
   * with `column` (a metadata column's name) its values only, else the labels and every category column.
   */
  async searchFrame(doc: PlotDoc, frame: number, needle: string, column?: string): Promise<{ points: number; matches: (i: number) => boolean }> {
    const columns = (await this.details(doc)).columns ?? [];
    const searched = column === undefined ? columns.filter((c) => c.kind === 'category') : columns.filter((c) => c.name === column);
    if (column !== undefined && searched.length === 0) throw new ApiError(400, 'bad_request', `no metadata column named ${JSON.stringify(column)}`, 'column');
    const tests: ((i: number) => boolean)[] = [];
    let points = 0;
    if (column === undefined) {
      const labels = await this.labels(doc, frame);
      points = labels.length;
      tests.push((i) => labels[i]!.toLowerCase().includes(needle));
    }
    for (const c of searched) {
      const n = columns.indexOf(c);
      const bytes = await this.blobs.readAll(await this.columnBlob(doc, frame, n));
      const data = columnArray(c, new Uint8Array(bytes).buffer);
      points = data.length;
      if (c.kind === 'number') tests.push((i) => columnText(c, data, i).toLowerCase().includes(needle));
      else {
        const hit = (c.categories ?? []).map((text) => text.toLowerCase().includes(needle));
        tests.push((i) => hit[data[i]!]!);
      }
    }
    return { points, matches: (i) => tests.some((test) => test(i)) };
  }

  /** Saves (or with `view` undefined deletes) a named view; whether the name existed before. */
  setView(doc: PlotDoc, name: string, view: unknown | undefined): Promise<boolean> {
    return this.oneEditAtATime(doc._id, async () => {
      const details = await this.details(doc);
      // A Map, not the object: a view named "__proto__" assigned to an object would set its prototype.
      const views = new Map(Object.entries(details.views));
      const existed = views.has(name);
      if (view === undefined) views.delete(name);
      else {
        if (!existed && views.size >= this.limits.views) {
          throw new ApiError(422, 'too_many_views', `this plot has ${views.size} saved views, the most allowed; delete one first`, 'name');
        }
        views.set(name, view);
      }
      details.views = Object.fromEntries(views);
      if (view !== undefined || existed) await this.saveDetails(doc._id, details);
      return existed;
    });
  }

  /** A deleted collection's plot leaves it: one of the plot's edits, so a rename at that moment keeps both. */
  async leaveCollection(id: string, collection: string): Promise<void> {
    await this.oneEditAtATime(id, () => this.store.plots.updateOne({ _id: id, collection }, { $set: { collection: null } }));
    this.recent.delete(id);
  }

  /**
   * `drawn`: drawn on the server rather than sent from the viewer; stored only while the plot has
   * none, as the owner's view may have come while it was drawn. Whether it was stored.
   */
  async setThumbnail(doc: PlotDoc, png: Buffer, { drawn }: { drawn: boolean }): Promise<boolean> {
    // One of the plot's edits: beside a rename, FerretDB would keep only one of the two.
    const stored = await this.oneEditAtATime(doc._id, async () => {
      const now = await this.store.plots.findOne({ _id: doc._id }, { projection: { state: 1, hasThumbnail: 1 } });
      if (now?.state !== 'ready' || (drawn && now.hasThumbnail)) return false; // deleted meanwhile (see stillStored), or the owner's view came
      await this.blobs.putBuffer(doc._id, plotBlobName(doc._id, 'thumbnail'), png, 'image/png');
      await this.store.plots.updateOne({ _id: doc._id }, { $set: { hasThumbnail: true, thumbnailDrawn: drawn } });
      return true;
    });
    this.recent.delete(doc._id);
    return stored;
  }

  /** Up to `limit` ready plots without a thumbnail, in _id order after `after`. */
  withoutThumbnail(after: string, limit: number): Promise<PlotDoc[]> {
    return this.store.plots.find({ state: 'ready', hasThumbnail: { $ne: true }, _id: { $gt: after } }).sort({ _id: 1 }).limit(limit).toArray();
  }

  private async requireOwnCollection(owner: string, id: string): Promise<void> {
    if (!(await this.ownsCollection(owner, id))) throw new ApiError(400, 'bad_request', `no collection ${id} of yours`, 'collection');
  }

  private async ownsCollection(owner: string, id: string): Promise<boolean> {
    return (await this.store.collections.countDocuments({ _id: id, owner }, { limit: 1 })) > 0;
  }

  /**
   * Checks again, after a plot was written into a collection, that the collection is still
   * there, and takes the plot out if not: a delete between the first check and the write found
   * its members before the plot was one, and left it naming a collection that is gone.
   */
  private async keptInCollection(id: string, owner: string, collection: string): Promise<boolean> {
    if (await this.ownsCollection(owner, collection)) return true;
    await this.store.plots.updateOne({ _id: id, collection }, { $set: { collection: null } });
    this.recent.delete(id);
    return false;
  }
}

/**
 * A rename or a new cluster giving a name another cluster of the plot has: 409 naming `field`. Names
 * an upload brought twice stay (SPIDAL files have such clusters), but no edit adds another.
 */
export function clusterNameTaken(field: string, other: Pick<Cluster, 'key' | 'label'>): ApiError {
  return new ApiError(409, 'conflict', `${field}: another cluster (key ${other.key}) is already named ${JSON.stringify(other.label)}; pick a name no other cluster has`, field);
}

/**
 * The library thumbnail of a new plot, drawn from its first frame while it is stored, so plots nobody
 * has opened yet (a job's) show one too; before the plot is ready, so no viewer's thumbnail can be
 * overwritten. A plot that cannot be drawn is stored without one: the owner's first view becomes it.
 */
function firstFrameThumbnail(parsed: ParsedPlot, clusters: Cluster[]): Buffer | null {
  const frame = parsed.frames[0];
  if (!frame) return null;
  try {
    return drawThumbnail(frame.positions, frame.clusterKeys, clusters);
  } catch (err) {
    console.error('plots: the thumbnail could not be drawn; the plot is stored without one', err);
    return null;
  }
}

function clusterTable(parsed: ParsedPlot): Cluster[] {
  const counts = new Map<number, number>();
  for (const frame of parsed.frames) {
    for (const key of frame.clusterKeys) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return parsed.clusters.map((c, index) => ({
    key: c.key,
    label: c.label,
    color: c.color ?? categoricalColor(index),
    shape: c.shape,
    size: c.size,
    visible: c.visible,
    count: counts.get(c.key) ?? 0,
    ...(c.centre !== undefined && { centre: c.centre }),
    ...(c.silhouette !== undefined && { silhouette: c.silhouette }),
  }));
}

function boundingBox(parsed: ParsedPlot): BoundingBox {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const { positions } of parsed.frames) {
    for (let i = 0; i < positions.length; i += 3) {
      for (let axis = 0; axis < 3; axis++) {
        const v = positions[i + axis]!;
        if (v < min[axis]!) min[axis] = v;
        if (v > max[axis]!) max[axis] = v;
      }
    }
  }
  return min[0] === Infinity ? { min: [0, 0, 0], max: [0, 0, 0] } : { min, max };
}

/** The API's binary format is little-endian, as is every host this runs on (main.ts checks). */
const toLittleEndianBytes = (array: Float32Array | Uint32Array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength);

const uniqueTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()).filter(Boolean))];

export function toPlot(doc: PlotDoc, { clusters, frameList, views, columns = [] }: PlotDetails): Plot {
  const { clusterCount: _count, ...summary } = toSummary(doc);
  return { ...summary, ...(doc.parent && { parent: doc.parent }), clusters, frameList, views, columns };
}

/** A plot in a list: its links (parent, re-clusterings) are the full plot's, checked against the caller. */
function toSummary(doc: PlotDoc): PlotSummary {
  const { _id, state: _state, sortName: _sortName, createdAt, updatedAt, parent: _parent, ...rest } = doc;
  return { id: _id, ...rest, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() };
}
