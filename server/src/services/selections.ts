// Named selections of a plot's points. Each is one blob of the plot, `<plot>/selections/<name>`,
// holding the frame's selection bitset (selectionMask.ts: ceil(points / 8) bytes, whatever was
// sent); its frame, point count and size ride in the blob's media-type parameters, so listing
// reads no data. Being plot blobs, they go when the plot is deleted.
import {
  decodeSelectionMask, encodeSelectionMask, SelectionMaskError, type Selection, type SelectionInfo, type SelectionInput,
} from '@wpv/schema';
import type { z } from 'zod';
import { ApiError, notFound } from '../http/errors.ts';
import type { BlobInfo, BlobStore } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';
import type { Plots } from './plots.ts';

/** Saved selections per plot: each is at most a few hundred kB, and the list is read whole. */
export const MAX_SELECTIONS = 100;
const MEDIA_TYPE = 'application/x-wpv-selection';

interface Stored {
  info: BlobInfo;
  frame: number;
  points: number;
  count: number;
}

export class Selections {
  constructor(
    private readonly plots: Plots,
    private readonly blobs: BlobStore,
  ) {}

  async list(doc: PlotDoc): Promise<SelectionInfo[]> {
    const infos = await this.blobs.withPrefix(doc._id, blobName(doc._id, ''));
    return infos.map((info) => toInfo(parse(info))).sort((a, b) => (a.name < b.name ? -1 : 1)); // code-point order: the same everywhere
  }

  async get(doc: PlotDoc, name: string, encoding: 'indices' | 'mask'): Promise<Selection> {
    const stored = await this.find(doc, name);
    if (!stored) throw notFound('selection');
    const mask = (await this.blobs.readAll(stored.info)).toString('base64');
    return { ...toInfo(stored), ...(encoding === 'mask' ? { mask } : { indices: decodeSelectionMask(mask, stored.points) }) };
  }

  /** Stores the selection (replacing one of that name); `created` tells whether it is new. */
  put(doc: PlotDoc, name: string, input: z.output<typeof SelectionInput>): Promise<{ selection: SelectionInfo; created: boolean }> {
    // One edit per plot at a time, so two new selections cannot both pass the count cap.
    return this.plots.oneEditAtATime(doc._id, async () => {
      if (!(await this.plots.stillStored(doc._id))) throw notFound();
      if (input.frame >= doc.frames) throw new ApiError(400, 'bad_request', `frame: the plot has ${doc.frames} frame(s)`, 'frame');
      const points = (await this.plots.frameBlob(doc, input.frame, 'positions')).length / 12;
      const { mask, count } = toMask(input, points);
      const existing = await this.find(doc, name);
      if (!existing && (await this.list(doc)).length >= MAX_SELECTIONS) {
        throw new ApiError(422, 'too_many_selections', `the plot has ${MAX_SELECTIONS} selections, the most allowed; delete one first`, 'name');
      }
      const type = `${MEDIA_TYPE}; frame=${input.frame}; points=${points}; count=${count}`;
      await this.blobs.putBuffer(doc._id, blobName(doc._id, name), mask, type);
      const stored = await this.find(doc, name);
      return { selection: toInfo(stored!), created: !existing };
    });
  }

  delete(doc: PlotDoc, name: string): Promise<void> {
    return this.plots.oneEditAtATime(doc._id, async () => {
      if (!(await this.blobs.delete(blobName(doc._id, name)))) throw notFound('selection');
    });
  }

  private async find(doc: PlotDoc, name: string): Promise<Stored | null> {
    const info = await this.blobs.find(blobName(doc._id, name));
    return info && parse(info);
  }
}

const blobName = (plotId: string, name: string) => `${plotId}/selections/${name}`;

function parse(info: BlobInfo): Stored {
  const param = (key: string) => Number(new RegExp(`;\\s*${key}=(\\d+)`).exec(info.contentType)?.[1]);
  return { info, frame: param('frame'), points: param('points'), count: param('count') };
}

function toInfo({ info, frame, count }: Stored): SelectionInfo {
  return { name: info._id.slice(blobName(info.plotId, '').length), frame, count, updatedAt: info.uploadedAt.toISOString() };
}

/** The bitset of a request's points, checked against the frame's `points`; 400 names the field at fault. */
function toMask({ indices, mask, frame }: z.output<typeof SelectionInput>, points: number): { mask: Buffer; count: number } {
  if (indices) {
    const outside = indices.find((i) => i >= points);
    if (outside !== undefined) {
      throw new ApiError(400, 'bad_request', `indices: index ${outside} is out of range (frame ${frame} has ${points} points)`, 'indices');
    }
    return { mask: Buffer.from(encodeSelectionMask(indices, points), 'base64'), count: indices.length };
  }
  try {
    // The schema lets through exactly one of indices and mask.
    return { mask: Buffer.from(mask!, 'base64'), count: decodeSelectionMask(mask!, points).length };
  } catch (err) {
    throw err instanceof SelectionMaskError ? new ApiError(400, 'bad_request', `mask: ${err.message} (frame ${frame})`, 'mask') : err;
  }
}
