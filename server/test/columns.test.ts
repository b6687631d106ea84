// Metadata columns through the real API (issue 16 part 4, issue 15 part 7): listed in the
// plot metadata, served per frame as compact blobs, searched, exported, capped; and the
// job types' plots carry FASTA descriptions and stock sectors as columns.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { FILES } from '@wpv/jobs/workdir';
import type { JobDoc } from '@wpv/jobs/model';
import { columnArray, type Plot, type PlotColumn } from '@wpv/schema';
import { JOB_MODULES } from '../src/jobtypes/index.ts';
import { Client, bytes, signedIn, startServer, zipOf, type TestServer } from './harness.ts';

let server: TestServer;
let alice: Client;
let bob: Client;
before(async () => {
  server = await startServer({ MAX_COLUMNS: '3', MAX_COLUMN_CATEGORIES: '4' });
  alice = await signedIn(server.url, 'alice');
  bob = await signedIn(server.url, 'bob');
});
after(() => server.close());

const IRIS = 'x,y,label,species,petal length,site\n0,0,p0,setosa,1.4,A\n1,1,p1,versicolor,4.7,B\n2,2,p2,setosa,,A\n3,3,p3,virginica,6.0,C\n';

async function columnValues(client: Client, plot: Plot, frame: number, column: PlotColumn): Promise<(string | number)[]> {
  const res = await client.request('GET', `/plots/${plot.id}/frames/${frame}/columns/${plot.columns.indexOf(column)}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('cache-control') ?? '', /immutable/);
  const data = columnArray(column, (await bytes(res)).buffer);
  return Array.from(data, (v) => (column.kind === 'number' ? v : column.categories![v]!));
}

test('a CSV upload lists its extra columns and serves each as a typed blob', async () => {
  const plot = await alice.uploaded('iris.csv', IRIS);
  assert.deepEqual(plot.columns, [
    { name: 'species', kind: 'category', categories: ['setosa', 'versicolor', 'virginica'], codeBytes: 2 },
    { name: 'petal length', kind: 'number', min: Math.fround(1.4), max: 6 },
    { name: 'site', kind: 'category', categories: ['A', 'B', 'C'], codeBytes: 2 },
  ]);
  const again: Plot = await alice.json('GET', `/plots/${plot.id}`);
  assert.deepEqual(again.columns, plot.columns);
  const [species, length] = plot.columns;
  const codes = await alice.request('GET', `/plots/${plot.id}/frames/0/columns/0`);
  assert.equal(codes.headers.get('content-length'), String(4 * 2), 'Uint16 codes: 2 bytes a point');
  assert.deepEqual(await columnValues(alice, plot, 0, species!), ['setosa', 'versicolor', 'setosa', 'virginica']);
  assert.deepEqual(await columnValues(alice, plot, 0, length!), [Math.fround(1.4), Math.fround(4.7), NaN, 6]);
  for (const missing of ['/frames/0/columns/3', '/frames/1/columns/0', '/frames/0/columns/x']) {
    assert.equal((await alice.request('GET', `/plots/${plot.id}${missing}`)).status, 404, missing);
  }
  assert.equal((await bob.request('GET', `/plots/${plot.id}/frames/0/columns/0`)).status, 404, 'a private plot\'s columns are private');
});

test('search: labels and category columns by default, or one named column', async () => {
  const plot = await alice.uploaded('iris.csv', IRIS);
  const search = (query: string) => alice.json('GET', `/plots/${plot.id}/search?${query}`);
  assert.deepEqual((await search('label=SETOSA')).indices, [0, 2]);
  assert.deepEqual((await search('label=p3')).indices, [3]);
  assert.deepEqual((await search('label=b&column=site')).indices, [1]);
  assert.deepEqual((await search('label=p&column=site')).indices, [], 'only the named column');
  assert.deepEqual((await search('label=4.7&column=petal%20length')).indices, [1]);
  const res = await alice.request('GET', `/plots/${plot.id}/search?label=a&column=colour`);
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.field, 'column');
});

test('a time series keeps its columns per frame, with one dictionary', async () => {
  const zip = await zipOf({ 'f1.csv': 'x,y,sector\n0,0,tech\n1,1,energy\n', 'f2.csv': 'x,y,sector\n0,0,energy\n1,1,energy\n2,2,retail\n' });
  const plot = await alice.uploaded('series.zip', zip);
  const [sector] = plot.columns;
  assert.deepEqual(sector!.categories, ['tech', 'energy', 'retail']);
  assert.deepEqual(await columnValues(alice, plot, 0, sector!), ['tech', 'energy']);
  assert.deepEqual(await columnValues(alice, plot, 1, sector!), ['energy', 'energy', 'retail']);
});

test('the PlotViz export keeps the columns as point properties, and re-uploads alike', async () => {
  const plot = await alice.uploaded('iris.csv', IRIS);
  const xml = await (await alice.request('GET', `/plots/${plot.id}/export`)).text();
  assert.match(xml, /<property name="species">versicolor<\/property>/);
  assert.match(xml, /<property name="petal length">4\.7<\/property>/, 'numbers written shortest');
  const back = await alice.uploaded('back.pviz', xml);
  assert.deepEqual(back.columns.map((c) => [c.name, c.kind, c.categories]), plot.columns.map((c) => [c.name, c.kind, c.categories]));
  assert.deepEqual(await columnValues(alice, back, 0, back.columns[0]!), ['setosa', 'versicolor', 'setosa', 'virginica']);
});

test('caps: too many columns or categories is a 422 naming the column, nothing stored', async () => {
  const before = await server.store.plots.countDocuments({});
  const wide = await alice.upload('wide.csv', 'x,y,a,b,c,d\n0,0,1,2,3,4\n');
  const wideError = (await wide.json()).error;
  assert.equal(wide.status, 422);
  assert.equal(wideError.code, 'too_many_columns');
  assert.equal(wideError.field, 'd');
  const many = await alice.upload('many.csv', 'x,y,name\n' + ['a', 'b', 'c', 'd', 'e'].map((n, i) => `${i},${i},${n}\n`).join(''));
  const manyError = (await many.json()).error;
  assert.equal(many.status, 422);
  assert.equal(manyError.code, 'too_many_categories');
  assert.equal(manyError.field, 'name');
  assert.equal(manyError.message, 'metadata column "name" has more than 4 distinct values, the most allowed');
  assert.equal(await server.store.plots.countDocuments({}), before);
});

/** A finished job's directory with planted stage outputs (what the programs write), for the type's toPlot. */
function plantedJob(type: string, files: Record<string, string>, params: Record<string, unknown> = {}): JobDoc {
  const workdir = mkdtempSync(path.join(tmpdir(), 'wpv-columns-job-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(workdir, name), text);
  return { _id: 'alice/1', type, name: 'planted', params, workdir, stages: {}, input: { file: 'input', points: 3, originalName: 'x', bytes: 1 } } as unknown as JobDoc;
}

test('a sequence-clustering plot has the FASTA descriptions as its "description" column, searchable', async () => {
  const job = plantedJob('sequence-clustering', {
    input: '>D8YAWCR01AD8YT Glomus sp. isolate 1\nACGT\n>D8YAWCR01B\nACGA\n>D8YAWCR01C  Acaulospora  laevis \nAGGT\n',
    [FILES.swgLabels]: 'D8YAWCR01AD8YT\nD8YAWCR01B\nD8YAWCR01C\n',
    [FILES.points]: '0 0 0 0\n1 1 0 0\n2 0 1 0\n',
    [FILES.clusters]: '0 0\n1 0\n2 1\n',
    [FILES.centers]: '0 2 0\n1 1 2\n',
  });
  const parsed = await JOB_MODULES['sequence-clustering'].toPlot(job);
  assert.deepEqual([...parsed.frames[0]!.columns!], [['description', ['Glomus sp. isolate 1', '', 'Acaulospora  laevis']]]);
  const created = await server.store.plots.countDocuments({});
  const { Plots } = await import('../src/services/plots.ts');
  const plots = new Plots(server.store, server.config.limits);
  const plot = await plots.ingestParsed('alice', parsed, { description: '', visibility: 'private', tags: [] }, { format: 'text', originalName: 'job' });
  assert.equal(await server.store.plots.countDocuments({}), created + 1);
  assert.deepEqual((await alice.json('GET', `/plots/${plot.id}/search?label=glomus`)).indices, [0]);
});

test('a stock time series keeps the symbols\' sectors as a "sector" column, also when clustered by price change', async () => {
  const frames = '# mdsseries frames 1\nsymbols 3 frames 2 window_days 5 step_days 1 distance c weights u\nsymbol 0 AAA\nsymbol 1 BBB\nsymbol 2 CCC\n' +
    'frame 0 0 4 d0 d4 3 0.1\n0 0 0 0 3\n1 1 0 0 4\n2 0 1 0 5\nframe 1 1 5 d1 d5 2 0.1\n0 0 0 0 3\n2 0 1 0 5\n';
  const job = plantedJob('stock-timeseries', { 'frames.txt': frames, 'sectors.json': JSON.stringify({ AAA: 'Tech', BBB: null, CCC: 'Energy' }) }, { clusterBy: 'change' });
  const parsed = await JOB_MODULES['stock-timeseries'].toPlot(job);
  assert.deepEqual(parsed.frames.map((f) => [...f.columns!]), [[['sector', ['Tech', '', 'Energy']]], [['sector', ['Tech', 'Energy']]]]);
});
