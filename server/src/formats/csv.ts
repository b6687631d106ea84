// CSV with a header line naming the columns x, y and optionally z (2D when
// absent), cluster, label and id (case-insensitive); every other column is a
// metadata column of the points (columns.ts decides number or category).
// Rows are read by csv-rows.ts (RFC 4180 quoting). A column read here may be
// named once only.
// The cluster column is numeric when its first value is an unsigned integer
// (then every value must be one); otherwise every value is a cluster name,
// numbered in order of appearance across the frames of a plot.
import { forEachCsvRow } from './csv-rows.ts';
import { FrameBuilder } from './frame-builder.ts';
import { parseFloat32Text } from './numbers.ts';
import {
  defaultCluster,
  inputError,
  parseClusterKey,
  quoted,
  titleFromName,
  type FrameInput,
  type FrameRead,
} from './reader.ts';
import type { ClusterDef } from './types.ts';

const COLUMN_NAMES = ['x', 'y', 'z', 'cluster', 'label', 'id'] as const;
type Column = (typeof COLUMN_NAMES)[number];

interface Header {
  columnOf: Record<Column, number>;
  /** The metadata columns: name as written (trimmed) and position. */
  extras: { name: string; at: number }[];
}

export async function readCsvFrame(input: FrameInput): Promise<FrameRead> {
  const builder = new FrameBuilder(input);
  let header: Header | null = null;
  let columnCount = 0;
  let numericClusters: boolean | null = null;
  const declared = new Map<number, ClusterDef>();

  const onRow = (fields: string[], line: number) => {
    if (header === null) {
      header = readHeader(input, fields, line);
      columnCount = fields.length;
      return;
    }
    const { columnOf, extras } = header;
    if (fields.length !== columnCount) {
      throw inputError(input, 'column_count', `expected ${columnCount} fields like the header, found ${fields.length}`, line);
    }
    const coordinate = (column: number, name: string): number => {
      if (column < 0) return 0;
      const text = fields[column].trim();
      const value = text.length === 0 ? NaN : parseFloat32Text(text);
      if (Number.isNaN(value) && text !== 'NaN') {
        throw inputError(input, 'bad_number', `${name}: ${quoted(text)} is not a number`, line);
      }
      return value;
    };
    let cluster = 0;
    if (columnOf.cluster >= 0) {
      const text = fields[columnOf.cluster].trim();
      numericClusters ??= parseClusterKey(text) >= 0;
      cluster = numericClusters ? parseClusterKey(text) : clusterKeyForName(input.clusterNames, declared, text);
      if (cluster < 0) {
        throw inputError(input, 'bad_cluster_key', `cluster ${quoted(text)} is not an unsigned integer like the first row's`, line);
      }
    }
    builder.add(
      columnOf.id >= 0 ? fields[columnOf.id].trim() : null,
      coordinate(columnOf.x, 'x'),
      coordinate(columnOf.y, 'y'),
      coordinate(columnOf.z, 'z'),
      cluster,
      columnOf.label >= 0 ? fields[columnOf.label] : '',
      line,
    );
    for (const { name, at } of extras) builder.setColumn(name, fields[at].trim());
  };

  const lastLine = await forEachCsvRow(input.chunks, onRow, input.entry);
  if (header === null) throw inputError(input, 'empty_file', 'the file is empty');
  return {
    frame: builder.finish(titleFromName(input.name), [], lastLine),
    titleFromContent: false,
    declared: [...declared.values()],
    implicitClusters: true,
  };
}

function readHeader(input: FrameInput, fields: string[], line: number): Header {
  const names = fields.map((field) => field.trim().toLowerCase());
  const columnOf = {} as Record<Column, number>;
  for (const column of COLUMN_NAMES) columnOf[column] = names.indexOf(column);
  // A column named twice would be read from one of them, silently.
  const twice = COLUMN_NAMES.filter((column) => columnOf[column] >= 0 && names.indexOf(column, columnOf[column] + 1) >= 0);
  if (twice.length > 0) {
    const which = twice.map((column) => `${column} (columns ${names.flatMap((name, i) => (name === column ? [i + 1] : [])).join(', ')})`);
    throw inputError(input, 'duplicate_csv_column', `the header names ${which.join(' and ')} more than once`, line);
  }
  if (columnOf.x < 0 || columnOf.y < 0) {
    throw inputError(input, 'bad_csv_header', `the header must name columns x and y (found: ${quoted(fields.join(','))})`, line);
  }
  const extras = fields.flatMap((field, at) =>
    (COLUMN_NAMES as readonly string[]).includes(names[at]) ? [] : [{ name: field.trim() || `column ${at + 1}`, at }],
  );
  const seen = new Set<string>();
  for (const { name } of extras) {
    if (seen.has(name)) throw inputError(input, 'duplicate_csv_column', `the header names ${quoted(name)} more than once`, line);
    seen.add(name);
  }
  return { columnOf, extras };
}

function clusterKeyForName(names: Map<string, number>, declared: Map<number, ClusterDef>, name: string): number {
  let key = names.get(name);
  if (key === undefined) {
    key = names.size;
    names.set(name, key);
  }
  if (!declared.has(key)) declared.set(key, defaultCluster(key, name));
  return key;
}
