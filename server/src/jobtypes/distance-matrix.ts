// distance-matrix: a SPIDAL int16 N×N matrix (and optional weights of the same shape)
// → damds ∥ dapwc → plot labelled by params.labels or the point index.
import path from 'node:path';
import { JOB_TYPES } from '@wpv/schema';
import { mdsOrPwc } from './commands.ts';
import { checkMatrix } from './inputs.ts';
import { mdsPlot } from './mdsPlot.ts';
import type { JobTypeModule } from './module.ts';

export const distanceMatrix: JobTypeModule = {
  contract: JOB_TYPES['distance-matrix'],
  inputName: 'input.bin',
  async checkInput({ file, parts, params, config }) {
    await checkMatrix(file, params.points, config.maxPoints, params.byteOrder, params.labels, parts.weights);
    return params.points;
  },
  command: (job, stage, config) =>
    mdsOrPwc(job, stage, config, { file: path.join(job.workdir, job.input.file), bigEndian: job.params.byteOrder === 'big' }),
  toPlot: (job) => mdsPlot(job, (job.params.labels as string[] | undefined) ?? Array.from({ length: job.input.points }, (_, i) => String(i))),
};
