import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFile } from '../../src/formats/index.ts';
import { readPvizFrame } from '../../src/formats/pviz.ts';
import { LIMITS, TREE_SAMPLE, assertInputError, positionsOf, writeTemp } from './helpers.ts';

test('reads tree_sample.pviz (BOM, 3,640 points and clusters, 1,819 polyline edges)', async () => {
  const plot = await parseFile(TREE_SAMPLE, 'tree_sample.pviz', LIMITS);
  assert.equal(plot.title, 'MDSasChisq_SMACOF_3D_cpp');
  assert.equal(plot.frames.length, 1);
  const [frame] = plot.frames;
  assert.equal(frame.positions.length, 3640 * 3);
  assert.equal(frame.clusterKeys.length, 3640);
  assert.equal(plot.clusters.length, 3640);
  assert.equal(frame.edges.length, 1819);
  assert.deepEqual(plot.warnings, []);
  assert.deepEqual(positionsOf(frame.positions, 0), [-0.26746, 0.030293999239802361, 0.057487998157739639].map(Math.fround));
  assert.deepEqual(positionsOf(frame.positions, 1), [-0.10143, 0.097680002450943, -0.26096999645233154].map(Math.fround));
  assert.deepEqual(frame.labels.slice(0, 2), ['FN547657_Div_aur_K', 'FR750142_Rac_ful_K']);
  assert.equal(frame.clusterKeys[1], 1);
  assert.deepEqual(plot.clusters[3], {
    key: 3,
    label: 'AF304956_FUN_COR_W',
    color: { r: 255, g: 26, b: 185, a: 255 },
    shape: 3,
    size: 1,
    visible: true,
  });
  assert.equal(plot.clusters.filter((c) => c.shape === 6).length, 1819);
  assert.deepEqual(plot.display, { pointSize: 2, glyphsVisible: false, glyphScale: 1 });
  // Point keys skip 1821, so key 3640 is point index 3639.
  assert.deepEqual(frame.edges[0], { key: '0', vertices: [1761, 3639, 3638, 3639, 34] });
  assert.ok(frame.edges.every((edge) => edge.vertices.length >= 3 && edge.vertices.length <= 5));
});

const HEADER = '<?xml version="1.0"?>\n<plotviz>\n<plot><title>t</title></plot>\n';

function point(key: string, cluster: string, x = '1', label = `p${key}`): string {
  return `<point><key>${key}</key><clusterkey>${cluster}</clusterkey><label>${label}</label><location x="${x}" y="2" z="3"/></point>\n`;
}

function cluster(key: string, extra = ''): string {
  return `<cluster><key>${key}</key><label>c${key}</label><color r="1" g="2" b="3" a="4"/>${extra}</cluster>\n`;
}

async function parseXml(text: string) {
  return parseFile(writeTemp('plot.pviz', text), 'plot.pviz', LIMITS);
}

test('undeclared cluster keys are auto-declared with one warning for the set', async () => {
  const plot = await parseXml(
    `${HEADER}<clusters>${cluster('1')}</clusters>\n<points>\n${point('1', '1')}${point('2', '7')}${point('3', '7')}${point('4', '9')}</points></plotviz>`,
  );
  assert.deepEqual(
    plot.clusters.map((c) => [c.key, c.label, c.color]),
    [
      [1, 'c1', { r: 1, g: 2, b: 3, a: 4 }],
      [7, '7', null],
      [9, '9', null],
    ],
  );
  assert.equal(plot.warnings.length, 1);
  assert.match(plot.warnings[0], /^3 points use undeclared cluster keys 7, 9/);
});

test('a cluster with a blank label is named "cluster <key>", so every cluster has a name to show and rename', async () => {
  const blank = (key: string, label: string) => `<cluster><key>${key}</key><label>${label}</label></cluster>\n`;
  const plot = await parseXml(`${HEADER}<clusters>${blank('2', '')}${blank('3', '  ')}</clusters>\n<points>${point('1', '2')}${point('2', '3')}</points></plotviz>`);
  assert.deepEqual(plot.clusters.map((c) => c.label), ['cluster 2', 'cluster 3']);
});

test('entities, CDATA, comments, self-closing tags and edges before points', async () => {
  const plot = await parseXml(
    `${HEADER}<!-- c --><edges><edge><key>e</key><vertices><vertex key="2"/><vertex key='1'/></vertices></edge></edges>\n` +
      `<points>${point('1', '0', '1e-3', 'a &amp; b &lt;&#65;&#x42;&gt;')}${point('2', '0', '-2.5', '<![CDATA[x<y]]>')}</points></plotviz>`,
  );
  const [frame] = plot.frames;
  assert.deepEqual(frame.labels, ['a & b <AB>', 'x<y']);
  assert.deepEqual(frame.edges, [{ key: 'e', vertices: [1, 0] }]);
  assert.deepEqual(positionsOf(frame.positions, 1), [-2.5, 2, 3]);
});

