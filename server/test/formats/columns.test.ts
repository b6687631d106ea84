// Metadata columns (issue 16 part 4) through the parsers and the encoding: extra CSV
// columns, PlotViz <property> elements, number/category kinds, limits, the export.
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { test } from 'node:test';
import { columnArray } from '@wpv/schema';
import { decodeColumn, encodeColumns } from '../../src/formats/columns.ts';
import { parseFile, writePviz } from '../../src/formats/index.ts';
import type { ParsedFrame } from '../../src/formats/types.ts';
import { InputError } from '../../src/formats/types.ts';
import { LIMITS, assertInputError, tempPath, writeTemp } from './helpers.ts';

const parse = (name: string, text: string) => parseFile(writeTemp(name, text), name, LIMITS);
const LOOSE = { maxColumns: 64, maxCategories: 1000 };
const frameOf = (columns: Record<string, string[]>): ParsedFrame => {
  const n = Object.values(columns)[0]!.length;
  return { title: '', positions: new Float32Array(3 * n), clusterKeys: new Uint32Array(n), labels: new Array(n).fill(''), edges: [], columns: new Map(Object.entries(columns)) };
};

test('CSV: every column but x, y, z, cluster, label and id is a metadata column, in header order', async () => {
  const plot = await parse('iris.csv', 'x,y,species,petal length,label\n1,2,setosa,1.4,a\n3,4,"virginica, tall",5.1,b\n5,6,,4.5,c\n');
  assert.deepEqual([...plot.frames[0].columns!], [
    ['species', ['setosa', 'virginica, tall', '']],
    ['petal length', ['1.4', '5.1', '4.5']],
  ]);
});

test('PlotViz: <property name="…"> elements of a point are its metadata; points without one have ""', async () => {
  const xml = `<plotviz><clusters><cluster><key>0</key></cluster></clusters><points>
    <point><key>0</key><clusterkey>0</clusterkey><location x="0" y="0" z="0"/><property name="host">Homo sapiens</property></point>
    <point><key>1</key><clusterkey>0</clusterkey><location x="1" y="1" z="1"/></point>
    <point><key>2</key><clusterkey>0</clusterkey><location x="2" y="2" z="2"/><property name="depth">12.5</property><property name="host"> Mus &amp; co </property></point>
  </points></plotviz>`;
  const plot = await parse('p.pviz', xml);
  assert.deepEqual([...plot.frames[0].columns!], [
    ['host', ['Homo sapiens', '', 'Mus & co']],
    ['depth', ['', '', '12.5']],
  ]);
  const unnamed = xml.replace('<property name="depth">', '<property name=" ">');
  await assertInputError(parse('p.pviz', unnamed), { code: 'missing_field', line: 4 });
});

test('encoding: numbers as Float32 (missing NaN) with their range; text as a dictionary and Uint16 codes', () => {
  const frames = [frameOf({ species: ['b', 'a', 'b', ''], size: ['1.5', '', '-2', '1e3'] }), frameOf({ species: ['c', 'a'], size: ['0', 'NaN'] })];
  const { columns, frames: blobs } = encodeColumns(frames, LOOSE);
  assert.deepEqual(columns, [
    { name: 'species', kind: 'category', categories: ['b', 'a', '', 'c'], codeBytes: 2 },
    { name: 'size', kind: 'number', min: -2, max: 1000 },
  ]);
  const view = (frame: number, column: number) => Array.from(columnArray(columns[column]!, new Uint8Array(blobs[frame]![column]!).buffer));
  assert.deepEqual(view(0, 0), [0, 1, 0, 2]);
  assert.deepEqual(view(1, 0), [3, 1], 'one dictionary for all frames');
  assert.deepEqual(view(0, 1), [1.5, NaN, -2, 1000]);
  assert.deepEqual(decodeColumn(columns[1]!, Buffer.from(blobs[1]![1]!)), ['0', '']);
  assert.deepEqual(decodeColumn(columns[0]!, Buffer.from(blobs[1]![0]!)), ['c', 'a']);
});

test('encoding: a column missing from one frame is empty there; over 65,536 categories take Uint32 codes', () => {
  const { columns } = encodeColumns([frameOf({ a: ['x'] }), { ...frameOf({ a: ['y'] }), columns: undefined }], LOOSE);
  assert.deepEqual(columns[0]!.categories, ['x', '']);
  const many = Array.from({ length: 70_000 }, (_, i) => `id${i}`);
  const wide = encodeColumns([frameOf({ id: many })], { maxColumns: 1, maxCategories: 100_000 });
  assert.equal(wide.columns[0]!.codeBytes, 4);
  assert.equal(wide.frames[0]![0]!.byteLength, 4 * 70_000);
});

test('limits: too many columns or categories is an InputError naming the column', () => {
  assert.throws(() => encodeColumns([frameOf({ a: ['1'], b: ['2'], c: ['3'] })], { maxColumns: 2, maxCategories: 10 }), (error: unknown) => {
    assert.ok(error instanceof InputError);
    assert.equal(error.code, 'too_many_columns');
    assert.equal(error.details.field, 'c');
    return true;
  });
  assert.throws(() => encodeColumns([frameOf({ name: ['a', 'b', 'c', 'a'] })], { maxColumns: 2, maxCategories: 2 }), (error: unknown) => {
    assert.ok(error instanceof InputError);
    assert.equal(error.code, 'too_many_categories');
    assert.equal(error.details.field, 'name');
    assert.equal(error.message, 'metadata column "name" has more than 2 distinct values, the most allowed');
    return true;
  });
});

test('export: columns are written as <property> elements and read back alike', async () => {
  const plot = await parse('iris.csv', 'x,y,species,note\n1,2,setosa,"<b> & \'q\'"\n3,4,versicolor,\n');
  const out = tempPath('out.pviz');
  await writePviz({ title: 't', clusters: [], frameCount: 1, frames: plot.frames }, createWriteStream(out));
  const back = await parseFile(out, 'out.pviz', LIMITS);
  assert.deepEqual([...back.frames[0].columns!], [...plot.frames[0].columns!]);
});
