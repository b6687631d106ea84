// What each analytics job type promises its users, in one place that the browser can
// load too: its parameters (zod: validation, OpenAPI's per-type params, the submit
// form's fields and help), its file parts and its stage graph. The server's module of
// each type (server/src/jobtypes/) adds the behaviour: input check, stage commands and
// the plot. The enums of types and stage names are derived from this map.
import { z } from 'zod';
import { Name } from './names.ts';

/** Who runs a stage: the workers (in Node) or the hpc-bridge (an MPI program). */
export type StageRunner = 'worker' | 'hpc';

/** What each stage does, in the words a user would use (the program names are jargon); the
 * job page and the Python client show these, and the API serves them with each stage. */
const STAGE_TITLES = {
  distances: 'Computing distances',
  cut: 'Cutting out the points\' distances',
  prepare: 'Reading the prices',
  series: 'Mapping each window to 3D',
  swg: 'Aligning sequences',
  mds: 'Mapping to 3D',
  pwc: 'Clustering',
  // An interpolating job (more points than sampleSize): the sample gets the stages above.
  sample: 'Choosing a sample',
  align: 'Aligning the rest to the sample',
  interp: 'Placing the rest',
  assemble: 'Building the plot',
} as const;
export const stageTitle = (name: string): string => (STAGE_TITLES as Record<string, string>)[name] ?? name;

/**
 * How a stage's work grows with its job's input of N points, S of them a sample (an
 * interpolating job's): N, N², S², or (N − S)·S. A running job's progress weighs each stage by
 * the seconds per unit of work it took in recent jobs, times its own units (@wpv/jobs/timings).
 */
export type StageWork = 'points' | 'pairs' | 'sample pairs' | 'rest × sample';

export interface StageSpec {
  /** A key of STAGE_TITLES, so every stage has a title. */
  name: keyof typeof STAGE_TITLES;
  runner: StageRunner;
  /** Stages whose success this one waits for. */
  needs: readonly string[];
  work: StageWork;
}

export interface FilePart {
  required: boolean;
  /** The browser file picker's filter. */
  accept: string;
  description: string;
}

export interface JobTypeContract<P extends z.ZodObject = z.ZodObject> {
  /** One line: what the job computes from what. */
  summary: string;
  params: P;
  /** Multipart file parts besides the text fields; "file" is the input. */
  files: { file: FilePart } & Record<string, FilePart>;
  /** The stage graph, in display order. */
  stages: readonly StageSpec[];
  /** The graph of a job with more points than its `sampleSize`: a sample gets the full pipeline, the rest is interpolated. */
  interpolatedStages?: readonly StageSpec[];
  /** Jobs of this type are started by this route, not by POST /jobs (which refuses them). */
  startedBy?: string;
}

/**
 * DA-PWC's cap on clusters. Real 16S reads keep splitting down to the cap, and at 8 it merged groups at
 * about 70 % identity that VSEARCH at 80 % keeps apart (ARI 0.56-0.63 against 0.84-0.86 at 20; bench/RESULTS.md);
 * planted families still stop at their own count, below the cap.
 */
export const DEFAULT_MAX_CLUSTERS = 20;

/** Parameters every DA-MDS + DA-PWC job shares: the 3D map, the clustering and the MPI layout. */
const AnalysisParams = z.object({
  dimension: z.number().int().min(2).max(3).default(3).describe('DA-MDS target dimension (2 puts points on z = 0)'),
  maxClusters: z.number().int().min(2).max(100).default(DEFAULT_MAX_CLUSTERS)
    .describe('DA-PWC MaxNcent: most clusters to split into; the job warns ("capped at …") when a cluster was still splitting there'),
  minClusterSize: z.number().int().min(1).max(100_000).optional()
    .describe('DA-PWC drops clusters with fewer points (default N/40, clamped to 2..25); the job warns when it does'),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional().describe('DA-MDS random seed'),
  ranks: z.number().int().min(1).max(64).default(1).describe('MPI ranks per program'),
  threads: z.number().int().min(1).max(64).optional()
    .describe('OpenMP threads per rank (default: the CPUs a program gets on this gateway, split among the ranks and at most one per 1,000 points; every core on a single machine, 1 on a Slurm cluster)'),
  nodes: z.number().int().min(1).max(64).default(1).describe('cluster nodes the ranks are spread over (Slurm backend; at most HPC_MAX_NODES)'),
});

