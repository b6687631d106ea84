// Typed calls to every /api/v1 endpoint the client uses.
import {
  ClusterCreated, ClusterEdits, ClusterKeysChanged, Collection, Edge, encodeSelectionMask, Job, JobCreated, JobLogs, JobPage, Me, Plot, PlotCreated, PlotPage, PlotTree, PlotTreeInfo, ReclusterStarted, SearchResult, Selection, SelectionInfo, SessionInfo, StorageUse, TagCount, TokenCreated, TokenInfo,
} from '@wpv/schema';
import type { ClusterCreate, Credentials, PlotPatch, PlotQuery, ReclusterRequest, SelectionInput, TokenCreate, TreeRoot } from '@wpv/schema';
import { z } from 'zod';
import { api, apiBinary, apiRaw, uploadWithProgress } from './http';

export const auth = {
  session: () => api('/auth/session', SessionInfo),
  login: (c: Credentials) => api('/auth/login', Me, { method: 'POST', json: c }),
  register: (c: Credentials) => api('/auth/register', null, { method: 'POST', json: c }),
  logout: () => api('/auth/logout', null, { method: 'POST' }),
  createToken: (c: z.input<typeof TokenCreate>) => api('/auth/token', TokenCreated, { method: 'POST', json: c }),
  tokens: () => api('/auth/tokens', z.array(TokenInfo)),
  revokeToken: (id: string) => api(`/auth/tokens/${encodeURIComponent(id)}`, null, { method: 'DELETE' }),
};

export type PlotListQuery = Partial<PlotQuery>;

function queryString(q: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? '?' + s : '';
}

const plotPath = (id: string) => `/plots/${encodeURIComponent(id)}`;
const framePath = (id: string, frame: number, what: string) => `${plotPath(id)}/frames/${frame}/${what}`;

/** A cluster of the chosen points of a frame that has `pointCount` points. */
export interface NewCluster {
  label: string;
  frame: number;
  points: readonly number[];
  pointCount: number;
}

/**
 * The request sends the shorter of the indices (about 7 bytes each in JSON) and the mask (1/6 byte
 * per point of the frame): a mask stays under the 1 MB body limit up to 6M points, indices not past 130,000.
 */
export function clusterBody({ label, frame, points, pointCount }: NewCluster): ClusterCreate {
  return points.length * 7 < pointCount / 6
    ? { label, frame, points: [...points] }
    : { label, frame, mask: encodeSelectionMask(points, pointCount) };
}

