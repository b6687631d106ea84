import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { test } from 'node:test';
import { INDEX_ENTRY, writePviz, type ExportPlot } from '../../src/formats/export.ts';
import { parseFile } from '../../src/formats/index.ts';
import type { ParsedFrame, ParsedPlot } from '../../src/formats/types.ts';
import { LIMITS, TREE_SAMPLE, tempPath } from './helpers.ts';
import yauzl from 'yauzl';

/** What the store would hand to export: every cluster with a colour. */
function toExport(plot: ParsedPlot, frames: ExportPlot['frames'] = plot.frames): ExportPlot {
  return {
    title: plot.title,
    clusters: plot.clusters.map((c) => ({ ...c, color: c.color ?? { r: c.key % 256, g: 10, b: 20, a: 255 } })),
    frameCount: plot.frames.length,
    frames,
  };
}

async function exportAndReparse(plot: ExportPlot, name: string): Promise<ParsedPlot> {
  const path = tempPath(name);
  await writePviz(plot, createWriteStream(path));
  return parseFile(path, name, LIMITS);
}

function assertSameFrames(actual: ParsedFrame[], expected: ParsedFrame[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((frame, i) => {
    assert.deepEqual(Buffer.from(frame.positions.buffer), Buffer.from(expected[i].positions.buffer), `frame ${i} positions`);
    assert.deepEqual(frame.clusterKeys, expected[i].clusterKeys, `frame ${i} cluster keys`);
    assert.deepEqual(frame.labels, expected[i].labels, `frame ${i} labels`);
    assert.deepEqual(frame.edges.map((e) => e.vertices), expected[i].edges.map((e) => e.vertices), `frame ${i} edges`);
    assert.equal(frame.title, expected[i].title);
  });
}

test('tree_sample.pviz: export → re-parse gives the same plot', async () => {
  const original = await parseFile(TREE_SAMPLE, 'tree_sample.pviz', LIMITS);
  const exported = toExport(original);
  const again = await exportAndReparse(exported, 'tree.pviz');
  assertSameFrames(again.frames, original.frames);
  assert.deepEqual(again.clusters, exported.clusters);
  assert.equal(again.title, original.title);
  assert.deepEqual(again.warnings, []);
});

function frame(title: string, n: number, seed: number): ParsedFrame {
  const positions = new Float32Array(n * 3).map((_, i) => Math.sin(seed + i) * 10 ** ((i % 9) - 4));
  return {
    title,
    positions,
    clusterKeys: Uint32Array.from({ length: n }, (_, i) => (i * 7 + seed) % 5),
    labels: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? `<tag> & "q" 'a' ${i} é` : i % 4 === 1 ? '' : `p${i}`)),
    edges: [
      { key: 'e&1', vertices: [0, 1, 2] },
      { key: 'e2', vertices: [n - 1, 0] },
    ],
  };
}

test('a time series exports as a ZIP with an index and reads back frame by frame', async () => {
  const frames = [frame('first <t>', 50, 1), frame('second', 70, 2), frame('third', 30, 3)];
  const clusters = [0, 1, 2, 3, 4].map((key) => ({
    key,
    label: `cluster ${key} & more`,
    color: { r: key, g: 255 - key, b: 7, a: 200 },
    shape: key,
    size: 1.5,
    visible: key !== 2,
  }));
  async function* lazy() {
    for (const f of frames) yield f; // the store streams frames one by one
  }
  const path = tempPath('series.zip');
  const title = 'Stocks <2004–2014>\n& more';
  await writePviz({ title, clusters, frameCount: 3, frames: lazy() }, createWriteStream(path));
  const names = await zipEntryNames(path);
  assert.deepEqual(names, ['frame_1.pviz', 'frame_2.pviz', 'frame_3.pviz', INDEX_ENTRY]);
  const again = await parseFile(path, 'download.zip', LIMITS);
  assert.equal(again.title, 'Stocks <2004–2014> & more', 'the title travels in the index, on one line');
  assertSameFrames(again.frames, frames);
  assert.deepEqual(again.clusters, clusters);
});

test('a wrong frameCount is an error, not a truncated file', async () => {
  const original = await parseFile(TREE_SAMPLE, 'tree_sample.pviz', LIMITS);
  const plot = { ...toExport(original), frameCount: 2 };
  await assert.rejects(writePviz(plot, createWriteStream(tempPath('x.zip'))), /frameCount is 2 but 1 frames/);
});

function zipEntryNames(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: false }, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => names.push(entry.fileName));
      zip.on('end', () => resolve(names));
      zip.on('error', reject);
    });
  });
}

test("characters XML cannot hold are dropped from labels and titles; Python's xml.etree parses the export", async () => {
  const bad = 'a\u0000b\u001bc\u0001\u0008\u000b\u000c\u001f\ud800d\udc00e\ufffe\uffff';
  const kept = 'tab\there, emoji \u{1f600}, \ue000\ufffd';
  const plot: ExportPlot = {
    title: `title ${bad}`,
    clusters: [{ key: 0, label: `cluster ${bad}`, color: { r: 1, g: 2, b: 3, a: 255 }, shape: 0, size: 1, visible: true }],
    frameCount: 1,
    frames: [
      {
        title: `frame ${bad}`,
        positions: new Float32Array([0, 1, 2, 3, 4, 5]),
        clusterKeys: new Uint32Array([0, 0]),
        labels: [bad, kept],
        edges: [{ key: `edge ${bad}`, vertices: [0, 1] }],
      },
    ],
  };
  const path = tempPath('controls.pviz');
  await writePviz(plot, createWriteStream(path));
  const script = [
    'import sys, json, xml.etree.ElementTree as E',
    'root = E.parse(sys.argv[1]).getroot()',
    "print(json.dumps([root.findtext('plot/title'), root.findtext('clusters/cluster/label'),",
    "  [p.findtext('label') for p in root.iter('point')], root.findtext('edges/edge/key')]))",
  ].join('\n');
  const parsed = JSON.parse(execFileSync('python3', ['-c', script, path], { encoding: 'utf8' }));
  assert.deepEqual(parsed, ['frame abcde', 'cluster abcde', ['abcde', kept], 'edge abcde']);
  const again = await parseFile(path, 'controls.pviz', LIMITS);
  assert.deepEqual(again.frames[0].labels, ['abcde', kept]);
});
