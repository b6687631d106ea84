// Export as PlotViz XML: one frame → a .pviz document; several frames → a ZIP
// of one .pviz per frame plus "plot.index" listing them in order under the
// plot's title (what the ZIP reader accepts back). Everything is streamed:
// frames may be produced lazily (an async iterable), and each is written
// before the next is pulled.
import { Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import type { Rgba } from '@wpv/schema';
import { formatIndex } from './time-series-index.ts';
import type { ClusterDef, ParsedFrame } from './types.ts';

export interface ExportCluster extends Omit<ClusterDef, 'color'> {
  color: Rgba;
}

export interface ExportPlot {
  title: string;
  clusters: ExportCluster[];
  /** Needed up front: one frame is written as XML, more as a ZIP. */
  frameCount: number;
  frames: Iterable<ParsedFrame> | AsyncIterable<ParsedFrame>;
}

const POINTS_PER_WRITE = 2000;
export const INDEX_ENTRY = 'plot.index';

export async function writePviz(plot: ExportPlot, out: Writable): Promise<void> {
  if (plot.frameCount === 1) {
    for await (const frame of plot.frames) {
      await pipeline(Readable.from(pvizDocument(frame.title || plot.title, plot.clusters, frame)), out);
      return;
    }
    throw new Error('writePviz: frameCount is 1 but no frame was given');
  }
  await writeTimeSeries(plot, out);
}

async function writeTimeSeries(plot: ExportPlot, out: Writable): Promise<void> {
  const zip = new yazl.ZipFile();
  const written = pipeline(zip.outputStream, out);
  const width = String(plot.frameCount).length;
  const names: string[] = [];
  try {
    for await (const frame of plot.frames) {
      const name = `frame_${String(names.length + 1).padStart(width, '0')}.pviz`;
      names.push(name);
      const entry = Readable.from(pvizDocument(frame.title, plot.clusters, frame));
      zip.addReadStream(entry, name);
      await Promise.race([finished(entry), written]); // hold one frame at a time
    }
    if (names.length !== plot.frameCount) {
      throw new Error(`writePviz: frameCount is ${plot.frameCount} but ${names.length} frames were given`);
    }
    zip.addBuffer(Buffer.from(formatIndex(plot.title, names)), INDEX_ENTRY);
    zip.end();
  } catch (error) {
    (zip.outputStream as Readable).destroy(error as Error);
    await written.catch(() => undefined); // the pipeline fails with the same error; it also ends `out`
    throw error;
  }
  await written;
}

function* pvizDocument(title: string, clusters: ExportCluster[], frame: ParsedFrame): Generator<string> {
  yield `<?xml version="1.0" encoding="utf-8"?>\n<plotviz>\n  <plot>\n    <title>${escapeXml(title)}</title>\n  </plot>\n  <clusters>\n`;
  for (const c of clusters) {
    yield (
      `    <cluster>\n      <key>${c.key}</key>\n      <label>${escapeXml(c.label)}</label>\n` +
      `      <visible>${c.visible ? 1 : 0}</visible>\n      <default>0</default>\n` +
      `      <color r="${c.color.r}" g="${c.color.g}" b="${c.color.b}" a="${c.color.a}" />\n` +
      `      <size>${c.size}</size>\n      <shape>${c.shape}</shape>\n    </cluster>\n`
    );
  }
  yield '  </clusters>\n  <points>\n';
  const { positions, clusterKeys, labels } = frame;
  // Metadata columns as <property name="…">, the form the reader takes back; missing values are left out.
  const columns = [...(frame.columns ?? [])].map(([name, values]) => [`      <property name="${escapeXml(name)}">`, values] as const);
  for (let start = 0; start < clusterKeys.length; start += POINTS_PER_WRITE) {
    let block = '';
    for (let i = start; i < Math.min(clusterKeys.length, start + POINTS_PER_WRITE); i++) {
      // String() of a Float32 value read back as a double and rounded to Float32 gives the same value.
      block +=
        `    <point>\n      <key>${i}</key>\n      <clusterkey>${clusterKeys[i]}</clusterkey>\n` +
        `      <label>${escapeXml(labels[i])}</label>\n` +
        `      <location x="${positions[3 * i]}" y="${positions[3 * i + 1]}" z="${positions[3 * i + 2]}" />\n`;
      for (const [open, values] of columns) if (values[i] !== '') block += `${open}${escapeXml(values[i]!)}</property>\n`;
      block += '    </point>\n';
    }
    yield block;
  }
  yield '  </points>\n  <edges>\n';
  for (const edge of frame.edges) {
    const vertices = edge.vertices.map((v) => `        <vertex key="${v}" />\n`).join('');
    yield `    <edge>\n      <key>${escapeXml(edge.key)}</key>\n      <vertices>\n${vertices}      </vertices>\n    </edge>\n`;
  }
  yield '  </edges>\n</plotviz>\n';
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
/** What needs work: markup characters, and UTF-16 units that may be outside XML 1.0's characters. */
const SUSPECT = /[&<>"'\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]/;
/**
 * Code points XML 1.0 has no way to write, not even as a character reference
 * (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF): dropped,
 * so that every XML parser reads the export. Labels may hold them (text and
 * CSV uploads accept any character).
 */
const NOT_XML = /[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function escapeXml(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
}
