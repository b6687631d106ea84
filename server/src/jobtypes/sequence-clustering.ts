// sequence-clustering: FASTA → swg (all-pairs SWG distances) → damds ∥ dapwc → plot
// labelled by sequence id. Beyond params.sampleSize sequences: sample → swg on the sample ∥
// align (the rest against the sample) → damds ∥ dapwc on the sample → interp → plot.
import path from 'node:path';
import { FILES } from '@wpv/jobs/workdir';
import { JOB_TYPES } from '@wpv/schema';
import { launch, mdsOrPwc, optional, ownMatrix } from './commands.ts';
import { checkFasta, fastaDescriptions } from './inputs.ts';
import { SAMPLE_INTERMEDIATES, interpCommand, splitFasta } from './interpolation.ts';
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
  intermediates: SAMPLE_INTERMEDIATES,
  workerStages: { sample: splitFasta },
  command(job, stage, config) {
    // Interpolating (input.sample): swg aligns the sample all-pairs into its own matrix, `align` the rest against it.
    const sampled = job.input.sample !== undefined;
    const matrixFile = sampled ? FILES.sampleMatrix : FILES.matrix;
    if (stage === 'interp') return interpCommand(job, config);
    if (stage !== 'swg' && stage !== 'align') return mdsOrPwc(job, stage, config, { file: path.join(job.workdir, matrixFile), bigEndian: false });
    const p = job.params as Record<string, any>;
    const { bin, layout, at } = launch(job, config, 'swg');
    const output = stage === 'align' ? FILES.block : matrixFile;
    return {
      ...layout,
      argv: [
        bin,
        '--input', at(sampled ? FILES.sampleFasta : job.input.file),
        ...(stage === 'align' ? ['--query', at(FILES.restFasta)] : []),
        '--output', at(output),
        '--alphabet', String(p.alphabet),
        '--distance', String(p.distance),
        ...optional('--matrix', p.scoringMatrix),
        ...optional('--gap-open', p.gapOpen),
        ...optional('--gap-extend', p.gapExtend),
      ],
      outputs: [output, `${output}.labels`],
    };
  },
  // swg writes the sequence ids beside its matrix; the headers' descriptions become the "description" column.
  toPlot: async (job) => {
    const descriptions = await fastaDescriptions(path.join(job.workdir, job.input.file));
    const columns = descriptions.some(Boolean) ? new Map([['description', descriptions]]) : undefined;
    return mdsPlot(job, await labelsFile(job, job.input.sample !== undefined ? FILES.labels : FILES.swgLabels), columns);
  },
};