/** DA-MDS and DA-PWC side by side on one distance matrix, then the plot. */
const mdsAndPwc = (after: string[]): StageSpec[] => [
  { name: 'mds', runner: 'hpc', needs: after, work: 'pairs' },
  { name: 'pwc', runner: 'hpc', needs: after, work: 'pairs' },
  { name: 'assemble', runner: 'worker', needs: ['mds', 'pwc'], work: 'points' },
];

/**
 * Interpolation for large inputs (MI-MDS, issue 18): with more points than sampleSize, a
 * seeded random sample of sampleSize points gets DA-MDS and DA-PWC, and every other point
 * is placed from its distances to the sample (kernels/interp/README.md).
 */
const InterpolationParams = {
  sampleSize: z.number().int().min(10).max(10_000_000).default(4000)
    .describe('with more points than this, a random sample of this many (seeded by seed) gets the full pipeline and the others are interpolated from their k nearest sample points (MI-MDS); at or below it nothing changes'),
  k: z.number().int().min(1).max(100).default(10)
    .describe('interpolation: nearest sample points that place an out-of-sample point and vote its cluster'),
};

/** The sample's DA-MDS ∥ DA-PWC (after `after`), the interpolation of the rest (also after `alsoInterp`), then the plot. */
const interpolated = (after: string[], alsoInterp: string[] = []): StageSpec[] => [
  { name: 'mds', runner: 'hpc', needs: after, work: 'sample pairs' },
  { name: 'pwc', runner: 'hpc', needs: after, work: 'sample pairs' },
  { name: 'interp', runner: 'hpc', needs: ['mds', 'pwc', ...alsoInterp], work: 'rest × sample' },
  { name: 'assemble', runner: 'worker', needs: ['interp'], work: 'points' },
];

const sequenceClustering = {
  summary: 'FASTA sequences → Smith-Waterman-Gotoh distances → DA-MDS ∥ DA-PWC → a plot labelled by sequence id',
  params: AnalysisParams.extend({
    alphabet: z.enum(['auto', 'dna', 'protein']).default('auto').describe('"auto" detects DNA or protein from the residues'),
    // global by measurement: kernels/README.md, "Distance for sequence clustering".
    distance: z.enum(['spidal', 'shorter', 'global', 'score']).default('global')
      .describe('global: 1 − identity of a global (NW-Gotoh) alignment; spidal: 1 − identical / local alignment length; shorter: 1 − identical / shorter length; score: 1 − local score / mean of the two self scores (score-only kernels: the fastest, 1.3–3.7× the others in bench/RESULTS.md)'),
    scoringMatrix: z.enum(['ednafull', 'blosum62']).optional().describe('default: ednafull for DNA, blosum62 for protein'),
    gapOpen: z.number().int().min(1).max(100).optional().describe('gap opening penalty (default of swg for the matrix)'),
    gapExtend: z.number().int().min(1).max(100).optional().describe('gap extension penalty'),
    ...InterpolationParams,
  }).strict(),
  files: { file: { required: true, accept: '.fasta,.fa,.fna,.faa,.txt', description: 'FASTA sequences' } },
  stages: [{ name: 'swg', runner: 'hpc', needs: [], work: 'pairs' }, ...mdsAndPwc(['swg'])],
  // `sample` splits the FASTA; swg aligns the sample all-pairs, `align` the others against the sample (swg --query).
  interpolatedStages: [
    { name: 'sample', runner: 'worker', needs: [], work: 'points' },
    { name: 'swg', runner: 'hpc', needs: ['sample'], work: 'sample pairs' },
    { name: 'align', runner: 'hpc', needs: ['sample'], work: 'rest × sample' },
    ...interpolated(['swg'], ['align']),
  ],
} satisfies JobTypeContract;

