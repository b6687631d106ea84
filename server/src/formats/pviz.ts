// PlotViz XML: <plotviz> with plot/title, plot/pointsize, plot/glyph, clusters/cluster, points/point and
// edges/edge (see README.md). Other elements are checked for
// well-formedness and ignored. Edge vertices name point keys; they are resolved
// to point indices at the end, so edges may come before or after the points.
import { VIEW_BYTES } from './chunks.ts';
import { FrameBuilder } from './frame-builder.ts';
import {
  clipped,
  defaultCluster,
  inputError,
  parseClusterKey,
  quoted,
  titleFromName,
  type FrameInput,
  type FrameRead,
} from './reader.ts';
import type { DisplaySettings } from '@wpv/schema';
import type { ClusterDef, ParsedEdge } from './types.ts';
import { XmlScanner, type XmlAttributes, type XmlHandler, type XmlText } from './xml-scanner.ts';

export async function readPvizFrame(input: FrameInput): Promise<FrameRead> {
  const handler = new PlotVizHandler(input);
  const fail = (code: string, message: string, line: number): never => {
    throw inputError(input, code, message, line);
  };
  const scanner = new XmlScanner(handler, fail, NAMES);
  handler.scanner = scanner;
  // Fed in slices, as the scanner views what it is fed as a string (see VIEW_BYTES).
  for await (const chunk of input.chunks) {
    for (let at = 0; at < chunk.length; at += VIEW_BYTES) scanner.feed(chunk.subarray(at, at + VIEW_BYTES));
  }
  scanner.end();
  return handler.finish(scanner.line());
}

interface PendingEdge {
  key: string;
  vertexKeys: string[];
  vertexLines: number[];
}

/** The text-valued fields of each record element, by record. */
const TEXT_FIELDS: Record<string, ReadonlySet<string>> = {
  cluster: new Set(['key', 'label', 'visible', 'size', 'shape']),
  point: new Set(['key', 'clusterkey', 'label']),
  edge: new Set(['key']),
  glyph: new Set(['visible', 'scale']),
};
/** Records whose own text is the value (no fields). */
const TEXT_RECORDS: ReadonlySet<string> = new Set(['title', 'pointsize']);
const NONE: ReadonlySet<string> = new Set();
/** Every element and attribute name read here, most frequent first (see XmlScanner's knownNames). */
const NAMES = ['point', 'key', 'clusterkey', 'label', 'location', 'x', 'y', 'z', 'plotviz', 'plot', 'title', 'clusters',
  'cluster', 'visible', 'size', 'shape', 'color', 'r', 'g', 'b', 'a', 'points', 'edges', 'edge', 'vertices', 'vertex', 'pointsize', 'glyph', 'scale',
  'property', 'name'];

class PlotVizHandler implements XmlHandler {
  wantText = false;
  scanner: XmlScanner | null = null; // set right after construction: each needs the other

  private depth = 0;
  private section = ''; // element under <plotviz>
  private record = ''; // 'title' | 'pointsize' | 'glyph' | 'cluster' | 'point' | 'edge' | '' (ignored)
  private textFields = NONE; // TEXT_FIELDS of the record
  private recordLine = 0;
  private field = ''; // record field whose text is being collected
  private collected = '';
  /** The field's text while it is one canonical unsigned integer (see XmlText.index), else -1. */
  private collectedIndex = -1;
  private inVertices = false;
  /**
   * Text fields of the current record (plain properties, not a Map: this runs
   * per point). Keys written as plain integers are kept as numbers.
   */
  private key: string | number | undefined;
  private clusterKey: string | number | undefined;
  private label: string | undefined;
  private visible: string | undefined;
  private size: string | undefined;
  private shape: string | undefined;
  private scale: string | undefined;
  private hasLocation = false;
  private x = 0;
  private y = 0;
  private z = 0;
  private color: ClusterDef['color'] = null;
  private vertexKeys: string[] = [];
  private vertexLines: number[] = [];
  /** The point's <property name="…">value</property> elements: its metadata columns. */
  private properties: [string, string][] = [];
  private propertyName = '';

  private title = '';
  private readonly display: DisplaySettings = {};
  private readonly builder: FrameBuilder;
  private readonly clusters = new Map<number, ClusterDef>();
  private readonly edges: PendingEdge[] = [];

  constructor(private readonly input: FrameInput) {
    this.builder = new FrameBuilder(input);
  }

