// Each user's storage quota (USER_STORAGE_BYTES): the bytes of their plots' blobs as stored.
// An upload is held to it before its body is read (its declared length), while it streams (its
// file part's limit) and once parsed (what storing it takes, before anything is written). Then the
// new plot's document holds that many bytes, and the quota is checked again with it counted:
// of uploads made together that each fit alone, those over the quota together are refused (under
// contention possibly all of them: each counts the others it finds; the quota is never exceeded). A
// job that will keep a distance matrix for re-clustering (2·N² bytes, as long as its plot) holds
// that much from submission until it ends, the same way (its active entry, then the check), and
// its plot counts once stored; between the two, for the moment the job takes to end, both do.
// Other files of job directories (inputs, logs, stage outputs until JOB_CLEANUP) are not counted.
import type { Collection } from 'mongodb';
import type { ActiveJob } from '@wpv/jobs/model';
import { keptBytesOfActiveJobs } from '@wpv/jobs/repository';
import { ApiError, humanBytes } from '../http/errors.ts';
import type { PlotDoc } from '../storage/documents.ts';

/** Positions (3 × float32) and cluster keys (uint32) per point: most of a plot stored before its bytes were counted. */
const BYTES_PER_POINT = 16;

export class StorageQuota {
  constructor(
    private readonly plots: Collection<PlotDoc>,
    readonly limitBytes: number,
    private readonly activeJobs: Collection<ActiveJob>,
  ) {}

  /**
   * The bytes the user's plots take, any state (a half-written one's blobs are stored too) but being
   * deleted, and the matrices their queued and running jobs will keep.
   */
  async used(owner: string): Promise<number> {
    const [docs, jobs] = await Promise.all([
      this.plots.find({ owner, deleting: { $ne: true } }, { projection: { storedBytes: 1, points: 1, frames: 1 } }).toArray(),
      keptBytesOfActiveJobs(this.activeJobs, owner),
    ]);
    return docs.reduce((sum, doc) => sum + (doc.storedBytes ?? doc.points * doc.frames * BYTES_PER_POINT), jobs);
  }

  /** The bytes the user may still store. */
  async room(owner: string): Promise<number> {
    return Math.max(0, this.limitBytes - (await this.used(owner)));
  }

  /**
   * How much of a multipart upload of `owner` to take, before its body is read: its file parts up to
   * `maxBytes` or the room left, whichever is less, with the error for a part over the room (for
   * receiveUpload); a declared length (`Content-Length`, `slack` above the files' for the form) over the room is refused at once.
   */
  async uploadLimit(owner: string, declared: number, maxBytes: number, slack: number): Promise<{ maxBytes: number; overLimit?: (part: string) => ApiError }> {
    const room = await this.room(owner);
    if (declared > room + slack) throw this.exceeded('the upload', room, declared);
    if (room >= maxBytes) return { maxBytes };
    return { maxBytes: room, overLimit: (part) => this.exceeded(`the ${part} part`, room, undefined, part) };
  }

  /**
   * Throws the 413 when what the user stores, `reservedBytes` for `what` (a plot being stored, a job's
   * kept matrix) among it, takes more than the quota.
   */
  async holds(owner: string, reservedBytes: number, what = 'storing this plot'): Promise<void> {
    const used = await this.used(owner);
    if (used > this.limitBytes) throw this.exceeded(what, Math.max(0, this.limitBytes - (used - reservedBytes)), reservedBytes);
  }

  /** A 413 naming `field`: `what` needs `needed` bytes (when known) where `room` are left. */
  exceeded(what: string, room: number, needed?: number, field = 'file'): ApiError {
    const takes = needed === undefined ? 'is over' : `takes ${humanBytes(needed)}, over`;
    return new ApiError(413, 'quota_exceeded',
      `${what} ${takes} the ${humanBytes(room)} left of your ${humanBytes(this.limitBytes)} storage quota (USER_STORAGE_BYTES); delete some plots to make room`, field);
  }
}
