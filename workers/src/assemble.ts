// The `assemble` stage: the job type's module builds the plot (ParsedPlot: frames,
// clusters, labels) from the stage outputs, and it is stored through the platform's
// plot ingest, as an upload would be, and linked from the job.
import { JOB_MODULES } from '@wpv/server/jobtypes/index';
import { jobPlotId, type JobDoc } from '@wpv/jobs/model';
import type { Plots } from '@wpv/server/services/plots';
import type { WorkerStage } from './orchestrator.ts';


/** Stores the plot; the orchestrator links it (plotId) when it records the stage's success. */
export function assembleStage(plots: Plots): WorkerStage {
  return { run: (job) => assemble(plots, job) };
}

/** The plot's warnings (DA-PWC's, of a clustering job) are recorded with the stage and shown as the job's. */
async function assemble(plots: Plots, job: JobDoc): Promise<{ plotId: string; warnings: string[] }> {
  const parsed = await JOB_MODULES[job.type].toPlot(job);
  const points = parsed.frames[0]?.labels.length ?? 0;
  const plot = await plots.ingestParsed(job.owner, parsed, {
    name: job.name,
    description: `${job.type} job ${job._id}: ${parsed.frames.length > 1 ? `${parsed.frames.length} frames, ` : ''}${points} points, ${parsed.clusters.length} clusters`,
    visibility: 'private',
    tags: ['job', job.type],
  }, { format: 'pviz', originalName: `${job.name}.pviz` }, jobPlotId(job._id));
  return { plotId: plot.id, warnings: parsed.warnings };
}
