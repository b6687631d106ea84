// Command lines of the MPI programs that several job types share (issue 3's contract
// of damds and dapwc). The bridge runs a command as given (under mpirun or sbatch),
// so it stays program-agnostic.
import path from 'node:path';
import { DEFAULT_MAX_CLUSTERS } from '@wpv/schema';
import type { JobConfig } from '@wpv/jobs/config';
import type { JobDoc, StageCommand } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { analysisFiles } from './interpolation.ts';

/** A job's distance matrix: where it is and how to read it. */
export interface Matrix {
  file: string;
  bigEndian: boolean;
}

/** The matrix a job's own stage wrote (swg, the vectors' distances, a re-clustering's cut). */
export const ownMatrix = (job: JobDoc): Matrix => ({ file: path.join(job.workdir, FILES.matrix), bigEndian: false });

export const optional = (flag: string, value: unknown) => (value === undefined ? [] : [flag, String(value)]);

/** The parts every command shares: the program's path, the job's MPI layout and time limit, and the memory per rank (the programs that stream a matrix beyond it take `memory`). */
export function launch(job: JobDoc, config: JobConfig, program: string) {
  const p = job.params as { ranks?: number; threads?: number; nodes?: number };
  return {
    bin: path.join(config.kernelsDir, program),
    memory: optional('--memory-limit', config.memoryPerRank),
    layout: { ranks: p.ranks ?? 1, threads: p.threads ?? 1, nodes: p.nodes ?? 1, timeLimitSeconds: config.stageTimeLimitSeconds },
    at: (file: string) => path.join(job.workdir, file),
  };
}

/** The stages "mds" (DA-MDS points) and "pwc" (DA-PWC clusters) on a job's matrix (its sample's, when it interpolates). */
export function mdsOrPwc(job: JobDoc, stage: string, config: JobConfig, matrix: Matrix): StageCommand {
  if (stage !== 'mds' && stage !== 'pwc') throw new Error(`stage ${stage} of a ${job.type} job is not an MPI program`);
  const p = job.params as Record<string, any>;
  const files = analysisFiles(job);
  const { bin, layout, at, memory } = launch(job, config, stage === 'mds' ? 'damds' : 'dapwc');
  const own =
    stage === 'mds'
      ? {
          output: files.mdsOutput,
          options: ['--dim', String(p.dimension ?? 3), ...(files.weights ? ['--weights', at(files.weights)] : []), ...optional('--seed', p.seed)],
          outputs: [files.mdsOutput],
        }
      : {
          output: files.pwcOutput,
          options: ['--centers', at(files.centers), '--silhouettes', at(files.silhouettes),
            '--max-clusters', String(p.maxClusters ?? DEFAULT_MAX_CLUSTERS), ...optional('--min-cluster-size', p.minClusterSize)],
          outputs: [files.pwcOutput, files.centers, files.silhouettes],
        };
  return {
    ...layout,
    // Both programs read the matrix and write their output alike (issue 3's contract); then their own options.
    argv: [bin, '--distances', matrix.file, '--points', String(files.points), '--output', at(own.output), ...own.options, ...memory, ...(matrix.bigEndian ? ['--big-endian'] : [])],
    outputs: own.outputs,
  };
}
