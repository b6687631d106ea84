// CSV with a header line naming the columns x, y and optionally z (2D when
// absent), cluster, label and id (case-insensitive; other columns ignored).
// RFC 4180 quoting: "a, b", doubled "" inside quotes, line breaks inside quotes.
// The cluster column is numeric when its first value is an unsigned integer
// (then every value must be one); otherwise every value is a cluster name,
// numbered in order of appearance across the frames of a plot.
import { MAX_LINE_CHARS, decodeUtf8, forEachLine } from './chunks.ts';
import { FrameBuilder } from './frame-builder.ts';
import { parseFloat32Text } from './numbers.ts';
import {
  defaultCluster,
  inputError,
  parseClusterKey,
  titleFromName,
  type FrameInput,
  type FrameRead,
} from './reader.ts';
import type { ClusterDef } from './types.ts';

const COLUMN_NAMES = ['x', 'y', 'z', 'cluster', 'label', 'id'] as const;
type Column = (typeof COLUMN_NAMES)[number];

export async function readCsvFrame(input: FrameInput): Promise<FrameRead> {
  const builder = new FrameBuilder(input);
  let columnOf: Record<Column, number> | null = null;
  let columnCount = 0;
  let numericClusters: boolean | null = null;
  const declared = new Map<number, ClusterDef>();
  // A record whose quoted field spans lines: its text so far and first line.
  let pending = '';
  let pendingLine = 0;

  const onRecord = (record: string, line: number) => {
    const fields = splitCsvRecord(record);
    if (columnOf === null) {
      columnOf = readHeader(input, fields, line);
      columnCount = fields.length;
      return;
    }
    if (fields.length !== columnCount) {
      throw inputError(input, 'column_count', `expected ${columnCount} fields like the header, found ${fields.length}`, line);
    }
    const coordinate = (column: number): number => {
      if (column < 0) return 0;
      const text = fields[column].trim();
      const value = text.length === 0 ? NaN : parseFloat32Text(text);
      if (Number.isNaN(value) && text !== 'NaN') {
        throw inputError(input, 'bad_number', `"${text}" is not a number`, line);
      }
      return value;
    };
    let cluster = 0;
    if (columnOf.cluster >= 0) {
      const text = fields[columnOf.cluster].trim();
      numericClusters ??= parseClusterKey(text) >= 0;
      cluster = numericClusters ? parseClusterKey(text) : clusterKeyForName(input.clusterNames, declared, text);
      if (cluster < 0) {
        throw inputError(input, 'bad_cluster_key', `cluster "${text}" is not an unsigned integer like the first row's`, line);
      }
    }
    builder.add(
      columnOf.id >= 0 ? fields[columnOf.id].trim() : null,
      coordinate(columnOf.x),
      coordinate(columnOf.y),
      coordinate(columnOf.z),
      cluster,
      columnOf.label >= 0 ? fields[columnOf.label] : '',
      line,
    );
  };

  const lastLine = await forEachLine(
    decodeUtf8(input.chunks),
    (text, start, end, lineNo) => {
      const line = text.slice(start, end);
      if (pending.length === 0 && line.trim().length === 0) return;
      const record = pending.length > 0 ? pending + '\n' + line : line;
      if (pending.length === 0) pendingLine = lineNo;
      if (hasOpenQuote(record)) {
        if (record.length > MAX_LINE_CHARS) {
          throw inputError(input, 'bad_csv', `a quoted field runs over ${MAX_LINE_CHARS} characters`, pendingLine);
        }
        pending = record;
        return;
      }
      pending = '';
      onRecord(record, pendingLine);
    },
    input.entry,
  );
  if (pending.length > 0) throw inputError(input, 'bad_csv', 'a quoted field is not closed', pendingLine);
  if (columnOf === null) throw inputError(input, 'empty_file', 'the file is empty', lastLine);
  return {
    frame: builder.finish(titleFromName(input.name), [], lastLine),
    titleFromContent: false,
    declared: [...declared.values()],
    implicitClusters: true,
  };
}

function readHeader(input: FrameInput, fields: string[], line: number): Record<Column, number> {
  const names = fields.map((field) => field.trim().toLowerCase());
  const columnOf = {} as Record<Column, number>;
  for (const column of COLUMN_NAMES) columnOf[column] = names.indexOf(column);
  if (columnOf.x < 0 || columnOf.y < 0) {
    throw inputError(input, 'bad_csv_header', `the header must name columns x and y (found: ${fields.join(', ')})`, line);
  }
  return columnOf;
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

/** True when the record ends inside a quoted field (an odd number of quotes). */
function hasOpenQuote(record: string): boolean {
  let open = false;
  for (let i = record.indexOf('"'); i !== -1; i = record.indexOf('"', i + 1)) open = !open;
  return open;
}

/** Splits one CSV record into fields, removing quotes and undoubling "". */
function splitCsvRecord(record: string): string[] {
  if (record.indexOf('"') === -1) return record.split(',');
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const c = record[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (record[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}
