// Shapes of the stored documents. Point data never lives here: it is in binary blobs (blobs.ts).
import type { BoundingBox, Cluster, DisplaySettings, FrameInfo, PlotColumn, TokenScope, Visibility } from '@wpv/schema';
import type { FormatName } from '../formats/types.ts';

export interface UserDoc {
  _id: string; // lower-cased username: one account per name regardless of case
  username: string;
  passwordHash: string; // argon2id, PHC string
  createdAt: Date;
}

export interface SessionDoc {
  _id: string; // SHA-256 of the cookie value: a leaked database yields no live session
  username: string;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface TokenDoc {
  _id: string;
  tokenHash: string; // SHA-256 of the bearer token
  username: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Absent on tokens made before scopes: full. */
  scope?: TokenScope;
  /** Null or absent: until revoked. */
  expiresAt?: Date | null;
}

/**
 * A token name claimed for one of the user's tokens, before the token is stored, so two tokens
 * cannot share a name even when created together: `_id` the token's, `name` "<username>/<name>"
 * under a unique index (users.ts: a claim whose token never came is taken over).
 */
export interface TokenClaimDoc {
  _id: string;
  name: string;
  claimedAt: Date;
}

/** `ingesting` plots are invisible: a plot appears only once all its data is stored. */
export type PlotState = 'ingesting' | 'ready';

export interface PlotDoc {
  _id: string;
  state: PlotState;
  name: string;
  /** The key the library sorts names on (sortKey, in @wpv/schema): FerretDB 1.24 sorts with no collation. */
  sortName: string;
  description: string;
  owner: string;
  visibility: Visibility;
  collection: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date;
  format: FormatName;
  originalName: string;
  frames: number;
  points: number;
  clusterCount: number;
  bbox: BoundingBox;
  hasThumbnail: boolean;
  /** The thumbnail was drawn on the server (at ingest, or the demo loader's), not sent by the viewer. */
  thumbnailDrawn?: boolean;
  display?: DisplaySettings;
  /** A re-clustering's plot: the plot whose points it re-clusters. */
  parent?: string;
  /**
   * Bytes of its blobs when stored (frames, columns, thumbnail, original file) and of the distance matrix
   * its job keeps for re-clustering; absent on plots stored before they were counted.
   */
  storedBytes?: number;
  /** Its data is being removed (a delete, or the sweep of an ingest cut short): no longer counted against the quota. */
  deleting?: true;
}

/** The large per-plot parts: read and written whole, never queried by field. */
export interface PlotDetails {
  clusters: Cluster[];
  frameList: FrameInfo[];
  views: Record<string, unknown>;
  /** Metadata columns (absent in plots stored before them). */
  columns?: PlotColumn[];
  /** Cluster edits that undo can take back, oldest first (services/clusters.ts). */
  clusterEdits?: ClusterEditRecord[];
  /** Keys of clusters made in the viewer, deleted ones too: each has the blob of its points' earlier keys. */
  madeClusters?: number[];
}

export interface ClusterEditRecord {
  id: string;
  kind: 'make' | 'delete';
  /** the cluster as it was made, or as it was before it was deleted */
  cluster: Cluster;
  /** its row in the table before a delete */
  index: number;
  at: string;
}

/**
 * PlotDetails kept out of PlotDoc, so library queries scan small documents, and
 * stored as one JSON string: FerretDB converts nested documents field by field
 * (a 3,640-cluster table took ~1 s to read), while a string passes through whole.
 */
export interface PlotDetailsDoc {
  _id: string; // the plot id
  json: string;
}

export interface CollectionDoc {
  _id: string;
  name: string;
  description: string;
  owner: string;
  createdAt: Date;
}