  open(name: string, attributes: XmlAttributes): void {
    const depth = this.depth++;
    if (depth === 0) {
      if (name !== 'plotviz') this.fail('not_pviz', `the root element is <${clipped(name)}>, not <plotviz>`);
    } else if (depth === 1) {
      this.section = name;
    } else if (depth === 2) {
      this.startRecord(name);
    } else if (depth === 3 && this.record !== '' && !TEXT_RECORDS.has(this.record)) {
      if (this.textFields.has(name)) this.collect(name);
      else if (this.record === 'point' && name === 'location') this.readLocation(attributes);
      else if (this.record === 'point' && name === 'property') {
        this.propertyName = (attributes.get('name') ?? '').trim() || this.fail('missing_field', '<property> without a name attribute');
        this.collect(name);
      }
      else if (this.record === 'cluster' && name === 'color') this.color = this.readColor(attributes);
      else if (this.record === 'edge' && name === 'vertices') this.inVertices = true;
    } else if (depth === 4 && this.inVertices && name === 'vertex') {
      this.vertexKeys.push(attributes.get('key') ?? this.fail('bad_edge', '<vertex> without a key attribute'));
      this.vertexLines.push(this.scanner!.line());
    }
  }

  text(text: XmlText): void {
    const first = this.collected === '' && this.collectedIndex < 0;
    const index = first && (this.field === 'key' || this.field === 'clusterkey') ? text.index() : -1;
    if (index >= 0) {
      this.collectedIndex = index;
      return;
    }
    if (this.collectedIndex >= 0) {
      this.collected = String(this.collectedIndex); // exactly the text it was read from
      this.collectedIndex = -1;
    }
    this.collected += text.string();
  }

  close(): void {
    const depth = --this.depth;
    if (depth === 3 && this.wantText) {
      this.setField(this.field, this.collectedIndex >= 0 ? this.collectedIndex : this.collected.trim());
      this.wantText = false;
    } else if (depth === 3) {
      this.inVertices = false;
    } else if (depth === 2) {
      if (TEXT_RECORDS.has(this.record)) {
        if (this.record === 'title') this.title = this.collected.trim();
        else this.display.pointSize = this.positive('pointsize', this.collected.trim());
        this.wantText = false;
      } else if (this.record === 'glyph') this.endGlyph();
      else if (this.record === 'point') this.endPoint();
      else if (this.record === 'cluster') this.endCluster();
      else if (this.record === 'edge') this.endEdge();
      this.record = '';
    }
  }

  finish(lastLine: number): FrameRead {
    const edges: ParsedEdge[] = this.edges.map(({ key, vertexKeys, vertexLines }) => ({
      key,
      vertices: vertexKeys.map((vertexKey, i) => {
        const index = this.builder.indexOfKey(vertexKey);
        if (index < 0) {
          throw inputError(this.input, 'unknown_vertex', `edge ${quoted(key)} names point key ${quoted(vertexKey)}, which no point has`, vertexLines[i]);
        }
        return index;
      }),
    }));
    const hasTitle = this.title.length > 0;
    return {
      frame: this.builder.finish(hasTitle ? this.title : titleFromName(this.input.name), edges, lastLine),
      titleFromContent: hasTitle,
      declared: [...this.clusters.values()],
      implicitClusters: false,
      ...(Object.keys(this.display).length > 0 && { display: this.display }),
    };
  }

  private startRecord(name: string): void {
    const section = this.section;
    this.record =
      section === 'plot' && (name === 'title' || name === 'pointsize' || name === 'glyph') ? name
      : section === 'clusters' && name === 'cluster' ? 'cluster'
      : section === 'points' && name === 'point' ? 'point'
      : section === 'edges' && name === 'edge' ? 'edge'
      : '';
    if (this.record === '') return;
    this.textFields = TEXT_FIELDS[this.record] ?? NONE;
    this.recordLine = this.scanner!.line();
    this.key = this.clusterKey = this.label = this.visible = this.size = this.shape = this.scale = undefined;
    this.hasLocation = false;
    this.color = null;
    this.properties = [];
    if (TEXT_RECORDS.has(this.record)) this.collect(this.record);
    else if (this.record === 'edge') {
      this.vertexKeys = [];
      this.vertexLines = [];
    }
  }

  private collect(field: string): void {
    this.field = field;
    this.collected = '';
    this.collectedIndex = -1;
    this.wantText = true;
  }

  /** `value` is a number only for the key fields (see text()). */
  private setField(field: string, value: string | number): void {
    if (field === 'key') this.key = value;
    else if (field === 'clusterkey') this.clusterKey = value;
    else if (field === 'label') this.label = value as string;
    else if (field === 'visible') this.visible = value as string;
    else if (field === 'size') this.size = value as string;
    else if (field === 'shape') this.shape = value as string;
    else if (field === 'scale') this.scale = value as string;
    else if (field === 'property') this.properties.push([this.propertyName, value as string]);
  }

