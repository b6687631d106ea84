// The registry: every job type's module by its API name. TypeScript holds it to the
// contract map of @wpv/schema (JOB_TYPES), so a type cannot be half-registered.
import type { JobType } from '@wpv/schema';
import { distanceMatrix } from './distance-matrix.ts';
import type { JobTypeModule } from './module.ts';
import { recluster } from './recluster.ts';
import { sequenceClustering } from './sequence-clustering.ts';
import { stockTimeseries } from './stock-timeseries.ts';
import { vectors } from './vectors.ts';

export const JOB_MODULES: Record<JobType, JobTypeModule> = {
  'sequence-clustering': sequenceClustering,
  'distance-matrix': distanceMatrix,
  vectors,
  'stock-timeseries': stockTimeseries,
  recluster,
};

export type { JobTypeModule } from './module.ts';
