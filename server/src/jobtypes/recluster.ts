// recluster (SPIDAL's multistage DA-PWC): some rows of a clustering job's plot → `cut`
// (those rows and columns of the parent job's distance matrix, no realignment) →
// damds ∥ dapwc → a plot labelled as the parent's points were, linked to its parent.
// Started by POST /plots/{id}/recluster (services/recluster.ts), which writes the input:
// "row<TAB>label" per line, rows ascending.
import path from 'node:path';
import type { JobDoc } from '@wpv/jobs/model';
import { FILES } from '@wpv/jobs/workdir';
import { JOB_TYPES } from '@wpv/schema';
import { ApiError } from '../http/errors.ts';
import { mdsOrPwc, ownMatrix, type Matrix } from './commands.ts';
import { lines } from './inputs.ts';
import { cutMatrix } from './matrixCut.ts';
import { mdsPlot } from './mdsPlot.ts';
import type { JobTypeModule } from './module.ts';

export const RECLUSTER_INPUT = 'rows.tsv';

/** The rows and labels of a recluster job's input. */
export async function readRows(file: string): Promise<{ rows: number[]; labels: string[] }> {
  const rows: number[] = [];
  const labels: string[] = [];
  for await (const [raw] of lines(file)) {
    if (!raw) continue;
    const tab = raw.indexOf('\t');
    rows.push(Number(raw.slice(0, tab)));
    labels.push(raw.slice(tab + 1));
  }
  return { rows, labels };
}

/** The parent's matrix, beside the child's directory (every job's directory is one of JOB_DIR's). */
const parentMatrix = (job: JobDoc): Matrix => ({
  file: path.join(path.dirname(job.workdir), String(job.params.parentJob), String(job.params.parentMatrix)),
  bigEndian: job.params.byteOrder === 'big',
});

async function cut(job: JobDoc, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { rows } = await readRows(path.join(job.workdir, job.input.file));
  await cutMatrix(parentMatrix(job), rows, path.join(job.workdir, FILES.matrix), rows, signal);
  return {};
}

export const recluster: JobTypeModule = {
  contract: JOB_TYPES.recluster,
  inputName: RECLUSTER_INPUT,
  checkInput() {
    throw new ApiError(400, 'bad_request', `start a re-clustering with ${JOB_TYPES.recluster.startedBy}`, 'type');
  },
  workerStages: { cut },
  matrix: ownMatrix,
  command: (job, stage, config) => mdsOrPwc(job, stage, config, ownMatrix(job)),
  toPlot: async (job) => ({ ...(await mdsPlot(job, (await readRows(path.join(job.workdir, job.input.file))).labels)), parent: String(job.params.parentPlot) }),
};
