// What every format module provides: a reader turning one stream of bytes
// (a file, or one entry of a time-series ZIP) into one frame.
import type { DisplaySettings } from '@wpv/schema';
import type { ClusterDef, ParsedFrame, ParseLimits } from './types.ts';
import { InputError } from './types.ts';

export interface FrameInput {
  chunks: AsyncIterable<Buffer>;
  /** File name used for the default frame title. */
  name: string;
  /** ZIP entry name, reported in errors; undefined for a plain upload. */
  entry?: string;
  limits: ParseLimits;
  /** Cluster names → keys, shared by the frames of one plot so that they agree. */
  clusterNames: Map<string, number>;
}

export interface FrameRead {
  frame: ParsedFrame;
  /** True when the title came from the file's content, not its name. */
  titleFromContent: boolean;
  /** Clusters the file declares (PlotViz <clusters>, CSV string clusters). */
  declared: ClusterDef[];
  /**
   * True for formats whose cluster column is the declaration (text, numeric
   * CSV): keys are auto-declared silently. False for PlotViz XML, where an
   * undeclared key is worth a warning.
   */
  implicitClusters: boolean;
  /** Display settings the file gives (PlotViz <plot>); the first frame's apply to the plot. */
  display?: DisplaySettings;
}

export type FrameReader = (input: FrameInput) => Promise<FrameRead>;

/** An InputError located in the input (entry name and line prefixed to the message). */
export function inputError(
  input: Pick<FrameInput, 'entry'>,
  code: string,
  message: string,
  line?: number,
  status?: number,
): InputError {
  const where = input.entry === undefined ? '' : `${clipped(input.entry)}: `;
  const at = line === undefined ? '' : `line ${line}: `;
  return new InputError(code, `${where}${at}${message}`, { line, file: input.entry, status });
}

/** Characters of input an error message shows at most: a 10 MB line still gives a short error. */
export const QUOTED_CHARS = 200;

/** Input (a value, a name, a key) for an error message, cut to QUOTED_CHARS characters. */
export function clipped(text: string | number): string {
  const value = String(text);
  return value.length > QUOTED_CHARS ? `${value.slice(0, QUOTED_CHARS)}…` : value;
}

/** The same in double quotes, with JSON's escapes (control characters stay readable). */
export function quoted(text: string | number): string {
  return JSON.stringify(clipped(text));
}

/** Title a frame gets from its file name: the base name without extension. */
export function titleFromName(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** A cluster with the file's defaults; one whose label is blank (`<label></label>`) is named "cluster <key>". */
export function defaultCluster(key: number, label: string): ClusterDef {
  return { key, label: label.trim() || `cluster ${key}`, color: null, shape: 0, size: 1, visible: true };
}

/** A cluster key as written in a file: an unsigned 32-bit integer. */
export function parseClusterKey(text: string): number {
  const key = text.length === 0 ? NaN : Number(text);
  return Number.isInteger(key) && key >= 0 && key <= 0xffffffff ? key : -1;
}
