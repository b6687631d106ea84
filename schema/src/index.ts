// The REST API v1 contract, written once: the server validates requests and
// builds its OpenAPI document from these schemas; the client parses replies.
import { z } from 'zod';
import { JOB_TYPES, JobFileParts, JobType, StageName, SubmittableJobType } from './jobTypes.ts';
import { PlotColumn } from './columns.ts';
import { Name, NO_CONTROL_CHARACTERS } from './names.ts';
import { BASE64 } from './selectionMask.ts';

export const API_PREFIX = '/api/v1';

export const ErrorBody = z.object({
  error: z.object({
    code: z.string().describe('machine-readable reason, e.g. "bad_request", "parse_error", "not_found"'),
    message: z.string(),
    field: z.string().optional().describe('the request field at fault'),
    line: z.number().int().optional().describe('1-based line of the uploaded file at fault'),
    file: z.string().optional().describe('entry of an uploaded archive at fault'),
    requestId: z.string().optional().describe('on a 500: names the request in the server log (also the X-Request-Id header)'),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const Username = z.string().regex(/^[A-Za-z0-9_.-]{3,40}$/, '3–40 letters, digits, "_", "." or "-"');
export const Password = z.string().min(10, 'at least 10 characters').max(200);
// Strict, as every body and query the API takes: a key it does not know is a 400 naming it, not ignored.
export const Credentials = z.object({ username: Username, password: Password }).strict();
export type Credentials = z.infer<typeof Credentials>;

export const Me = z.object({ username: z.string(), csrfToken: z.string().optional() });
export type Me = z.infer<typeof Me>;
/** GET /auth/session: Me when signed in, `{ username: null }` for an anonymous visitor. */
export const SessionInfo = z.object({ username: z.string().nullable(), csrfToken: z.string().optional() });
export type SessionInfo = z.infer<typeof SessionInfo>;
/** GET /storage: what the caller's plots take of their storage quota. */
export const StorageUse = z.object({
  usedBytes: z.number().int().describe('bytes the caller\'s plots take (their blobs, original files and kept distance matrices) and the distance matrices their queued and running jobs will keep'),
  limitBytes: z.number().int().describe('the storage quota (USER_STORAGE_BYTES)'),
});
export type StorageUse = z.infer<typeof StorageUse>;

/** What a token may do: everything its user may (`full`), or only read (`read`: a notebook's, a dashboard's). */
export const TokenScope = z.enum(['full', 'read']);
export type TokenScope = z.infer<typeof TokenScope>;
// Strict: a key the server does not know must not pass as if it had been applied.
export const TokenCreate = Credentials.extend({
  name: z.string().max(100).regex(...NO_CONTROL_CHARACTERS).optional(),
  expiresInDays: z.number().int().positive().max(3650).optional().describe('days until the token stops working; without it, it works until revoked'),
  scope: TokenScope.default('full').describe('"read": the token is refused (403 read_only_token) for anything but GET'),
}).strict();
export const TokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string().describe('first characters of the token, to recognise it'),
  scope: TokenScope,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export type TokenInfo = z.infer<typeof TokenInfo>;
export const TokenCreated = TokenInfo.extend({ token: z.string().describe('shown once; send as "Authorization: Bearer <token>"') });
export type TokenCreated = z.infer<typeof TokenCreated>;

export const Visibility = z.enum(['private', 'public']);
export type Visibility = z.infer<typeof Visibility>;

/** PlotViz glyphs: 0 disc, 1 ball, 2 star, 3 cube, 4 pyramid, 5 cone, 6 cylinder. */
export const Shape = z.number().int().min(0).max(6);
export const Rgba = z.object({
  r: z.number().int().min(0).max(255),
  g: z.number().int().min(0).max(255),
  b: z.number().int().min(0).max(255),
  a: z.number().int().min(0).max(255),
});
export type Rgba = z.infer<typeof Rgba>;

/**
 * A cluster whose mean silhouette is at most this has "no substantial structure" (Kaufman & Rousseeuw,
 * Finding Groups in Data, 1990): its points are about as near other clusters as each other, as when
 * DA-PWC gathers reads that fit no cluster into one.
 */
export const LOOSE_SILHOUETTE = 0.25;

export const Cluster = z.object({
  key: z.number().int().min(0).max(0xffffffff),
  label: z.string(),
  color: Rgba,
  shape: Shape,
  size: z.number().positive(),
  visible: z.boolean(),
  count: z.number().int().min(0).describe('points of this cluster, over all frames'),
  centre: z.number().int().min(0).optional().describe('index of the cluster\'s centre point (a clustering job\'s medoid), marked in place'),
  silhouette: z.number().min(-1).max(1).optional()
    .describe('mean silhouette of its points, from the clustering job (interpolated points against the sample\'s clusters); gone once an edit changes its points'),
});
export type Cluster = z.infer<typeof Cluster>;

export const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
export const BoundingBox = z.object({ min: Vec3, max: Vec3 });
export type BoundingBox = z.infer<typeof BoundingBox>;

export const FrameInfo = z.object({
  index: z.number().int(),
  title: z.string(),
  points: z.number().int(),
  edges: z.number().int(),
});
export type FrameInfo = z.infer<typeof FrameInfo>;

/** The file's display settings (PlotViz <plot><pointsize>, <glyph>): the viewer's defaults for this plot. */
export const DisplaySettings = z.object({
  pointSize: z.number().positive().optional().describe('screen pixels of a plain point'),
  glyphsVisible: z.boolean().optional().describe('false: every cluster draws as plain points'),
  glyphScale: z.number().positive().optional().describe('multiplies the glyph size of every cluster'),
});
export type DisplaySettings = z.infer<typeof DisplaySettings>;

export const TagList = z.array(z.string().trim().min(1).max(60)).max(50);

export const Plot = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  visibility: Visibility,
  collection: z.string().nullable().describe('collection id'),
  tags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  format: z.enum(['pviz', 'text', 'csv', 'zip']),
  originalName: z.string(),
  frames: z.number().int().describe('frame count (1 for a single plot)'),
  points: z.number().int().describe('points per frame, the largest frame'),
  clusters: z.array(Cluster),
  bbox: BoundingBox,
  frameList: z.array(FrameInfo),
  views: z.record(z.string(), z.unknown()).describe('saved view settings by name'),
  hasThumbnail: z.boolean(),
  thumbnailDrawn: z.boolean().optional().describe('the thumbnail was drawn by the server from the first frame when the plot was stored, not stored from the viewer: the owner\'s first view may replace it'),
  display: DisplaySettings.optional().describe('display settings read from the file, where it has any'),
  columns: z.array(PlotColumn).default([]).describe('metadata columns: extra per-point values beside label and cluster'),
  parent: z.string().optional().describe('the plot this one re-clusters some points of (POST /plots/{id}/recluster), when you may read it'),
  children: z.array(z.string()).optional().describe('the re-clusterings of this plot\'s points that you may read (their plot ids), oldest first; absent when there are none'),
  storedBytes: z.number().int().optional().describe('bytes it takes of its owner\'s storage quota (blobs, original file, the distance matrix its job keeps); absent on plots stored before sizes were counted'),
});
export type Plot = z.infer<typeof Plot>;

export const PlotCreated = Plot.extend({ warnings: z.array(z.string()) });
export type PlotCreated = z.infer<typeof PlotCreated>;

export const PlotSummary = Plot.omit({ clusters: true, frameList: true, views: true, columns: true, parent: true, children: true }).extend({
  clusterCount: z.number().int(),
});
export type PlotSummary = z.infer<typeof PlotSummary>;

/** How deep a saved view's JSON may nest: the viewer's settings use a few levels; storing one recurses per level (a stack overflow at thousands). */
export const VIEW_DEPTH_MAX = 32;
/** The levels of JSON under `value` (0 for a scalar), counted without recursion, up to `limit` + 1. */
function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return deepest;
}
/** A saved view: the viewer's settings as it chooses to store them, any JSON object nested at most VIEW_DEPTH_MAX levels. */
export const SavedView = z.record(z.string(), z.unknown()).superRefine((view, ctx) => {
  for (const [key, value] of Object.entries(view)) {
    if (jsonDepth(value, VIEW_DEPTH_MAX) >= VIEW_DEPTH_MAX) {
      ctx.addIssue({ code: 'custom', path: [key], message: `nested more than ${VIEW_DEPTH_MAX} levels deep` });
      return;
    }
  }
});

export const PlotPage = z.object({
  items: z.array(PlotSummary),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
});
export type PlotPage = z.infer<typeof PlotPage>;

export const PlotUploadFields = z.object({
  name: Name.optional(),
  description: z.string().max(10_000).default(''),
  visibility: Visibility.default('private'),
  collection: z.string().optional(),
  tags: TagList.default([]),
});

/** A cluster's name as a user gives it (a rename, a new cluster): a name that shows, not blank. */
export const ClusterLabel = z.string().trim().min(1, 'a cluster needs a name').max(200).regex(...NO_CONTROL_CHARACTERS);

export const ClusterPatch = Cluster.omit({ count: true }).partial().extend({ key: Cluster.shape.key, label: ClusterLabel.optional() }).strict();

export const PlotPatch = z
  .object({
    name: Name,
    description: z.string().max(10_000),
    visibility: Visibility,
    collection: z.string().nullable(),
    tags: TagList,
    clusters: z.array(ClusterPatch).max(100_000),
  })
  .partial()
  .strict();
export type PlotPatch = z.infer<typeof PlotPatch>;

/** A new cluster made of points chosen in the viewer (POST /plots/{id}/clusters): `points` or `mask`. */
export const ClusterCreate = z
  .object({
    label: ClusterLabel,
    points: z
      .array(z.number().int().min(0))
      .min(1)
      .refine((points) => new Set(points).size === points.length, 'an index is listed twice')
      .optional()
      .describe('indices of the points in `frame` (a large selection is shorter as `mask`)'),
    mask: z
      .string()
      .regex(BASE64, 'not base64')
      .optional()
      .describe(
        'the points of `frame` as a base64 bitset, instead of `points`: bit i of byte i>>3 (least significant bit first) ' +
          'is point i; exactly ceil(points in the frame / 8) bytes, spare bits zero (1,000,000 points: 166,668 characters)',
      ),
    frame: z.number().int().min(0).default(0).describe('the frame `points` or `mask` refer to'),
  })
  .strict()
  .refine((c) => c.points !== undefined || c.mask !== undefined, { path: ['points'], message: 'give the indices in `points` or a bitset in `mask`' })
  .refine((c) => c.points === undefined || c.mask === undefined, { path: ['mask'], message: 'give either `points` or `mask`, not both' });
export type ClusterCreate = z.input<typeof ClusterCreate>;

export const ClusterCreated = z.object({
  cluster: Cluster.describe('the new cluster; its count covers every frame'),
  plot: Plot.describe('the plot with its updated cluster table'),
});
export type ClusterCreated = z.infer<typeof ClusterCreated>;

/** One cluster edit that can be undone (the newest last in ClusterEdits). */
export const ClusterEdit = z.object({
  id: z.string(),
  kind: z.enum(['make', 'delete']),
  key: z.number().int(),
  label: z.string(),
  at: z.string().describe('ISO time of the edit'),
});
export type ClusterEdit = z.infer<typeof ClusterEdit>;

export const ClusterEdits = z.object({
  edits: z.array(ClusterEdit).describe('the edits undo can take back, oldest first'),
  made: z.array(z.number().int()).describe('keys of the clusters made from a selection, which can be deleted'),
});
export type ClusterEdits = z.infer<typeof ClusterEdits>;

/** POST /plots/{id}/clusters/undo: `edit` is the edit the caller means (another tab may have made a newer one). */
export const ClusterUndo = z.object({ edit: z.string().min(1).max(100) }).strict();
export type ClusterUndo = z.infer<typeof ClusterUndo>;

/** What a delete or undo changed: the points' new keys per frame, to patch frames held in memory. */
export const ClusterKeysChanged = z.object({
  plot: Plot.describe('the plot with its updated cluster table'),
  changes: z.array(z.object({ frame: z.number().int(), points: z.array(z.number().int()), keys: z.array(z.number().int()) })),
}).extend(ClusterEdits.shape);
export type ClusterKeysChanged = z.infer<typeof ClusterKeysChanged>;

export const PlotQuery = z.object({
  q: z.string().max(200).optional(),
  tag: z.string().max(60).optional(),
  collection: z.string().optional(),
  owner: z.string().optional(),
  scope: z.enum(['all', 'mine', 'public']).default('all'),
  sort: z.enum(['updated', 'created', 'name', 'points', 'size']).default('updated').describe('size: the largest first (storedBytes)'),
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(24),
}).strict(); // a parameter it does not know (mine=yes) would otherwise be ignored without a word
export type PlotQuery = z.infer<typeof PlotQuery>;

/** GET /plots/{id}/search */
export const SearchQuery = z.object({
  label: z.string().min(1).max(200),
  frame: z.coerce.number().int().min(0).default(0),
  column: z.string().min(1).max(200).optional().describe('a metadata column\'s name'),
}).strict();

/** GET /plots/{id}/export */
export const ExportQuery = z.object({ format: z.enum(['pviz', 'original']).default('pviz') }).strict();

/** GET /jobs/{id}/logs */
export const JobLogsQuery = z.object({ stage: z.string().max(40).optional() }).strict();

export const SearchResult = z.object({
  frame: z.number().int(),
  indices: z.array(z.number().int()),
  truncated: z.boolean(),
});
export type SearchResult = z.infer<typeof SearchResult>;

/** An edge is a polyline through points given by their indices in the frame. */
export const Edge = z.object({ key: z.string(), vertices: z.array(z.number().int()) });
export type Edge = z.infer<typeof Edge>;

export const Collection = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner: z.string(),
  createdAt: z.string(),
  plots: z.number().int(),
});
export type Collection = z.infer<typeof Collection>;
export const CollectionInput = z.object({
  name: z.string().trim().min(1).max(100).regex(...NO_CONTROL_CHARACTERS),
  description: z.string().max(2000).default(''),
});
export const TagCount = z.object({ tag: z.string(), count: z.number().int() });