test('the same document read in chunks of every small size gives the same frame', async () => {
  const text = `\uFEFF${HEADER}<clusters>${cluster('0', '<shape>2</shape>')}</clusters><points>${point('1', '0', '0.125', 'é &amp; 𝄞')}${point('2', '0')}</points></plotviz>`;
  const bytes = Buffer.from(text);
  for (const size of [1, 2, 3, 7, 13]) {
    async function* chunks() {
      for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
    }
    const read = await readPvizFrame({ chunks: chunks(), name: 'x.pviz', limits: LIMITS, clusterNames: new Map() });
    assert.deepEqual(read.frame.labels, ['é & 𝄞', 'p2'], `chunk size ${size}`);
    assert.deepEqual(positionsOf(read.frame.positions, 0), [0.125, 2, 3]);
    assert.equal(read.declared[0].shape, 2);
  }
});

test('DOCTYPE, processing instructions, ">" and quotes inside attribute values', async () => {
  const plot = await parseXml(
    `<?xml version="1.0"?>\n<!DOCTYPE plotviz [ <!ELEMENT plotviz ANY> ]>\n<plotviz note='a > b "q"'>\n<?pi data?>` +
      `<points>${point('1', '0')}</points></plotviz>\n<!-- trailing comment -->\n`,
  );
  assert.equal(plot.frames[0].clusterKeys.length, 1);
});

test('<plot> display settings: point size, glyph visibility and scale, each optional', async () => {
  const withPlot = (settings: string) =>
    `<plotviz><plot><title>t</title>${settings}</plot><points>${point('1', '0')}</points></plotviz>`;
  assert.deepEqual((await parseXml(withPlot('<pointsize> 3.5 </pointsize><glyph><visible>1</visible><scale>0.5</scale></glyph>'))).display, {
    pointSize: 3.5, glyphsVisible: true, glyphScale: 0.5,
  });
  assert.deepEqual((await parseXml(withPlot('<glyph><visible>false</visible></glyph>'))).display, { glyphsVisible: false });
  // A title of digits after the settings stays the title (its text is not taken for a key).
  assert.equal((await parseXml('<plotviz><plot><pointsize>2</pointsize><title>42</title></plot><points>' + point('1', '0') + '</points></plotviz>')).title, '42');
  assert.equal((await parseXml(withPlot(''))).display, undefined);
  await assertInputError(parseXml(withPlot('<pointsize>big</pointsize>')), { code: 'bad_value' });
  await assertInputError(parseXml(withPlot('<pointsize>0</pointsize>')), { code: 'bad_value' });
  await assertInputError(parseXml(withPlot('<glyph><visible>2</visible></glyph>')), { code: 'bad_value' });
  await assertInputError(parseXml(withPlot('<glyph><scale>-1</scale></glyph>')), { code: 'bad_value' });
});

test('bad PlotViz files are rejected with the line at fault', async () => {
  const cases: Array<[string, string, number]> = [
    ['mismatched tag', `${HEADER}<points>\n<point><key>1</key></pont>\n</points></plotviz>`, 5],
    ['unclosed root', `${HEADER}<points>${point('1', '0')}</points>\n`, 6],
    ['text after root', `${HEADER}<points>${point('1', '0')}</points></plotviz>\noops`, 6],
    ['bad entity', `${HEADER}<points>\n${point('1', '0', '1', 'a &nbsp; b')}</points></plotviz>`, 5],
    ['unquoted attribute', `${HEADER}<points>\n\n<point><location x=1 y="2"/></point></points></plotviz>`, 6],
    ['repeated attribute', `${HEADER}<points>\n<point><location x="1" x="2"/></point></points></plotviz>`, 5],
    ['second root', `${HEADER}<points>${point('1', '0')}</points></plotviz>\n<plotviz/>`, 6],
    ['tag cut by the end of file', `${HEADER}<points>${point('1', '0')}</points>\n</plotviz`, 6],
    ['"<" inside a tag', `${HEADER}<points>\n<point <key>1</key></point></points></plotviz>`, 5],
  ];
  for (const [what, text, line] of cases) {
    const error = await assertInputError(parseXml(text), { code: 'malformed_xml', line });
    assert.ok(error.message.length > 0, what);
  }
});