const distanceMatrix = {
  summary: 'a SPIDAL int16 N×N distance matrix → DA-MDS ∥ DA-PWC → a plot',
  params: AnalysisParams.extend({
    points: z.number().int().min(2).describe('N: the matrix is N×N int16 (SPIDAL format, distance × 32767)'),
    byteOrder: z.enum(['little', 'big']).default('little'),
    labels: z.array(z.string().min(1).max(200)).optional().describe('one label per point (default: the point index)'),
    ...InterpolationParams,
  }).strict(),
  files: {
    file: { required: true, accept: '.bin,.dat', description: 'N×N int16 distance matrix (SPIDAL format; set points = N)' },
    weights: {
      required: false,
      accept: '.bin,.dat',
      description: 'SPIDAL int16 N×N weight matrix (weight × 32767), same N and byte order as the input; DA-MDS weights (default: all 1)',
    },
  },
  stages: mdsAndPwc([]),
  // `sample` cuts the sample's matrix and the out-of-sample × sample block from the input.
  // The cut reads the whole N × N input.
  interpolatedStages: [{ name: 'sample', runner: 'worker', needs: [], work: 'pairs' }, ...interpolated(['sample'])],
} satisfies JobTypeContract;

const vectors = {
  summary: 'CSV feature vectors, one row per point → distances → DA-MDS ∥ DA-PWC → a plot',
  params: AnalysisParams.extend({
    metric: z.enum(['euclidean', 'correlation']).default('euclidean'),
    header: z.boolean().default(true).describe('the first CSV row names the columns'),
    labelColumn: z.number().int().min(0).optional().describe('0-based column holding point labels (not a feature)'),
  }).strict(),
  files: { file: { required: true, accept: '.csv,.txt', description: 'CSV, one row per point' } },
  stages: [{ name: 'distances', runner: 'worker', needs: [], work: 'pairs' }, ...mdsAndPwc(['distances'])],
} satisfies JobTypeContract;

const stockTimeseries = {
  summary: 'daily stock prices (CSV) → one aligned DA-MDS frame per sliding window (mdsseries) → a time-series plot of the symbols',
  params: z.object({
    windowDays: z.number().int().min(3).max(36_500).default(365).describe('calendar days per window; a frame\'s title is its window\'s last date'),
    stepDays: z.number().int().min(1).max(36_500).default(7).describe('calendar days between the starts of consecutive windows'),
    maxMissing: z.number().min(0).max(1).default(0.05).describe('a symbol missing more than this share of a window\'s trading days, or constant in it, is left out of that frame'),
    distance: z.enum(['correlation', 'change']).default('correlation').describe('correlation: (1 − r)/2 of daily log returns; change: SPIDAL\'s price-change distance'),
    weights: z.enum(['tradedValue', 'none']).optional().describe('pair weights from the average daily traded value (default when a volume column exists), or none'),
    clusterBy: z.enum(['sector', 'change']).optional().describe('colour by the sector column (default when there is one) or by the window\'s price change in 10 bins'),
    referenceStocks: z.boolean().default(false).describe('add artificial reference series (constant, rising and falling 0.1 % and 0.2 % a day), labelled REF:…'),
    ranks: AnalysisParams.shape.ranks,
    threads: AnalysisParams.shape.threads,
    nodes: AnalysisParams.shape.nodes,
  }).strict(),
  files: {
    file: {
      required: true,
      accept: '.csv,.txt',
      description: 'CSV with a header: date (YYYY-MM-DD), symbol, price[, volume, sector], one row per symbol and day; or wide: date, then one column per symbol',
    },
  },
  stages: [
    { name: 'prepare', runner: 'worker', needs: [], work: 'points' },
    { name: 'series', runner: 'hpc', needs: ['prepare'], work: 'pairs' },
    { name: 'assemble', runner: 'worker', needs: ['series'], work: 'points' },
  ],
} satisfies JobTypeContract;