export const Health = z.object({ mongo: z.string(), amqp: z.string() });
export { categoricalColor, hexToRgba, rgbaToHex, schemeColor, type SchemeName } from './palette.ts';
export { matchByLabel } from './labels.ts';
export { clusterNameKey, clusterNamed } from './clusterNames.ts';
export { compareNames, nameKey, sortKey, withoutAccents } from './textKeys.ts';
export { NAME_MAX, Name, nameFrom } from './names.ts';
export { ApiError } from './errors.ts';
export { columnArray, columnText, columnValue, ColumnKind, float32Text, PlotColumn } from './columns.ts';
export { decodeSelectionMask, encodeSelectionMask, SelectionMaskError } from './selectionMask.ts';
export { Selection, SelectionInfo, SelectionInput, SelectionName, SelectionQuery } from './selections.ts';
export { cutTree, cutTreeByWidth, hasBranchLengths, leavesUnder, PlotTree, PlotTreeInfo, treeChildren, TreeNodes, TreeRoot, TreeUploadFields, type TreeCut } from './trees.ts';

// ---------------------------------------------------------------------------
// Analytics job gateway (issue 4): job submission parameters and job documents.
// ---------------------------------------------------------------------------

export { DEFAULT_MAX_CLUSTERS, JOB_TYPES, stageTitle, JobFileParts, JobParams, JobType, ReclusterRequest, ReclusterStarted, StageName, SubmittableJobType, type JobTypeContract, type StageSpec, type StageRunner, type StageWork, type FilePart } from './jobTypes.ts';
export const JobState = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']);
export const StageState = z.enum(['pending', 'queued', 'running', 'succeeded', 'failed', 'cancelled']);

