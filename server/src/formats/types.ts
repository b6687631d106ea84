// One interface for every plot file format. A parser reads an uploaded file
// from disk (streaming; never the whole text in memory) into typed arrays.
import type { DisplaySettings, Rgba } from '@wpv/schema';

export type FormatName = 'pviz' | 'text' | 'csv' | 'zip';

/** A cluster declared by the file (or auto-declared for an undeclared key). */
export interface ClusterDef {
  key: number;
  label: string;
  color: Rgba | null; // null: the store assigns a palette colour
  shape: number; // 0–6
  size: number;
  visible: boolean;
  /** Index of the cluster's centre point (a job's DA-PWC medoid), marked in place. */
  centre?: number;
  /** Mean silhouette of its points (a job's DA-PWC clusters). */
  silhouette?: number;
}

export interface ParsedEdge {
  key: string;
  vertices: number[]; // point indices in the frame, two or more
}

export interface ParsedFrame {
  title: string;
  positions: Float32Array; // x,y,z per point
  clusterKeys: Uint32Array; // one per point
  labels: string[]; // one per point, '' when the file has none
  edges: ParsedEdge[];
  /** Metadata columns by name, in file order: each point's value as text, '' when missing (encoded by columns.ts). */
  columns?: Map<string, string[]>;
}

export interface ParsedPlot {
  title: string;
  clusters: ClusterDef[]; // union over frames, sorted by key
  frames: ParsedFrame[];
  warnings: string[];
  /** present when the file sets any (PlotViz <plot>) */
  display?: DisplaySettings;
  /** The plot this one re-clusters points of (a recluster job's): linked both ways on ingest. */
  parent?: string;
}

export interface ParseLimits {
  maxPoints: number; // per frame
  maxFrames: number;
  maxUncompressedBytes: number; // ZIP: total of all entries
  maxCompressionRatio: number; // ZIP: per entry and overall
}

export interface FormatParser {
  readonly name: FormatName;
  /**
   * `path` is a server-side temporary file; `originalName` is only for messages. When `signal`
   * aborts (the client went), parsing stops at the next chunk, throwing its reason.
   */
  parse(path: string, originalName: string, limits: ParseLimits, signal?: AbortSignal): Promise<ParsedPlot>;
}

/** A problem with the uploaded file: answered as HTTP `status` with this code. */
export class InputError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: { line?: number; file?: string; field?: string; status?: number } = {},
  ) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * An error about a job's input file: its message starts with the field, as the API's do (the
 * browser then does not add "(field file)" after it), then the line.
 */
export const fileError = (code: string, message: string, line: number | undefined, status: number) =>
  new InputError(code, `file: ${line === undefined ? '' : `line ${line}: `}${message}`, { line, field: 'file', status });