/** SPIDAL's multistage DA-PWC: some rows of a clustering job's plot, cut out of its matrix, clustered again. */
const recluster = {
  summary: 'some points of a clustering job\'s plot → their rows and columns of its distance matrix (no realignment) → DA-MDS ∥ DA-PWC → a plot linked to its parent',
  params: AnalysisParams.extend({
    parentPlot: z.string().min(1).describe('the plot whose points are re-clustered'),
    parentJob: z.string().min(1).describe('the job that made it, whose distance matrix is cut'),
    parentMatrix: z.string().min(1).describe('the matrix file in the parent job\'s directory'),
    byteOrder: z.enum(['little', 'big']).default('little').describe('byte order of the parent\'s matrix (the cut is little-endian)'),
  }).strict(),
  files: { file: { required: true, accept: '.tsv', description: 'the parent\'s rows, "row<TAB>label" per line (written by POST /plots/{id}/recluster)' } },
  stages: [{ name: 'cut', runner: 'worker', needs: [], work: 'points' }, ...mdsAndPwc(['cut'])],
  startedBy: 'POST /api/v1/plots/{id}/recluster',
} satisfies JobTypeContract;

/** POST /plots/{id}/recluster: which points (exactly one of cluster, points, selection, mask) and the clustering. */
export const ReclusterRequest = z.object({
  cluster: z.number().int().min(0).optional().describe('a cluster key of the plot: its points'),
  points: z.array(z.number().int().min(0)).min(1).optional().describe('point indices (frame 0)'),
  selection: z.string().min(1).max(100).optional().describe('a named selection of the plot'),
  mask: z.string().min(1).optional().describe('a selection bitset (base64, as named selections store it)'),
  maxClusters: AnalysisParams.shape.maxClusters.optional().describe('DA-PWC MaxNcent of the child (default: the parent job\'s)'),
  name: Name.optional().describe('the child job\'s and plot\'s name'),
}).strict().refine((r) => [r.cluster, r.points, r.selection, r.mask].filter((v) => v !== undefined).length === 1, {
  message: 'give exactly one of cluster, points, selection and mask',
});
export type ReclusterRequest = z.infer<typeof ReclusterRequest>;
export const ReclusterStarted = z.object({ jobId: z.string().describe('the recluster job; its plot names the parent plot') });

/** Every job type, by its name in the API. */
export const JOB_TYPES = {
  'sequence-clustering': sequenceClustering,
  'distance-matrix': distanceMatrix,
  vectors,
  'stock-timeseries': stockTimeseries,
  recluster,
} as const;

type Names = keyof typeof JOB_TYPES;
const typeNames = Object.keys(JOB_TYPES) as [Names, ...Names[]];
export const JobType = z.enum(typeNames);
export type JobType = z.infer<typeof JobType>;

/** The types POST /jobs takes (the others have their own route: `startedBy`). */
const submittable = typeNames.filter((t) => !('startedBy' in JOB_TYPES[t])) as [Names, ...Names[]];
export const SubmittableJobType = z.enum(submittable);

const stageNames = [...new Set(Object.values(JOB_TYPES as Record<string, JobTypeContract>)
  .flatMap((t) => [...t.stages, ...(t.interpolatedStages ?? [])].map((s) => s.name)))] as [string, ...string[]];
export const StageName = z.enum(stageNames);

export const JobParams = Object.fromEntries(Object.entries(JOB_TYPES).map(([type, t]) => [type, t.params])) as {
  [T in JobType]: (typeof JOB_TYPES)[T]['params'];
};

/** Every file part some job type takes, with the types that take it (the upload parser accepts these names). */
export const JobFileParts: Record<string, JobType[]> = {};
for (const type of submittable) {
  for (const part of Object.keys(JOB_TYPES[type].files)) (JobFileParts[part] ??= []).push(type);
}