export const JobSubmitFields = z.object({
  type: SubmittableJobType,
  name: Name.optional(),
  params: z.string().max(60_000).default('{}').describe('JSON object of the type\'s parameters'),
});

/** The file parts of the submission form (multipart, beside JobSubmitFields), described per type from JOB_TYPES. */
export const JobSubmitFiles = Object.fromEntries(
  Object.entries(JobFileParts).map(([part, types]) => {
    const of = (type: JobType) => (JOB_TYPES[type].files as Record<string, { required: boolean; description: string }>)[part]!;
    return [part, {
      required: SubmittableJobType.options.every((type) => types.includes(type) && of(type).required),
      description: types.map((type) => `${type}: ${of(type).description}`).join('; '),
    }];
  }),
) as Record<string, { required: boolean; description: string }>;

export const JobCreated = z.object({ id: z.string() });

export const StageMetrics = z.object({
  queueWaitSeconds: z.number().nullable(),
  runSeconds: z.number().nullable(),
  cpuSeconds: z.number().nullable(),
  peakMemoryKb: z.number().nullable(),
  ranks: z.number().int(),
  threads: z.number().int(),
});

export const JobStage = z.object({
  name: StageName,
  title: z.string().describe('what the stage does, in plain words (as the job page shows it)'),
  runner: z.enum(['worker', 'hpc']).describe('who runs the stage: a pipeline worker (in Node), or an MPI program the hpc-bridge submits'),
  share: z.number().min(0).max(1)
    .describe('the share of the job\'s time this stage is expected to take, from the seconds per unit of its work in recent succeeded jobs of the same type and stage graph nearest in size (within 4× when there are any); equal shares without such jobs. The job page weighs its overall progress by it'),
  expectedSeconds: z.number().nullable()
    .describe('the seconds this stage is expected to take: the median seconds per unit of its work in recent succeeded jobs of the same type and stage graph and of about the same size (within 1.25×), times this job\'s units; null without such jobs'),
  state: StageState,
  progress: z.record(z.string(), z.unknown()).nullable().describe('the program\'s latest JSON progress line'),
  series: z
    .array(z.object({ iteration: z.number(), stress: z.number().nullable(), temperature: z.number().nullable() }))
    .describe('stress per iteration (DA-MDS), for a chart'),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  backendJobId: z.string().nullable().describe('local process group id or Slurm job id'),
  launchedAt: z.string().nullable().describe('when the program got its CPUs and started; null while a submitted stage waits for them (local slots, a Slurm allocation)'),
  attempts: z.number().int(),
  exitCode: z.number().int().nullable(),
  metrics: StageMetrics.nullable(),
  error: z.string().nullable(),
});
export type JobStage = z.infer<typeof JobStage>;

