// The OpenAPI 3.1 document, built from the same zod schemas that validate requests.
import * as api from '@wpv/schema';
import { z } from 'zod';

type Op = {
  summary: string;
  description?: string;
  auth?: boolean;
  body?: z.ZodType | 'multipart' | 'multipart-job' | 'multipart-tree' | 'png';
  query?: z.ZodObject;
  ok: [number, z.ZodType | 'binary' | 'event-stream' | null];
};

const binary = { type: 'string', format: 'binary' };
const plotPath = '/plots/{id}';
const ops: Record<string, Record<string, Op>> = {
  '/health': { get: { summary: 'Service health (503 names what is down)', ok: [200, api.Health] } },
  '/auth/register': { post: { summary: 'Create an account', body: api.Credentials, ok: [201, z.object({ username: z.string() })] } },
  '/auth/login': { post: { summary: 'Start a cookie session', body: api.Credentials, ok: [200, api.Me] } },
  '/auth/logout': { post: { summary: 'End the cookie session', auth: true, ok: [204, null] } },
  '/auth/me': { get: { summary: 'The signed-in user and CSRF token', auth: true, ok: [200, api.Me] } },
  '/auth/session': { get: { summary: 'Who is signed in: as /auth/me, or {"username": null} for anonymous visitors (no 401)', ok: [200, api.SessionInfo] } },
  '/auth/token': { post: { summary: 'Create a bearer API token', body: api.TokenCreate, ok: [201, api.TokenCreated] } },
  '/auth/tokens': { get: { summary: 'List your API tokens', auth: true, ok: [200, z.array(api.TokenInfo)] } },
  '/storage': { get: { summary: 'What your plots take of your storage quota', auth: true, ok: [200, api.StorageUse] } },
  '/auth/tokens/{id}': { delete: { summary: 'Revoke an API token', auth: true, ok: [204, null] } },
  '/plots': {
    get: { summary: 'List your plots and public plots', query: api.PlotQuery, ok: [200, api.PlotPage] },
    post: { summary: 'Upload a plot file (pviz, text, csv or time-series zip)', auth: true, body: 'multipart', ok: [201, api.PlotCreated] },
  },
  [plotPath]: {
    get: { summary: 'Plot metadata', ok: [200, api.Plot] },
    patch: { summary: 'Edit metadata and clusters (owner)', description: 'A cluster renamed to a name another cluster of the plot has (trimmed, case counting) is a 409 naming `clusters.N.label`; names an upload brought twice are kept.', auth: true, body: api.PlotPatch, ok: [200, api.Plot] },
    delete: { summary: 'Delete a plot (owner)', auth: true, ok: [204, null] },
  },
  [`${plotPath}/clusters`]: {
    post: {
      summary: 'Make a cluster of chosen points (owner)',
      description:
        'The points of `frame`, given as `points` (indices) or `mask` (a base64 bitset), move into a new cluster: key one above the largest, a colour of the categorical ' +
        'palette, disc glyph, size 1. In a time series the cluster follows its points through every frame: in the other ' +
        'frames, the points with the same labels move too (the point at the same index when its label is the same, else ' +
        'the first point with that label; an unlabelled point only at its own index). Counts are ' +
        'updated; a cluster left without points stays in the table with count 0, but the points of a made cluster, exactly, answer 409 ' +
        '(they would leave it an empty duplicate), as does a `label` another cluster has. The frames\' cluster keys are replaced ' +
        'whole and get a new ETag. 400 names the field at fault (an index out of range or listed twice, a mask of another ' +
        'length than the frame\'s, both or neither of `points` and `mask`). The request body is limited to 1 MB of JSON: ' +
        'about 130,000 indices, or a mask of up to 6,000,000 points.',
      auth: true,
      body: api.ClusterCreate,
      ok: [201, api.ClusterCreated],
    },
  },
  [`${plotPath}/clusters/{key}`]: {
    delete: {
      summary: 'Delete a cluster made from a selection (owner)',
      description: 'Its points go back, in every frame, to the clusters they had before it was made (or, where those were deleted since, to the ones before them). ' +
        'Clusters that came with the plot answer 422 (hide them instead). `changes` lists each frame\'s moved points and their new keys.',
      auth: true,
      ok: [200, api.ClusterKeysChanged],
    },
  },
  [`${plotPath}/clusters/edits`]: {
    get: { summary: "The cluster edits undo can take back (the last 20), and the deletable made clusters (owner)", auth: true, ok: [200, api.ClusterEdits] },
  },
  [`${plotPath}/clusters/undo`]: {
    post: {
      summary: 'Undo the last cluster edit (owner)',
      description: 'Takes back the last make or delete. `edit` must be its id (from /clusters/edits): when another tab made a newer edit, 409 names it instead of undoing it.',
      auth: true,
      body: api.ClusterUndo,
      ok: [200, api.ClusterKeysChanged],
    },
  },
  [`${plotPath}/frames/{frame}/positions`]: { get: { summary: 'Float32 LE x,y,z per point (Range supported)', ok: [200, 'binary'] } },
  [`${plotPath}/frames/{frame}/clusters`]: {
    get: { summary: 'Uint32 LE cluster key per point (Range supported; revalidate: making a cluster changes it)', ok: [200, 'binary'] },
  },
  [`${plotPath}/frames/{frame}/labels`]: { get: { summary: 'Point labels', ok: [200, z.array(z.string())] } },
  [`${plotPath}/frames/{frame}/edges`]: { get: { summary: 'Edges as polylines of point indices', ok: [200, z.array(api.Edge)] } },
  [`${plotPath}/frames/{frame}/columns/{column}`]: {
    get: {
      summary: 'A metadata column\'s values in the frame ({column}: its index in the plot\'s `columns`; Range supported)',
      description:
        'category: one code per point, Uint16 LE when the column\'s `codeBytes` is 2, else Uint32 LE, indexing its `categories`; ' +
        'number: Float32 LE per point, NaN where a point has none. Columns come from extra CSV columns, PlotViz ' +
        '<property name="…"> elements of a point, FASTA descriptions (sequence-clustering) and stock sectors (stock-timeseries).',
      ok: [200, 'binary'],
    },
  },
  [`${plotPath}/search`]: {
    get: {
      summary: 'Points whose label or category column contains `label` (case-insensitive); with `column`, that metadata column only',
      query: api.SearchQuery,
      ok: [200, api.SearchResult],
    },
  },
  [`${plotPath}/export`]: { get: { summary: 'PlotViz XML (zip for time series) or the uploaded file (format=original)', query: api.ExportQuery, ok: [200, 'binary'] } },
  [`${plotPath}/thumbnail`]: {
    get: { summary: 'Thumbnail PNG', ok: [200, 'binary'] },
    put: { summary: 'Store a thumbnail PNG (owner, ≤ 256 KB)', auth: true, body: 'png', ok: [204, null] },
  },
  [`${plotPath}/views`]: { get: { summary: 'Saved named views', ok: [200, z.record(z.string(), z.unknown())] } },
  [`${plotPath}/views/{name}`]: {
    put: { summary: 'Save a named view (owner)', auth: true, body: api.SavedView, ok: [204, null] },
    delete: { summary: 'Delete a named view (owner)', auth: true, ok: [204, null] },
  },
  [`${plotPath}/selections`]: { get: { summary: 'Saved named selections (name, frame, point count)', ok: [200, z.array(api.SelectionInfo)] } },
  [`${plotPath}/selections/{name}`]: {
    get: { summary: 'A named selection: its point indices, or its bitset with encoding=mask', query: api.SelectionQuery, ok: [200, api.Selection] },
    put: {
      summary: 'Save a named selection (owner): `indices` or `mask` of a frame\'s points',
      description:
        'Names: 1–100 letters, digits, spaces, "_", "." or "-". 201 when new, 200 when replacing. 400 names the field at fault ' +
        '(an index out of range or listed twice, a mask of another length than the frame\'s); 422 past 100 selections per plot; ' +
        '413 past the 1 MB JSON limit (about 130,000 indices: send larger selections as `mask`).',
      auth: true,
      body: api.SelectionInput,
      ok: [200, api.SelectionInfo],
    },
    delete: { summary: 'Delete a named selection (owner)', auth: true, ok: [204, null] },
  },
  [`${plotPath}/tree`]: {
    get: { summary: 'The plot\'s phylogenetic tree: nodes in preorder, leaves at their points; null when the plot has none', ok: [200, api.PlotTree.nullable()] },
    put: {
      summary: 'Attach a Newick tree (owner): multipart `file` and optional `root`; leaves are matched to point labels of frame 0',
      description:
        'Leaves no point has are left out with their branches (listed in `unmatched`, first 20; a node left with one child is ' +
        'merged into it). 201 when the plot had no tree, 200 when replacing. 400 `bad_newick` names the line and column; ' +
        '422 when no leaf names a point, a leaf name repeats, or a leaf names a label several points share; 413 past 64 MB.',
      auth: true,
      body: 'multipart-tree',
      ok: [200, api.PlotTreeInfo],
    },
    delete: { summary: 'Remove the plot\'s tree (owner)', auth: true, ok: [204, null] },
  },
  [`${plotPath}/recluster`]: {
    post: {
      summary: 'Re-cluster some points of a clustering job\'s plot (owner): a recluster job, whose plot links back',
      description:
        'Exactly one of `cluster`, `points`, `selection` (a named selection) or `mask`; optional `maxClusters` and `name`. ' +
        'The job cuts those rows and columns out of the parent job\'s distance matrix and runs DA-MDS and DA-PWC on them. ' +
        '422 for a plot no sequence-clustering, distance-matrix or recluster job made, or too few points; 409 when the parent\'s matrix is gone.',
      auth: true,
      body: api.ReclusterRequest,
      ok: [202, api.ReclusterStarted],
    },
  },
  '/collections': {
    get: { summary: 'Your collections', auth: true, ok: [200, z.array(api.Collection)] },
    post: { summary: 'Create a collection', description: '409 (field `name`) when you have a collection of that name.', auth: true, body: api.CollectionInput, ok: [201, api.Collection] },
  },
  '/collections/{id}': {
    patch: { summary: 'Rename or describe a collection', description: '409 (field `name`) when you have another collection of the new name.', auth: true, body: api.CollectionInput.partial(), ok: [200, api.Collection] },
    delete: { summary: 'Delete a collection (its plots stay)', auth: true, ok: [204, null] },
  },
  '/tags': { get: { summary: 'Tags over the plots you can see, with counts', ok: [200, z.array(api.TagCount)] } },
  '/jobs': {
    get: { summary: 'Your analytics jobs', auth: true, ok: [200, api.JobPage] },
    post: { summary: 'Submit a job: multipart type, file, params (JSON), name; weights (distance-matrix)', auth: true, body: 'multipart-job', ok: [202, api.JobCreated] },
  },
  '/jobs/{id}': { get: { summary: 'A job with its stages and history', auth: true, ok: [200, api.Job] } },
  '/jobs/{id}/events': { get: { summary: 'Server-Sent Events of progress and state changes', auth: true, ok: [200, 'event-stream'] } },
  '/jobs/{id}/logs': { get: { summary: 'stdout/stderr tails of the stages (?stage=)', auth: true, query: api.JobLogsQuery, ok: [200, api.JobLogs] } },
  '/jobs/{id}/cancel': { post: { summary: 'Cancel a queued or running job', auth: true, ok: [200, api.Job] } },
  '/jobs/{id}/retry': { post: { summary: 'Run a failed or cancelled job again, as a new job', auth: true, ok: [202, api.JobCreated] } },
};

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });

