// What a job type is on the server: its contract (params, file parts, stage graph;
// JOB_TYPES in @wpv/schema) plus the behaviour. A new job type is one contract entry,
// one module like this (registered in ./index.ts) and, where needed, one program.
import type { JobConfig } from '@wpv/jobs/config';
import type { JobDoc, StageCommand } from '@wpv/jobs/model';
import type { JobTypeContract } from '@wpv/schema';
import type { ParsedPlot } from '../formats/types.ts';
import type { Matrix } from './commands.ts';

export interface InputCheck {
  /** The uploaded input and extra file parts, by part name, as temporary files. */
  file: string;
  parts: Record<string, string>;
  /** Parsed params: a check may complete them (a detected alphabet); the job stores them as left. */
  params: Record<string, any>;
  config: JobConfig;
  /** Frames a plot may have (MAX_FRAMES): the job's plot must fit, as an uploaded one must. */
  maxFrames: number;
  /** The job's directory, where a check may leave what it read for the stages (its type's checkOutputs); removed when the check fails. */
  workdir: string;
}

export interface JobTypeModule {
  contract: JobTypeContract;
  /** The input's file name in the job directory. */
  inputName: string;
  /** Rejects a bad input before anything is queued (InputError/ApiError, 4xx); returns its number of points. */
  checkInput(check: InputCheck): Promise<number>;
  /** Files checkInput leaves in the job directory: a retry links them with the input. */
  checkOutputs?: string[];
  /**
   * Worker stages of this type by stage name (run by the workers; `assemble` is every type's, and
   * `toPlot` its part). `signal` aborts when the job is cancelled: stop, leaving no partial output.
   */
  workerStages?: Record<string, (job: JobDoc, signal: AbortSignal) => Promise<Record<string, unknown>>>;
  /**
   * The distance matrix its points can be re-clustered from (POST /plots/{id}/recluster). A
   * succeeded job keeps it until its plot is deleted.
   */
  matrix?: (job: JobDoc) => Matrix;
  /** Files of the job directory a succeeded job no longer needs: JOB_CLEANUP removes them (input, outputs and logs stay). */
  intermediates?: string[];
  /** The command line of an MPI stage (runner "hpc") of this type. */
  command(job: JobDoc, stage: string, config: JobConfig): StageCommand;
  /** The finished job's plot, handed to ingest as it is (frames, clusters, labels). */
  toPlot(job: JobDoc): Promise<ParsedPlot>;
}
