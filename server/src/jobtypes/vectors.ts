// vectors: CSV feature vectors → distances (a worker stage: workers/src/distances.ts
// writes the matrix and labels.txt) → damds ∥ dapwc → plot labelled by the label column.
import { FILES } from '@wpv/jobs/workdir';
import { JOB_TYPES } from '@wpv/schema';
import { mdsOrPwc, ownMatrix } from './commands.ts';
import { checkVectors } from './inputs.ts';
import { labelsFile, mdsPlot } from './mdsPlot.ts';
import type { JobTypeModule } from './module.ts';

export const vectors: JobTypeModule = {
  contract: JOB_TYPES.vectors,
  inputName: 'input.csv',
  async checkInput({ file, params, config }) {
    return (await checkVectors(file, params.header, params.labelColumn, config.maxVectorRows)).rows;
  },
  // The plot cannot be re-clustered from a vectors job (no `matrix`): its distances go once it succeeded.
  intermediates: [FILES.matrix],
  command: (job, stage, config) => mdsOrPwc(job, stage, config, ownMatrix(job)),
  toPlot: async (job) => mdsPlot(job, await labelsFile(job, FILES.labels)),
};