export const plots = {
  list: (q: PlotListQuery, signal?: AbortSignal) => api('/plots' + queryString(q), PlotPage, { signal }),
  get: (id: string) => api(plotPath(id), Plot),
  patch: (id: string, patch: PlotPatch) => api(plotPath(id), Plot, { method: 'PATCH', json: patch }),
  remove: (id: string) => api(plotPath(id), null, { method: 'DELETE' }),
  createCluster: (id: string, cluster: NewCluster) =>
    api(`${plotPath(id)}/clusters`, ClusterCreated, { method: 'POST', json: clusterBody(cluster) }),
  deleteCluster: (id: string, key: number) => api(`${plotPath(id)}/clusters/${key}`, ClusterKeysChanged, { method: 'DELETE' }),
  clusterEdits: (id: string) => api(`${plotPath(id)}/clusters/edits`, ClusterEdits),
  undoClusterEdit: (id: string, edit: string) => api(`${plotPath(id)}/clusters/undo`, ClusterKeysChanged, { method: 'POST', json: { edit } }),
  upload: (form: FormData, onProgress: (f: number) => void) => uploadWithProgress('/plots', form, PlotCreated, onProgress),
  positions: async (id: string, frame: number, signal?: AbortSignal) =>
    new Float32Array(await apiBinary(framePath(id, frame, 'positions'), signal)),
  clusters: async (id: string, frame: number, signal?: AbortSignal) =>
    new Uint32Array(await apiBinary(framePath(id, frame, 'clusters'), signal)),
  labels: (id: string, frame: number) => api(framePath(id, frame, 'labels'), z.array(z.string())),
  /** A metadata column's values in a frame, as its bytes (see columnArray). */
  column: (id: string, frame: number, column: number, signal?: AbortSignal) => apiBinary(framePath(id, frame, `columns/${column}`), signal),
  edges: (id: string, frame: number) => api(framePath(id, frame, 'edges'), z.array(Edge)),
  search: (id: string, label: string, frame: number, column?: string) =>
    api(`${plotPath(id)}/search` + queryString({ label, frame, column }), SearchResult),
  thumbnailUrl: (id: string, version: string) => `/api/v1${plotPath(id)}/thumbnail?v=${encodeURIComponent(version)}`,
  putThumbnail: (id: string, png: Blob) =>
    apiRaw(`${plotPath(id)}/thumbnail`, { method: 'PUT', body: png, contentType: 'image/png' }),
  views: (id: string) => api(`${plotPath(id)}/views`, z.record(z.string(), z.unknown())),
  saveView: (id: string, name: string, state: unknown) =>
    api(`${plotPath(id)}/views/${encodeURIComponent(name)}`, null, { method: 'PUT', json: state }),
  deleteView: (id: string, name: string) =>
    api(`${plotPath(id)}/views/${encodeURIComponent(name)}`, null, { method: 'DELETE' }),
  selections: (id: string) => api(`${plotPath(id)}/selections`, z.array(SelectionInfo)),
  selection: (id: string, name: string) =>
    api(`${plotPath(id)}/selections/${encodeURIComponent(name)}` + queryString({ encoding: 'mask' }), Selection),
  /** Sent as a bitset: as short as indices for small selections, far shorter for large ones. */
  saveSelection: (id: string, name: string, frame: number, points: readonly number[], pointCount: number) =>
    api(`${plotPath(id)}/selections/${encodeURIComponent(name)}`, SelectionInfo, {
      method: 'PUT', json: { frame, mask: encodeSelectionMask(points, pointCount) } satisfies SelectionInput,
    }),
  deleteSelection: (id: string, name: string) =>
    api(`${plotPath(id)}/selections/${encodeURIComponent(name)}`, null, { method: 'DELETE' }),
  /** The plot's tree; null when it has none. */
  tree: (id: string) => api(`${plotPath(id)}/tree`, PlotTree.nullable()),
  /** Attaches a Newick file (replacing the plot's tree): what matched the points. */
  putTree: (id: string, file: File, root: TreeRoot) => {
    const form = new FormData();
    form.set('file', file, file.name);
    form.set('root', root);
    return api(`${plotPath(id)}/tree`, PlotTreeInfo, { method: 'PUT', body: form });
  },
  deleteTree: (id: string) => api(`${plotPath(id)}/tree`, null, { method: 'DELETE' }),
  exportUrl: (id: string, format: 'pviz' | 'original') => `/api/v1${plotPath(id)}/export?format=${format}`,
  /** Re-clusters points of a clustering job's plot (a cluster or a selection, as a bitset): the new job. */
  recluster: (id: string, body: ReclusterRequest) =>
    api(`${plotPath(id)}/recluster`, ReclusterStarted, { method: 'POST', json: body }),
};

export const collections = {
  list: () => api('/collections', z.array(Collection)),
  create: (name: string, description = '') => api('/collections', Collection, { method: 'POST', json: { name, description } }),
  rename: (id: string, name: string) => api(collectionPath(id), Collection, { method: 'PATCH', json: { name } }),
  /** Its plots stay, in no collection. */
  remove: (id: string) => api(collectionPath(id), null, { method: 'DELETE' }),
};
const collectionPath = (id: string) => `/collections/${encodeURIComponent(id)}`;

export const tags = { list: () => api('/tags', z.array(TagCount)) };

export const storage = { use: () => api('/storage', StorageUse) };

const jobPath = (id: string) => `/jobs/${encodeURIComponent(id)}`;

export const jobs = {
  submit: (form: FormData, onProgress: (f: number) => void) => uploadWithProgress('/jobs', form, JobCreated, onProgress),
  list: () => api('/jobs', JobPage),
  get: (id: string) => api(jobPath(id), Job),
  logs: (id: string, stage: string) => api(`${jobPath(id)}/logs` + queryString({ stage }), JobLogs),
  cancel: (id: string) => api(`${jobPath(id)}/cancel`, Job, { method: 'POST' }),
  retry: (id: string) => api(`${jobPath(id)}/retry`, JobCreated, { method: 'POST' }),
  /** Server-Sent Events: the whole job at every change, then `end`. */
  eventsUrl: (id: string) => `/api/v1${jobPath(id)}/events`,
};