/**
 * The job submission form: its text fields and file parts, both from the schema package; the
 * `params` JSON is one of the job types' params schemas (JOB_TYPES), chosen by the `type` field.
 */
function jobForm() {
  const fields = schema(api.JobSubmitFields) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const files = Object.entries(api.JobSubmitFiles);
  const params = {
    ...fields.properties.params,
    contentMediaType: 'application/json',
    contentSchema: {
      oneOf: Object.entries(api.JOB_TYPES).filter(([type]) => api.SubmittableJobType.options.includes(type as never)).map(([type, t]) => ({ title: type, description: `type=${type}: ${t.summary}`, ...schema(t.params) })),
    },
  };
  return {
    type: 'object',
    required: [...(fields.required ?? []), ...files.filter(([, part]) => part.required).map(([name]) => name)],
    properties: { ...fields.properties, params, ...Object.fromEntries(files.map(([name, part]) => [name, { ...binary, description: part.description }])) },
  };
}

function operation(path: string, op: Op) {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const query = op.query
    ? Object.entries(op.query.shape).map(([name, s]) => ({ name, in: 'query', required: false, schema: schema(s as z.ZodType) }))
    : [];
  const [status, reply] = op.ok;
  const content =
    reply === null ? undefined
    : reply === 'binary' ? { 'application/octet-stream': { schema: binary } }
    : reply === 'event-stream' ? { 'text/event-stream': { schema: { type: 'string' } } }
    : { 'application/json': { schema: schema(reply) } };
  const body =
    op.body === undefined ? undefined
    : op.body === 'multipart' ? { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: binary, name: { type: 'string' }, description: { type: 'string' }, visibility: { enum: ['private', 'public'] }, collection: { type: 'string' }, tags: { type: 'string', description: 'comma-separated or a JSON array' } } } } }
    : op.body === 'multipart-tree' ? { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: binary, root: schema(api.TreeUploadFields.shape.root) } } } }
    : op.body === 'multipart-job' ? { 'multipart/form-data': { schema: jobForm() } }
    : op.body === 'png' ? { 'image/png': { schema: binary } }
    : { 'application/json': { schema: schema(op.body) } };
  return {
    summary: op.summary,
    ...(op.description && { description: op.description }),
    ...(op.auth && { security: [{ bearer: [] }, { session: [] }] }),
    parameters: [...params, ...query],
    ...(body && { requestBody: { required: true, content: body } }),
    responses: {
      [status]: { description: 'success', ...(content && { content }) },
      '4XX': { description: 'error', content: { 'application/json': { schema: schema(api.ErrorBody) } } },
    },
  };
}

export function openApiDocument() {
  const paths = Object.fromEntries(
    Object.entries(ops).map(([path, methods]) => [
      path,
      Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(path, op)])),
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'WebPlotViz API',
      version: '1.0.0',
      description:
        'Cookie-authenticated writes need the X-CSRF-Token header from /auth/login or /auth/me; bearer tokens need none.',
    },
    servers: [{ url: api.API_PREFIX }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        session: { type: 'apiKey', in: 'cookie', name: 'wpv_session' },
      },
    },
    paths,
  };
}
