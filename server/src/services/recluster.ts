// Re-clustering some points of a clustering job's plot (SPIDAL's multistage DA-PWC): resolves
// the request's points to rows of the parent job's distance matrix and starts a `recluster`
// job on them (jobtypes/recluster.ts). The parent's matrix outlives the job for this
// (JOB_CLEANUP spares it) and goes when the parent's plot is deleted.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { plotJobId, type JobDoc } from '@wpv/jobs/model';
import { exists } from '@wpv/jobs/workdir';
import { DEFAULT_MAX_CLUSTERS, decodeSelectionMask, NAME_MAX, SelectionMaskError, type ReclusterRequest } from '@wpv/schema';
import { ApiError } from '../http/errors.ts';
import { JOB_MODULES } from '../jobtypes/index.ts';
import { RECLUSTER_INPUT } from '../jobtypes/recluster.ts';
import type { BlobStore } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';
import type { Jobs } from './jobs.ts';
import type { Plots } from './plots.ts';
import type { Selections } from './selections.ts';

/** Fewer points give DA-PWC nothing to split. */
export const MIN_RECLUSTER_POINTS = 4;

export class Reclusterer {
  constructor(
    private readonly plots: Plots,
    private readonly blobs: BlobStore,
    private readonly selections: Selections,
    private readonly jobs: Jobs,
  ) {}

  /** Starts the job (owner only: 404/403 as for other writes); its id. */
  async start(plotId: string, caller: string, request: ReclusterRequest): Promise<{ id: string }> {
    const doc = await this.plots.owned(plotId, caller);
    const parent = await this.parentJob(doc);
    const matrix = JOB_MODULES[parent.type].matrix!(parent);
    if (!(await exists(matrix.file))) {
      if (parent.input.sample !== undefined) {
        throw new ApiError(422, 'not_reclusterable', `job ${parent._id} interpolated its ${parent.input.points} points from a sample of ${parent.input.sample}: there is no full distance matrix to cut; run a sequence-clustering job on these sequences instead`);
      }
      throw new ApiError(409, 'matrix_gone', `the distance matrix of job ${parent._id}, which made this plot, is no longer kept; run the job again to re-cluster its points`);
    }
    const rows = await this.rows(doc, request);
    if (rows.length < MIN_RECLUSTER_POINTS) {
      throw new ApiError(422, 'too_few_points', `${rows.length} point(s) chosen; re-clustering needs at least ${MIN_RECLUSTER_POINTS}`, fieldOf(request));
    }
    const labels = await this.plots.labels(doc, 0);
    const p = parent.params as Record<string, unknown>;
    const params = {
      dimension: p.dimension ?? 3,
      maxClusters: request.maxClusters ?? p.maxClusters ?? DEFAULT_MAX_CLUSTERS,
      ...(p.seed !== undefined && { seed: p.seed }),
      ranks: p.ranks ?? 1,
      ...(p.threads !== undefined && { threads: p.threads }),
      parentPlot: doc._id,
      parentJob: parent._id,
      parentMatrix: path.relative(parent.workdir, matrix.file),
      byteOrder: matrix.bigEndian ? 'big' : 'little',
    };
    const chosen = await this.chosen(doc, request);
    const name = request.name ?? reclusterName(doc.name, chosen ? `${chosen} (${rows.length} points)` : `${rows.length} points`);
    return this.jobs.start(caller, 'recluster', name, params, async (workdir) => {
      // Labels are one line each: a line break inside one would split its row.
      const text = rows.map((r) => `${r}\t${labels[r]!.replace(/[\r\n]+/g, ' ')}\n`).join('');
      await writeFile(path.join(workdir, RECLUSTER_INPUT), text);
      // The input is the parent plot; the job page adds its point count.
      return { originalName: doc.name, bytes: Buffer.byteLength(text), file: RECLUSTER_INPUT, points: rows.length };
    });
  }

  /** A deleted plot's job no longer needs its matrix (kept for re-clustering until now). */
  async dropMatrix(plotId: string): Promise<void> {
    const jobId = plotJobId(plotId);
    const job = jobId && (await this.jobs.repo.get(jobId));
    const matrix = job && job.plotId === plotId && JOB_MODULES[job.type].matrix?.(job);
    if (matrix) await rm(matrix.file, { force: true });
  }

  /** The succeeded job of a type with a matrix that made the plot; 422 for any other plot. */
  private async parentJob(doc: PlotDoc): Promise<JobDoc> {
    const jobId = plotJobId(doc._id);
    const job = jobId ? await this.jobs.repo.get(jobId) : null;
    if (!job || job.plotId !== doc._id || job.owner !== doc.owner) {
      throw new ApiError(422, 'not_reclusterable', 'only the plot of a clustering job (sequence-clustering, distance-matrix or recluster) can be re-clustered; this one was uploaded');
    }
    if (!JOB_MODULES[job.type].matrix) {
      const types = Object.entries(JOB_MODULES).filter(([, m]) => m.matrix).map(([t]) => t).join(', ');
      throw new ApiError(422, 'not_reclusterable', `a ${job.type} job's plot cannot be re-clustered (its matrix is not kept); only ${types} plots can`);
    }
    return job;
  }

  /** The cluster the request chose, for the child's name: by its label (the owner may have named it); null for other requests. */
  private async chosen(doc: PlotDoc, request: ReclusterRequest): Promise<string | null> {
    if (request.cluster === undefined) return null;
    const cluster = (await this.plots.details(doc)).clusters.find((c) => c.key === request.cluster);
    return cluster?.label.trim() || `cluster ${request.cluster}`;
  }

  /** The request's points as ascending rows of frame 0 (= rows of the parent's matrix); 400 names the field at fault. */
  private async rows(doc: PlotDoc, request: ReclusterRequest): Promise<number[]> {
    const n = doc.points;
    if (request.cluster !== undefined) {
      const bytes = await this.blobs.readAll(await this.plots.frameBlob(doc, 0, 'clusters'));
      const keys = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      const rows: number[] = [];
      keys.forEach((key, i) => key === request.cluster && rows.push(i));
      if (rows.length === 0) throw new ApiError(400, 'bad_request', `cluster: no point is in cluster ${request.cluster}`, 'cluster');
      return rows;
    }
    if (request.points) {
      const outside = request.points.find((i) => i >= n);
      if (outside !== undefined) throw new ApiError(400, 'bad_request', `points: index ${outside} is out of range (the plot has ${n} points)`, 'points');
      return [...new Set(request.points)].sort((a, b) => a - b);
    }
    if (request.selection !== undefined) return (await this.selections.get(doc, request.selection, 'indices')).indices!;
    try {
      return decodeSelectionMask(request.mask!, n);
    } catch (err) {
      throw err instanceof SelectionMaskError ? new ApiError(400, 'bad_request', `mask: ${err.message}`, 'mask') : err;
    }
  }
}

const fieldOf = (r: ReclusterRequest) => (['cluster', 'points', 'selection', 'mask'] as const).find((f) => r[f] !== undefined)!;

/**
 * "<parent>: <what> re-clustered", within the NAME_MAX characters a name may have (a longer one
 * could not be saved back from the plot's editor): the parent's name is shortened first.
 */
export function reclusterName(parent: string, what: string): string {
  const suffix = `: ${what} re-clustered`;
  const room = NAME_MAX - suffix.length;
  if (parent.length <= room) return parent + suffix;
  if (room > 1) return `${parent.slice(0, room - 1)}…${suffix}`;
  return `${(parent + suffix).slice(0, NAME_MAX - 1)}…`;
}
