// The job store as the API reads it. A job's record and events never change (@wpv/jobs/repository),
// so that its plot was deleted is read from the plots instead: a job's plot id is its own
// (jobPlotId) and never stored again, so a succeeded job whose plot is not ready has lost it.
import type { JobDoc } from '@wpv/jobs/model';
import { JobRepo } from '@wpv/jobs/repository';
import type { Store } from './db.ts';

/** A job with whether the plot it made is gone (only read for a job that made one). */
export type ShownJobDoc = JobDoc & { plotDeleted?: boolean };

export class JobReads extends JobRepo {
  constructor(private readonly store: Store) {
    super(store);
  }

  /** Every read of a job (a list, one job, the events stream's polls) comes through here. */
  override async get(id: string): Promise<ShownJobDoc | null> {
    const job = await super.get(id);
    if (!job?.plotId) return job;
    const ready = await this.store.plots.countDocuments({ _id: job.plotId, state: 'ready' }, { limit: 1 });
    return { ...job, plotDeleted: ready === 0 };
  }
}