test('bad points, clusters and edges are rejected with their line', async () => {
  await assertInputError(parseXml(`${HEADER}<points>\n${point('1', '0')}${point('1', '0')}</points></plotviz>`), {
    code: 'duplicate_point_key',
    line: 6,
  });
  await assertInputError(parseXml(`${HEADER}<points>\n${point('1', '0')}${point('2', '0', 'NaN')}</points></plotviz>`), {
    code: 'non_finite',
    line: 6,
  });
  await assertInputError(parseXml(`${HEADER}<points>\n${point('1', '0', '1e39')}</points></plotviz>`), {
    code: 'non_finite',
    line: 5,
  });
  await assertInputError(parseXml(`${HEADER}<points>\n${point('1', '0', 'abc')}</points></plotviz>`), {
    code: 'bad_number',
    line: 5,
  });
  await assertInputError(parseXml(`${HEADER}<clusters>\n${cluster('0', '<shape>7</shape>')}</clusters></plotviz>`), {
    code: 'bad_shape',
    line: 5,
  });
  await assertInputError(parseXml(`${HEADER}<clusters>\n\n${cluster('0').replace('r="1"', 'r="300"')}</clusters></plotviz>`), {
    code: 'bad_color',
    line: 6,
  });
  await assertInputError(
    parseXml(`${HEADER}<points>${point('1', '0')}${point('2', '0')}</points>\n<edges>\n<edge><key>0</key><vertices>\n<vertex key="1"/>\n<vertex key="5"/></vertices></edge></edges></plotviz>`),
    { code: 'unknown_vertex', line: 10 },
  );
  await assertInputError(
    parseXml(`${HEADER}<points>${point('1', '0')}</points>\n<edges>\n<edge><vertices><vertex key="1"/></vertices></edge></edges></plotviz>`),
    { code: 'bad_edge', line: 7 },
  );
  await assertInputError(parseXml(`${HEADER}<points>\n<point><key>1</key><clusterkey>0</clusterkey></point></points></plotviz>`), {
    code: 'missing_field',
    line: 5,
  });
});

test('empty files, files without points and other roots are rejected', async () => {
  await assertInputError(parseFile(writeTemp('empty.pviz', ''), 'empty.pviz', LIMITS), { code: 'empty_file' });
  await assertInputError(parseXml(`${HEADER}<points>\n</points>\n</plotviz>\n`), { code: 'no_points' });
  await assertInputError(parseXml('<?xml version="1.0"?>\n<svg></svg>'), { code: 'not_pviz', line: 2 });
  await assertInputError(parseXml('   \n  '), { code: 'malformed_xml' });
});

test('more points than maxPoints is a 413', async () => {
  const points = Array.from({ length: 5 }, (_, i) => point(String(i), '0')).join('');
  await assertInputError(
    parseFile(writeTemp('big.pviz', `${HEADER}<points>\n${points}</points></plotviz>`), 'big.pviz', { ...LIMITS, maxPoints: 4 }),
    { code: 'too_many_points', line: 9, status: 413 },
  );
});

test('keys read as numbers or text alike: split by comments, spaced, leading zeros, too large', async () => {
  const plot = await parseXml(
    `${HEADER}<points>\n<point><key>1<!-- c -->2</key><clusterkey> 3 </clusterkey><location x="1" y="2"/></point>\n` +
      `<point><key>07</key><clusterkey>0<![CDATA[4]]></clusterkey><location x="1" y="2"/></point></points>\n` +
      `<edges><edge><key>9</key><vertices><vertex key="12"/><vertex key="7"/></vertices></edge></edges></plotviz>`,
  );
  const [frame] = plot.frames;
  assert.deepEqual(Array.from(frame.clusterKeys), [3, 4]);
  assert.deepEqual(frame.edges, [{ key: '9', vertices: [0, 1] }]);
  const duplicate = await assertInputError(
    parseXml(`${HEADER}<points>\n${point('07', '0')}${point('7', '0')}</points></plotviz>`),
    { code: 'duplicate_point_key', line: 6 },
  );
  assert.match(duplicate.message, /point key "7"/);
  await assertInputError(parseXml(`${HEADER}<points>\n${point('1', '4294967296')}</points></plotviz>`), {
    code: 'bad_cluster_key',
    line: 5,
  });
});

test('element names beyond ASCII are matched by their characters', async () => {
  const plot = await parseXml(`${HEADER}<données é="1"><données/></données>\n<points>${point('1', '0')}</points></plotviz>`);
  assert.equal(plot.frames[0].clusterKeys.length, 1);
  await assertInputError(parseXml(`${HEADER}<données>\n</donnees><points>${point('1', '0')}</points></plotviz>`), {
    code: 'malformed_xml',
    line: 5,
  });
  // The UTF-8 bytes of "é" are the character codes of "Ã©".
  await assertInputError(parseXml(`${HEADER}<Ã©>\n</é><points>${point('1', '0')}</points></plotviz>`), {
    code: 'malformed_xml',
    line: 5,
  });
});
