// The command line of each MPI stage, per issue 3's contract of swg, damds and dapwc.
// The bridge runs it as given (under mpirun or sbatch), so it stays program-agnostic.
import path from 'node:path';
import type { JobConfig } from '@wpv/jobs/config';
import type { JobDoc, StageCommand, StageName } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';

/** Where the distance matrix of a job lives and how to read it. */
function matrixOf(job: JobDoc): { file: string; bigEndian: boolean } {
  if (job.type === 'distance-matrix') {
    return { file: path.join(job.workdir, job.input.file), bigEndian: job.params.byteOrder === 'big' };
  }
  return { file: path.join(job.workdir, FILES.matrix), bigEndian: false };
}

export function stageCommand(job: JobDoc, stage: StageName, config: JobConfig): StageCommand {
  const p = job.params as Record<string, any>;
  const bin = (program: string) => path.join(config.kernelsDir, program);
  const at = (file: string) => path.join(job.workdir, file);
  const optional = (flag: string, value: unknown) => (value === undefined ? [] : [flag, String(value)]);
  const layout = { ranks: p.ranks ?? 1, threads: p.threads ?? 1, timeLimitSeconds: config.stageTimeLimitSeconds };
  const matrix = matrixOf(job);
  const points = String(job.input.points);
  const endian = matrix.bigEndian ? ['--big-endian'] : [];
  switch (stage) {
    case 'swg':
      return {
        ...layout,
        argv: [
          bin('swg'),
          '--input', at(job.input.file),
          '--output', at(FILES.matrix),
          '--alphabet', String(p.alphabet),
          ...optional('--matrix', p.scoringMatrix),
          ...optional('--gap-open', p.gapOpen),
          ...optional('--gap-extend', p.gapExtend),
        ],
        outputs: [FILES.matrix, FILES.swgLabels],
      };
    case 'mds':
      return {
        ...layout,
        argv: [
          bin('damds'),
          '--distances', matrix.file,
          '--points', points,
          '--output', at(FILES.points),
          '--dim', String(p.dimension ?? 3),
          ...(job.input.weights ? ['--weights', at(job.input.weights.file)] : []),
          ...optional('--seed', p.seed),
          ...endian,
        ],
        outputs: [FILES.points],
      };
    case 'pwc':
      return {
        ...layout,
        argv: [
          bin('dapwc'),
          '--distances', matrix.file,
          '--points', points,
          '--output', at(FILES.clusters),
          '--max-clusters', String(p.maxClusters ?? 8),
          ...endian,
        ],
        outputs: [FILES.clusters],
      };
    default:
      throw new Error(`stage ${stage} is not an MPI program`);
  }
}