export const JobHistoryEntry = z.object({
  at: z.string(),
  stage: StageName.nullable(),
  from: z.string(),
  to: z.string(),
  reason: z.string(),
});

export const Job = z.object({
  id: z.string(),
  name: z.string(),
  type: JobType,
  state: JobState,
  owner: z.string(),
  params: z.record(z.string(), z.unknown()),
  input: z.object({
    originalName: z.string(),
    bytes: z.number().int(),
    points: z.number().int(),
    weights: z.object({ originalName: z.string(), bytes: z.number().int() }).optional().describe('the DA-MDS weight matrix, if one was sent'),
    sample: z.number().int().optional().describe('points in the sample when the job interpolates the others (more points than params.sampleSize)'),
    keptBytes: z.number().int().optional().describe('bytes of the distance matrix the plot keeps for re-clustering (2·N²); the storage quota holds them from submission'),
  }),
  stages: z.array(JobStage),
  plotId: z.string().optional(),
  plotDeleted: z.boolean().describe('the plot the job made (plotId) has since been deleted: plotId names no plot any more'),
  error: z.string().optional(),
  warnings: z.array(z.string()).describe('why the result may be less than asked, e.g. DA-PWC clusters dropped under the minimum size'),
  retryOf: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  queueWaitSeconds: z.number().nullable().describe('from submission to the first stage starting'),
  history: z.array(JobHistoryEntry),
  revision: z.number().int().describe('bumped by every change; the events stream sends it as the event id'),
});
export type Job = z.infer<typeof Job>;

export const JobSummary = Job.omit({ history: true, params: true });
export type JobSummary = z.infer<typeof JobSummary>;
export const JobPage = z.object({ items: z.array(JobSummary) });
export const JobLogs = z.object({
  stage: StageName,
  stdout: z.string().describe('last 64 KiB'),
  stderr: z.string().describe('last 64 KiB'),
});
