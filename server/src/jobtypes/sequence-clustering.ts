// sequence-clustering: FASTA → swg (all-pairs SWG distances) → damds ∥ dapwc → plot
// labelled by sequence id.
import path from 'node:path';
import { FILES } from '@wpv/jobs/workdir';
import { JOB_TYPES } from '@wpv/schema';
import { launch, mdsOrPwc, optional, ownMatrix } from './commands.ts';
import { checkFasta, fastaDescriptions } from './inputs.ts';
import { labelsFile, mdsPlot } from './mdsPlot.ts';
import type { JobTypeModule } from './module.ts';

export const sequenceClustering: JobTypeModule = {
  contract: JOB_TYPES['sequence-clustering'],
  inputName: 'input.fasta',
  async checkInput({ file, params, config }) {
    const fasta = await checkFasta(file, params.alphabet, config);
    params.alphabet = fasta.alphabet; // the programs get the detected alphabet
    return fasta.sequences;
  },
  matrix: ownMatrix,
  command(job, stage, config) {
    if (stage !== 'swg') return mdsOrPwc(job, stage, config, ownMatrix(job));
    const p = job.params as Record<string, any>;
    const { bin, layout, at } = launch(job, config, 'swg');
    return {
      ...layout,
      argv: [
        bin,
        '--input', at(job.input.file),
        '--output', at(FILES.matrix),
        '--alphabet', String(p.alphabet),
        '--distance', String(p.distance),
        ...optional('--matrix', p.scoringMatrix),
        ...optional('--gap-open', p.gapOpen),
        ...optional('--gap-extend', p.gapExtend),
      ],
      outputs: [FILES.matrix, FILES.swgLabels],
    };
  },
  // swg writes the sequence ids beside its matrix; the headers' descriptions become the "description" column.
  toPlot: async (job) => {
    const descriptions = await fastaDescriptions(path.join(job.workdir, job.input.file));
    const columns = descriptions.some(Boolean) ? new Map([['description', descriptions]]) : undefined;
    return mdsPlot(job, await labelsFile(job, FILES.swgLabels), columns);
  },
};
