// One ingest measurement in a fresh process (so that peak RSS belongs to it):
//   npx tsx bench/ingest/measure.ts stream|dom|rows <file> [<warm-up file>]
// prints one JSON line: points, wall and CPU milliseconds, RSS before and peak.
// With a warm-up file, that file is parsed first (untimed), as in a server
// that has already handled uploads: the JIT has compiled the parser.
//   stream: parseFile of server/src/formats (streaming, typed arrays)
//   dom:    the generic approach: read the whole file into one string, build a
//           DOM tree of every element with saxes, then walk it into arrays.
//   rows:   a CSV file's records through the shared CSV reader (csv-rows.ts,
//           csv-parse) and nothing else: the reader's share of CSV ingest.
import { readFileSync } from 'node:fs';
import { SaxesParser } from 'saxes';
import { fileChunks } from '../../server/src/formats/chunks.ts';
import { forEachCsvRow } from '../../server/src/formats/csv-rows.ts';
import { parseFile } from '../../server/src/formats/index.ts';

const LIMITS = { maxPoints: 10_000_000, maxFrames: 1, maxUncompressedBytes: 1 << 30, maxCompressionRatio: 100 };

interface DomElement {
  name: string;
  attributes: Record<string, string>;
  children: DomElement[];
  text: string;
}

function parseDom(path: string): number {
  const xml = readFileSync(path, 'utf8');
  const root: DomElement = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const element: DomElement = { name: tag.name, attributes: tag.attributes as Record<string, string>, children: [], text: '' };
    stack[stack.length - 1].children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (text) => (stack[stack.length - 1].text += text));
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  const points = root.children[0].children.find((child) => child.name === 'points')?.children ?? [];
  const positions = new Float32Array(points.length * 3);
  const clusterKeys = new Uint32Array(points.length);
  const labels: string[] = [];
  points.forEach((point, i) => {
    const field = (name: string) => point.children.find((child) => child.name === name);
    const location = field('location')!.attributes;
    positions.set([Number(location.x), Number(location.y), Number(location.z)], i * 3);
    clusterKeys[i] = Number(field('clusterkey')!.text);
    labels.push(field('label')?.text ?? '');
  });
  return points.length;
}

const [mode, path, warmUp] = process.argv.slice(2);
async function readRows(path: string): Promise<number> {
  let rows = 0;
  await forEachCsvRow(fileChunks(path), () => rows++);
  return rows - 1; // the header
}

const PARSE = {
  stream: async (file: string) => (await parseFile(file, file, LIMITS)).frames[0].clusterKeys.length,
  dom: async (file: string) => parseDom(file),
  rows: readRows,
};
if (!(mode in PARSE) || !path) {
  console.error('usage: measure.ts stream|dom|rows <file> [<warm-up file>]');
  process.exit(2);
}
const parse = PARSE[mode as keyof typeof PARSE];
if (warmUp) await parse(warmUp);
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const start = performance.now();
const points = await parse(path);
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
console.log(
  JSON.stringify({
    mode,
    points,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBeforeBytes: rssBefore,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  }),
);
