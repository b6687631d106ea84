// distance-matrix: a SPIDAL int16 N×N matrix (and optional weights of the same shape)
// → damds ∥ dapwc → plot labelled by params.labels or the point index. Beyond
// params.sampleSize points: sample (cut) → damds ∥ dapwc on the sample → interp → plot.
import path from 'node:path';
import { JOB_TYPES } from '@wpv/schema';
import type { JobDoc } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { mdsOrPwc, type Matrix } from './commands.ts';
import { checkMatrix } from './inputs.ts';
import { SAMPLE_INTERMEDIATES, cutSample, interpCommand, interpolatedColumn } from './interpolation.ts';
import { mdsPlot } from './mdsPlot.ts';
import type { JobTypeModule } from './module.ts';

const matrix = (job: JobDoc): Matrix => ({ file: path.join(job.workdir, job.input.file), bigEndian: job.params.byteOrder === 'big' });

export const distanceMatrix: JobTypeModule = {
  contract: JOB_TYPES['distance-matrix'],
  inputName: 'input.bin',
  async checkInput({ file, parts, params, config }) {
    await checkMatrix(file, params.points, config.maxPoints, params.byteOrder, params.labels, parts.weights);
    return params.points;
  },
  matrix,
  intermediates: SAMPLE_INTERMEDIATES,
  workerStages: { sample: (job, signal) => cutSample(job, matrix(job), signal) },
  command: (job, stage, config) => {
    if (stage === 'interp') return interpCommand(job, config);
    const sampled = job.input.sample !== undefined;
    return mdsOrPwc(job, stage, config, sampled ? { file: path.join(job.workdir, FILES.sampleMatrix), bigEndian: false } : matrix(job));
  },
  toPlot: (job) => mdsPlot(job, (job.params.labels as string[] | undefined) ?? Array.from({ length: job.input.points }, (_, i) => String(i))),
};
