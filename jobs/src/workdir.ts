// Layout of a job's staging directory on the shared path:
//   <jobsDir>/<jobId>/input.<ext>       the upload (and weights.bin, a distance-matrix job's weights)
//   <jobsDir>/<jobId>/dist.bin, ...     stage outputs (FILES)
//   <jobsDir>/<jobId>/stages/<stage>/   stdout, stderr, launch.json, exit.json of one stage
import { open, stat } from 'node:fs/promises';
import path from 'node:path';

export const FILES = {
  matrix: 'dist.bin',
  /** swg writes the sequence ids beside its matrix. */
  swgLabels: 'dist.bin.labels',
  labels: 'labels.txt',
  points: 'points.txt',
  clusters: 'clusters.txt',
  /** dapwc --centers: "label count medoid" per cluster (medoid = input row). */
  centers: 'centers.txt',
  /** dapwc --silhouettes: "index silhouette" per point. */
  silhouettes: 'silhouettes.txt',
  /** An interpolating job (issue 18): the sample's input rows, its matrix, the out-of-sample × sample block and the sample's own DA-MDS/DA-PWC outputs. */
  sampleRows: 'sample.txt',
  sampleMatrix: 'sample.bin',
  sampleWeights: 'sample-weights.bin',
  block: 'block.bin',
  /** A sequence-clustering job's sample and out-of-sample records (FASTA). */
  sampleFasta: 'sample.fasta',
  restFasta: 'rest.fasta',
  samplePoints: 'sample-points.txt',
  sampleClusters: 'sample-clusters.txt',
  sampleCenters: 'sample-centers.txt',
  sampleSilhouettes: 'sample-silhouettes.txt',
} as const;

export const STAGE_FILES = {
  stdout: 'stdout',
  stderr: 'stderr',
  /** Written by run-stage.sh when it starts: {pid, slurmJobId, startedAt}. */
  launch: 'launch.json',
  /** Written by run-stage.sh when the program ends: {exitCode, runSeconds, cpuSeconds, peakMemoryKb}. */
  exit: 'exit.json',
} as const;

/** File name of an extra file part of a job (the distance-matrix job's "weights"); the input's name is its type module's. */
export const partName = (part: string) => `${part}.bin`;

export const stageDir = (workdir: string, stage: string) => path.join(workdir, 'stages', stage);

/** The last `bytes` bytes of a file as text ('' when it does not exist), cut to whole lines. */
export async function tailOf(file: string, bytes: number): Promise<string> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return '';
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

export const exists = (file: string) => stat(file).then(() => true, () => false);
