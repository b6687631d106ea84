// The `assemble` stage: the job type's module builds the plot (ParsedPlot: frames,
// clusters, labels) from the stage outputs, and it is stored through the platform's
// plot ingest, as an upload would be, and linked from the job.
import { stat } from 'node:fs/promises';
import { JOB_MODULES } from '@wpv/server/jobtypes/index';
import { ApiError } from '@wpv/server/http/errors';
import { jobPlotId, type JobDoc } from '@wpv/jobs/model';
import type { Plots } from '@wpv/server/services/plots';
import type { WorkerStage } from './orchestrator.ts';


/**
 * Stores the plot; the orchestrator links it (plotId) when it records the stage's success. A
 * cancel seen before the plot is ready abandons the ingest (nothing stays stored, as for an
 * upload whose client went); one that won the race to record the stage's end removes the plot.
 */
export function assembleStage(plots: Plots): WorkerStage {
  return {
    run: (job, signal) => assemble(plots, job, signal),
    discard: async (job) => {
      try {
        await plots.delete(jobPlotId(job._id), job.owner);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err; // none was made ready
      }
      await plots.removalsDone();
    },
  };
}

/** The plot's warnings (DA-PWC's, of a clustering job) are recorded with the stage and shown as the job's. */
async function assemble(plots: Plots, job: JobDoc, signal: AbortSignal): Promise<{ plotId: string; warnings: string[] }> {
  const parsed = await JOB_MODULES[job.type].toPlot(job);
  signal.throwIfAborted();
  const points = parsed.frames[0]?.labels.length ?? 0;
  // The matrix stays as long as the plot, for re-clustering: the owner's storage quota counts it.
  const matrix = JOB_MODULES[job.type].matrix?.(job).file;
  const keptBytes = matrix ? await stat(matrix).then((s) => s.size, () => 0) : 0;
  const plot = await plots.ingestParsed(job.owner, parsed, {
    name: job.name,
    description: `${job.type} job ${job._id}: ${parsed.frames.length > 1 ? `${parsed.frames.length} frames, ` : ''}${points} points, ${parsed.clusters.length} clusters`,
    visibility: 'private',
    tags: ['job', job.type],
  }, { format: 'pviz', originalName: `${job.name}.pviz`, keptBytes }, jobPlotId(job._id), signal);
  return { plotId: plot.id, warnings: parsed.warnings };
}