  private endPoint(): void {
    const key = this.key ?? this.fail('missing_field', '<point> without <key>');
    const clusterText = this.clusterKey ?? this.fail('missing_field', `point ${quoted(key)} has no <clusterkey>`);
    const cluster = clusterKeyOf(clusterText);
    if (cluster < 0) this.fail('bad_cluster_key', `point ${quoted(key)}: cluster key ${quoted(clusterText)} is not an unsigned integer`);
    if (!this.hasLocation) this.fail('missing_field', `point ${quoted(key)} has no <location>`);
    this.builder.add(key, this.x, this.y, this.z, cluster, this.label ?? '', this.recordLine);
    for (const [name, value] of this.properties) this.builder.setColumn(name, value);
  }

  private readLocation(attributes: XmlAttributes): void {
    this.x = this.axis(attributes, 'x', true);
    this.y = this.axis(attributes, 'y', true);
    this.z = this.axis(attributes, 'z', false);
    this.hasLocation = true;
  }

  private axis(attributes: XmlAttributes, name: string, required: boolean): number {
    const value = attributes.float32(name);
    if (value === undefined) {
      if (required) this.fail('missing_field', `<location> without ${name}`);
      return 0;
    }
    if (Number.isNaN(value) && attributes.get(name) !== 'NaN') {
      this.fail('bad_number', `${name}=${quoted(attributes.get(name)!)} is not a number`);
    }
    return value; // NaN and ±Infinity are rejected as non-finite by the builder
  }

  private endCluster(): void {
    const keyText = this.key ?? this.fail('missing_field', '<cluster> without <key>');
    const key = clusterKeyOf(keyText);
    if (key < 0) this.fail('bad_cluster_key', `cluster key ${quoted(keyText)} is not an unsigned integer`);
    if (this.clusters.has(key)) this.fail('duplicate_cluster_key', `cluster key ${key} is declared twice`);
    const cluster = defaultCluster(key, this.label ?? String(key));
    const visible = this.visible;
    if (visible !== undefined) cluster.visible = this.flag(`cluster ${key}: visible`, visible);
    if (this.size !== undefined) cluster.size = this.positive(`cluster ${key}: size`, this.size);
    const shape = this.shape;
    if (shape !== undefined) {
      cluster.shape = Number(shape);
      if (!/^\d$/.test(shape) || cluster.shape > 6) this.fail('bad_shape', `cluster ${key}: shape ${quoted(shape)} is not 0–6`);
    }
    cluster.color = this.color;
    this.clusters.set(key, cluster);
  }

  private endGlyph(): void {
    if (this.visible !== undefined) this.display.glyphsVisible = this.flag('glyph visible', this.visible);
    if (this.scale !== undefined) this.display.glyphScale = this.positive('glyph scale', this.scale);
  }

  private flag(what: string, text: string): boolean {
    if (text === '1' || text === 'true') return true;
    if (text === '0' || text === 'false') return false;
    return this.fail('bad_value', `${what} ${quoted(text)} is not 0 or 1`);
  }

  private positive(what: string, text: string): number {
    const value = Number(text);
    if (!(value > 0 && value < Infinity) || text === '') this.fail('bad_value', `${what} ${quoted(text)} is not a positive number`);
    return value;
  }

  private readColor(attributes: XmlAttributes): ClusterDef['color'] {
    const channel = (name: string): number => {
      const text = attributes.get(name);
      if (text === undefined && name === 'a') return 255;
      const value = Number(text);
      if (text === undefined || !/^\s*\d+\s*$/.test(text) || value > 255) {
        this.fail('bad_color', `color ${name}=${quoted(text ?? '')} is not 0–255`);
      }
      return value;
    };
    return { r: channel('r'), g: channel('g'), b: channel('b'), a: channel('a') };
  }

  private endEdge(): void {
    const key = String(this.key ?? this.edges.length);
    if (this.vertexKeys.length < 2) this.fail('bad_edge', `edge ${key} has ${this.vertexKeys.length} vertices; it needs two or more`);
    this.edges.push({ key, vertexKeys: this.vertexKeys, vertexLines: this.vertexLines });
  }

  /** Fails at the line of the current record (or of the current tag outside records). */
  private fail(code: string, message: string): never {
    throw inputError(this.input, code, message, this.record !== '' ? this.recordLine : this.scanner!.line());
  }
}

/** A cluster key read as a number already, or as text (see parseClusterKey); -1 when invalid. */
function clusterKeyOf(value: string | number): number {
  if (typeof value === 'string') return parseClusterKey(value);
  return value <= 0xffffffff ? value : -1;
}
