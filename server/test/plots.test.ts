import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { drawThumbnail } from '../src/services/thumbnails.ts';
import { Client, bytes, expectReply, signedIn, startServer, type TestServer } from './harness.ts';

const TREE_SAMPLE = path.resolve(import.meta.dirname, '../../../shared/data/tree_sample.pviz');
const TEXT5 = '# index x y z cluster\n0 1.5 2 3 1\n1 -1 0.25 4 2\n2 7 8 9 1\n';

let server: TestServer;
let alice: Client;
let bob: Client;
before(async () => {
  server = await startServer({ MAX_UPLOAD_BYTES: String(4 * 1024 * 1024) });
  alice = await signedIn(server.url, 'alice');
  bob = await signedIn(server.url, 'bob');
});
after(() => server.close());

const floats = (data: Uint8Array) => new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4);
const uints = (data: Uint8Array) => new Uint32Array(data.buffer, data.byteOffset, data.byteLength / 4);
async function storedCounts() {
  return {
    plots: await server.store.plots.countDocuments({}),
    blobs: await server.store.db.collection('blobs').countDocuments({}),
    chunks: await server.store.db.collection('blob_chunks').countDocuments({}),
    blobLists: await server.store.db.collection('blob_directory').countDocuments({}),
  };
}

describe('upload and read back', () => {
  test('a DA-MDS text file: positions are the file coordinates as Float32, the cluster column is honoured', async () => {
    const plot = await alice.uploaded('points.txt', TEXT5, { name: 'five columns', tags: 'mds, demo' });
    assert.equal(plot.points, 3);
    assert.equal(plot.frames, 1);
    assert.equal(plot.visibility, 'private');
    assert.deepEqual(plot.tags, ['mds', 'demo']);
    assert.deepEqual(plot.clusters.map((c: any) => [c.key, c.count]), [[1, 2], [2, 1]]);
    assert.deepEqual(plot.bbox, { min: [-1, 0.25, 3], max: [7, 8, 9] });
    const positions = await alice.request('GET', `/plots/${plot.id}/frames/0/positions`);
    assert.equal(positions.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual([...floats(await bytes(positions))], [1.5, 2, 3, -1, 0.25, 4, 7, 8, 9]);
    const clusters = await alice.request('GET', `/plots/${plot.id}/frames/0/clusters`);
    assert.deepEqual([...uints(await bytes(clusters))], [1, 2, 1]);
  });

  test('tree_sample.pviz: points, one-point clusters, polyline edges and labels', async () => {
    const plot = await alice.uploaded('tree_sample.pviz', await readFile(TREE_SAMPLE));
    assert.equal(plot.points, 3640);
    assert.equal(plot.clusters.length, 3640);
    assert.equal(plot.frameList[0].edges, 1819);
    assert.deepEqual(plot.display, { pointSize: 2, glyphsVisible: false, glyphScale: 1 }, 'the file\'s <plot> display settings');
    assert.deepEqual((await alice.json('GET', `/plots/${plot.id}`)).display, plot.display);
    const positions = floats(await bytes(await alice.request('GET', `/plots/${plot.id}/frames/0/positions`)));
    assert.equal(positions.length, 3640 * 3);
    assert.ok(positions.every(Number.isFinite));
    const labels = await alice.json('GET', `/plots/${plot.id}/frames/0/labels`);
    assert.equal(labels.length, 3640);
    const edges = await alice.json('GET', `/plots/${plot.id}/frames/0/edges`);
    assert.equal(edges.length, 1819);
    assert.ok(edges.every((e: any) => e.vertices.length >= 2 && e.vertices.every((v: number) => v >= 0 && v < 3640)));
  });

  test('CSV with a header and string clusters', async () => {
    const csv = 'id,x,y,z,cluster,label\n1,0,0,0,setosa,a\n2,1,1,1,virginica,b\n3,2,2,2,setosa,"c, quoted"\n';
    const plot = await alice.uploaded('iris.csv', csv);
    assert.equal(plot.format, 'csv');
    assert.deepEqual(plot.clusters.map((c: any) => [c.label, c.count]).sort(), [['setosa', 2], ['virginica', 1]]);
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/frames/0/labels`), ['a', 'b', 'c, quoted']);
  });

  test('binary frames support ETag revalidation and byte ranges', async () => {
    const plot = await alice.uploaded('points.txt', TEXT5);
    const url = `/plots/${plot.id}/frames/0/positions`;
    const full = await alice.request('GET', url);
    const etag = full.headers.get('etag')!;
    assert.match(full.headers.get('cache-control')!, /private/);
    assert.equal((await alice.request('GET', url, undefined, { 'if-none-match': etag })).status, 304);
    const part = await alice.request('GET', url, undefined, { range: 'bytes=12-23' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 12-23/36');
    assert.deepEqual([...floats(await bytes(part))], [-1, 0.25, 4]);
    assert.equal((await alice.request('GET', url, undefined, { range: 'bytes=99-' })).status, 416);
  });

  test('label search is a case-insensitive substring match', async () => {
    const csv = 'x,y,z,label\n0,0,0,Seq_ABC\n1,1,1,other\n2,2,2,abc-2\n';
    const plot = await alice.uploaded('s.csv', csv);
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/search?label=aBc`), { frame: 0, indices: [0, 2], truncated: false });
    assert.equal((await alice.request('GET', `/plots/${plot.id}/search`)).status, 400);
  });
});

describe('time series', () => {
  test('a ZIP of frames in .index order keeps titles; export as ZIP and re-upload gives the same frames', async () => {
    const yazl = (await import('yazl')).default;
    const zip = new yazl.ZipFile();
    const frame = (shift: number) => `0 ${shift} 0 0 1 AAPL\n1 0 ${shift} 0 2 MSFT\n`;
    zip.addBuffer(Buffer.from(frame(1)), 'b.txt');
    zip.addBuffer(Buffer.from(frame(2)), 'a.txt');
    zip.addBuffer(Buffer.from('b.txt\na.txt\n'), 'order.index');
    zip.end();
    const parts: Buffer[] = [];
    for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
    const plot = await alice.uploaded('series.zip', new Uint8Array(Buffer.concat(parts)));
    assert.equal(plot.format, 'zip');
    assert.deepEqual(plot.frameList.map((f: any) => f.title), ['b', 'a']);
    const second = floats(await bytes(await alice.request('GET', `/plots/${plot.id}/frames/1/positions`)));
    assert.deepEqual([...second], [2, 0, 0, 0, 2, 0]);
    assert.equal((await alice.request('GET', `/plots/${plot.id}/frames/2/positions`)).status, 404);
    const exported = await alice.request('GET', `/plots/${plot.id}/export`);
    assert.match(exported.headers.get('content-disposition')!, /\.zip/);
    const again = await alice.uploaded('again.zip', await bytes(exported));
    assert.equal(again.frames, 2);
    for (const n of [0, 1]) {
      assert.deepEqual(
        await bytes(await alice.request('GET', `/plots/${again.id}/frames/${n}/positions`)),
        await bytes(await alice.request('GET', `/plots/${plot.id}/frames/${n}/positions`)),
      );
      assert.deepEqual(await alice.json('GET', `/plots/${again.id}/frames/${n}/labels`), ['AAPL', 'MSFT']);
    }
  });
});

describe('crash recovery', () => {
  test('start-up removes plots whose ingest never finished, with their blobs', async () => {
    const { Plots } = await import('../src/services/plots.ts');
    const before = await storedCounts();
    const plot = await alice.uploaded('half.txt', TEXT5);
    // As if the server died before flipping the plot to ready, long ago.
    await server.store.plots.updateOne({ _id: plot.id }, { $set: { state: 'ingesting', createdAt: new Date(0) } });
    assert.equal((await alice.request('GET', `/plots/${plot.id}`)).status, 404);
    const plots = new Plots(server.store, server.config.limits);
    assert.equal(await plots.sweepAbandoned(60_000), 1);
    assert.deepEqual(await storedCounts(), before);
  });

  test('the sweep removes the chunks of blobs a crash left without their metadata', async () => {
    const { Plots } = await import('../src/services/plots.ts');
    const before = await storedCounts();
    const { meta } = server.store.blobs;
    const insertMany = meta.insertMany;
    let stopped!: () => void;
    const atMetadata = new Promise<void>((resolve) => (stopped = resolve));
    // As if the process died between a batch's chunks and its metadata: that write never returns.
    meta.insertMany = (() => { stopped(); return new Promise(() => {}); }) as never;
    const leaving = new AbortController();
    const form = new FormData();
    form.set('file', new Blob([TEXT5]), 'cut.txt');
    const upload = fetch(`${server.url}/api/v1/plots`, { method: 'POST', body: form, headers: { cookie: alice.cookie, 'x-csrf-token': alice.csrf }, signal: leaving.signal }).catch(() => null);
    try {
      await atMetadata;
    } finally {
      meta.insertMany = insertMany;
      leaving.abort();
      await upload;
    }
    const cut = await storedCounts();
    assert.equal(cut.plots, before.plots + 1);
    assert.ok(cut.chunks > before.chunks, 'chunks written');
    assert.equal(cut.blobs, before.blobs, 'no metadata');
    assert.equal(await new Plots(server.store, server.config.limits).sweepAbandoned(0), 1);
    assert.deepEqual(await storedCounts(), before);
  });
});

describe('round trip', () => {
  test('upload → export as PlotViz XML → re-upload gives the same plot', async () => {
    const first = await alice.uploaded('tree_sample.pviz', await readFile(TREE_SAMPLE));
    const exported = await alice.request('GET', `/plots/${first.id}/export?format=pviz`);
    assert.equal(exported.status, 200);
    const xml = await bytes(exported);
    const second = await alice.uploaded('again.pviz', xml);
    for (const kind of ['positions', 'clusters']) {
      const a = await bytes(await alice.request('GET', `/plots/${first.id}/frames/0/${kind}`));
      const b = await bytes(await alice.request('GET', `/plots/${second.id}/frames/0/${kind}`));
      assert.deepEqual(b, a, kind);
    }
    for (const kind of ['labels', 'edges']) {
      assert.deepEqual(
        await alice.json('GET', `/plots/${second.id}/frames/0/${kind}`),
        await alice.json('GET', `/plots/${first.id}/frames/0/${kind}`),
        kind,
      );
    }
    const strip = (clusters: any[]) => clusters.map(({ key, label, color, shape, size, visible, count }) => ({ key, label, color, shape, size, visible, count }));
    assert.deepEqual(strip(second.clusters), strip(first.clusters));
  });

  test('text labels with spaces survive upload, PlotViz export and re-upload', async () => {
    const labels = ['Homo sapiens', 'Mus  musculus\tB6', 'A & B <c> "d"', 'été  ünï'];
    const text = labels.map((label, i) => `${i} ${i} 0 0 1 ${label}  \n`).join('');
    const plot = await alice.uploaded('species.txt', text);
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/frames/0/labels`), labels);
    const xml = Buffer.from(await bytes(await alice.request('GET', `/plots/${plot.id}/export?format=pviz`)));
    assert.match(xml.toString(), /<label>A &amp; B &lt;c&gt; &quot;d&quot;<\/label>/);
    const again = await alice.uploaded('species.pviz', xml);
    assert.deepEqual(await alice.json('GET', `/plots/${again.id}/frames/0/labels`), labels);
  });

  test('format=original returns the uploaded bytes', async () => {
    const plot = await alice.uploaded('points.txt', TEXT5);
    const res = await alice.request('GET', `/plots/${plot.id}/export?format=original`);
    assert.equal(Buffer.from(await bytes(res)).toString(), TEXT5);
    assert.match(res.headers.get('content-disposition')!, /points\.txt/);
  });
});

describe('bad input answers 4xx and stores nothing', () => {
  const cases: Array<[string, string, string, number, number?]> = [
    ['malformed XML', 'bad.pviz', '<plotviz><plot><title>x</title></plot><points><point><location x="1" y="2" z="3"/>', 422],
    ['non-finite coordinate', 'nan.txt', '0 1 2 3 1\n1 NaN 2 3 1\n', 422, 2],
    ['wrong column count', 'cols.txt', '0 1 2 3 1\n1 2 3\n', 422, 2],
    ['duplicate point keys', 'dup.txt', '0 1 2 3 1\n0 2 3 4 1\n', 422, 2],
    ['no points', 'empty.txt', '# only a comment\n', 422],
    ['empty file', 'zero.txt', '', 400],
  ];
  for (const [what, name, content, status, line] of cases) {
    test(what, async () => {
      const before = await storedCounts();
      const res = await alice.upload(name, content);
      const body = await res.json();
      assert.equal(res.status, status, JSON.stringify(body));
      assert.ok(body.error.code && body.error.message, JSON.stringify(body));
      if (line) assert.equal(body.error.line, line);
      assert.deepEqual(await storedCounts(), before);
    });
  }

  test('a file over the upload limit answers 413', async () => {
    const before = await storedCounts();
    const big = new Uint8Array(5 * 1024 * 1024).fill(0x20);
    const res = await alice.upload('big.txt', big);
    assert.equal(res.status, 413);
    const { error } = await res.json();
    assert.equal(error.code, 'too_large');
    assert.match(error.message, /^file: the file is over the [\d.]+ (MB|kB) upload limit$/, 'a size people read, the field named once');
    assert.deepEqual(await storedCounts(), before);
  });

  test('missing file part, bad visibility and non-multipart bodies are named', async () => {
    const form = new FormData();
    form.set('name', 'nothing');
    const noFile = await alice.request('POST', '/plots', form);
    assert.equal(noFile.status, 400);
    assert.equal((await noFile.json()).error.field, 'file');
    const badVisibility = await alice.upload('p.txt', TEXT5, { visibility: 'everyone' });
    assert.equal(badVisibility.status, 400);
    assert.equal((await badVisibility.json()).error.field, 'visibility');
    assert.equal((await alice.request('POST', '/plots', { file: 'x' })).status, 415);
  });

  test('anonymous uploads are refused', async () => {
    const anon = new Client(server.url);
    assert.equal((await anon.upload('p.txt', TEXT5)).status, 401);
  });
});

describe('sharing and ownership', () => {
  test('a private plot is 404 to others and anonymous callers, everywhere', async () => {
    const plot = await alice.uploaded('secret.txt', TEXT5, { name: 'secret' });
    const anon = new Client(server.url);
    for (const c of [bob, anon]) {
      for (const p of ['', '/frames/0/positions', '/frames/0/labels', '/search?label=a', '/export', '/views']) {
        assert.equal((await c.request('GET', `/plots/${plot.id}${p}`)).status, 404, p);
      }
      const list = await c.json('GET', '/plots?q=secret');
      assert.equal(list.items.length, 0);
    }
    assert.equal((await bob.request('PATCH', `/plots/${plot.id}`, { name: 'mine now' })).status, 404);
    assert.equal((await bob.request('DELETE', `/plots/${plot.id}`)).status, 404);
  });

  test('making a plot public shares it read-only', async () => {
    const plot = await alice.uploaded('shared.txt', TEXT5, { name: 'shared one' });
    const patched = await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public', description: 'look' });
    assert.equal(patched.visibility, 'public');
    const anon = new Client(server.url);
    assert.equal((await anon.json('GET', `/plots/${plot.id}`)).description, 'look');
    assert.equal((await anon.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 200);
    assert.equal((await bob.request('PATCH', `/plots/${plot.id}`, { name: 'x' })).status, 403);
    const publicList = await anon.json('GET', '/plots?scope=public&q=shared one');
    assert.deepEqual(publicList.items.map((p: any) => p.id), [plot.id]);
  });

  test('PATCH validates fields and edits clusters by key', async () => {
    const plot = await alice.uploaded('c.txt', TEXT5);
    const res = await alice.request('PATCH', `/plots/${plot.id}`, { owner: 'bob' });
    assert.equal(res.status, 400);
    const edited = await alice.json('PATCH', `/plots/${plot.id}`, {
      clusters: [{ key: 2, label: 'outlier', visible: false, color: { r: 1, g: 2, b: 3, a: 128 } }],
    });
    const two = edited.clusters.find((c: any) => c.key === 2);
    assert.deepEqual([two.label, two.visible, two.color.a, two.count], ['outlier', false, 128, 1]);
    assert.equal((await alice.request('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 99, label: 'x' }] })).status, 400);
    for (const label of ['', '   ']) {
      await expectReply(await alice.request('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 2, label }] }), 400, 'clusters.0.label');
    }
    const trimmed = await alice.json('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 2, label: ' spaced ' }] });
    assert.equal(trimmed.clusters.find((c: any) => c.key === 2).label, 'spaced');
  });

  test("a rename or new cluster taking another cluster's name is a 409 naming the field; an upload's duplicate names stay", async () => {
    const cluster = (key: number, label: string) => `<cluster><key>${key}</key><label>${label}</label></cluster>`;
    const point = (key: number, cluster: number) => `<point><key>${key}</key><clusterkey>${cluster}</clusterkey><label>p${key}</label><location x="${key}" y="0" z="0"/></point>`;
    const plot = await alice.uploaded('twice.pviz', `<?xml version="1.0"?><plotviz><clusters>${cluster(1, 'Alpha')}${cluster(2, 'Alpha')}${cluster(3, 'Beta')}</clusters>` +
      `<points>${point(0, 1)}${point(1, 2)}${point(2, 3)}</points></plotviz>`);
    assert.deepEqual(plot.clusters.map((c) => c.label), ['Alpha', 'Alpha', 'Beta']);
    const patch = (clusters: unknown[]) => alice.request('PATCH', `/plots/${plot.id}`, { clusters });
    // Another's name, also with spaces around it (the viewer's rule: trimmed, case counts).
    for (const label of ['Beta', ' Beta ']) {
      const refused = await expectReply(await patch([{ key: 1, label }]), 409, 'clusters.0.label');
      assert.match(refused.error.message, /^clusters\.0\.label: another cluster \(key 3\) is already named "Beta"/);
    }
    await expectReply(await patch([{ key: 3, visible: false }, { key: 3, label: 'Alpha' }]), 409, 'clusters.1.label');
    // Two clusters of the patch given one new name.
    await expectReply(await patch([{ key: 1, label: 'Gamma' }, { key: 3, label: 'Gamma' }]), 409, 'clusters.0.label');
    // A refused patch changes nothing.
    assert.deepEqual((await alice.json('GET', `/plots/${plot.id}`)).clusters.map((c: any) => [c.label, c.visible]), [['Alpha', true], ['Alpha', true], ['Beta', true]]);
    // The upload's duplicates keep their names through edits of other fields; case makes another name; names may swap.
    await alice.json('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 1, label: 'Alpha', visible: false }] });
    await alice.json('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 2, label: 'beta' }] });
    const swapped = await alice.json('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 2, label: 'Beta' }, { key: 3, label: 'beta' }] });
    assert.deepEqual(swapped.clusters.map((c: any) => c.label), ['Alpha', 'Beta', 'beta']);
    const made = await alice.request('POST', `/plots/${plot.id}/clusters`, { label: 'Alpha ', points: [0] });
    const body = await expectReply(made, 409, 'label');
    assert.match(body.error.message, /^label: another cluster \(key 1\) is already named "Alpha"/);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'Delta', points: [0] }, 201);
  });

  test('delete removes the plot and all its data', async () => {
    const before = await storedCounts();
    const plot = await alice.uploaded('gone.txt', TEXT5);
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
    assert.equal((await alice.request('GET', `/plots/${plot.id}`)).status, 404);
    await server.plots.removalsDone();
    assert.deepEqual(await storedCounts(), before);
  });

  test('a delete answers once the plot is hidden, before its data is removed (a round trip or more per blob)', async () => {
    const before = await storedCounts();
    const plot = await alice.uploaded('slow.txt', TEXT5, { tags: 'slowdelete' });
    const { blobs } = server.store;
    const deletePlot = blobs.deletePlot;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    blobs.deletePlot = async (id) => { await held; return deletePlot.call(blobs, id); };
    try {
      const answered = alice.request('DELETE', `/plots/${plot.id}`);
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('no answer while the data is removed'), 5_000));
      assert.equal(await Promise.race([answered.then((r) => r.status), timeout]), 204);
      assert.equal((await alice.request('GET', `/plots/${plot.id}`)).status, 404);
      assert.equal((await alice.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 404);
      assert.equal((await alice.json('GET', '/plots?tag=slowdelete')).total, 0);
      assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 404, 'deleted once');
    } finally {
      release();
      blobs.deletePlot = deletePlot;
    }
    await server.plots.removalsDone();
    assert.deepEqual(await storedCounts(), before);
  });
});

describe('removing a deleted plot\'s data', () => {
  const png = drawThumbnail(new Float32Array([0, 0, 0]), new Uint32Array([1]), []);

  test('finds its blobs by name, not by scanning every blob (FerretDB reads the whole table for any filter but _id)', async () => {
    const before = await storedCounts();
    const plot = await alice.uploaded('named.txt', TEXT5);
    // Blobs written after the upload: a selection, a made cluster's origin, the owner's thumbnail.
    await alice.json('PUT', `/plots/${plot.id}/selections/kept`, { frame: 0, indices: [0, 2] }, 201);
    await alice.json('POST', `/plots/${plot.id}/clusters`, { label: 'made', points: [1] }, 201);
    assert.equal((await alice.request('PUT', `/plots/${plot.id}/thumbnail`, new Uint8Array(png), { 'content-type': 'image/png' })).status, 204);
    const { meta } = server.store.blobs;
    const find = meta.find;
    const filters: unknown[] = [];
    meta.find = ((filter: unknown, ...rest: unknown[]) => { filters.push(filter); return (find as Function).call(meta, filter, ...rest); }) as typeof find;
    try {
      assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
      await server.plots.removalsDone();
    } finally {
      meta.find = find;
    }
    const byName = (filter: any) => Object.keys(filter).length === 1 && typeof filter._id === 'string'; // as findOne asks through find
    assert.deepEqual(filters.filter((f) => !byName(f)), [], 'the blob metadata is looked up by _id only');
    assert.deepEqual(await storedCounts(), before);
  });

  test('a plot stored before blobs were listed by plot is still removed whole', async () => {
    const before = await storedCounts();
    const plot = await alice.uploaded('older.txt', TEXT5);
    await server.store.db.collection('blob_directory').deleteOne({ _id: `${plot.id}#0` as never });
    await alice.json('PUT', `/plots/${plot.id}/selections/later`, { frame: 0, indices: [1] }, 201); // listed on a page of its own
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
    await server.plots.removalsDone();
    assert.deepEqual(await storedCounts(), before);
  });

  test('plots stored before blob names were listed get theirs once, at start-up, and are then deleted without a scan', async () => {
    const before = await storedCounts();
    const directory = server.store.db.collection('blob_directory');
    const plot = await alice.uploaded('listed-later.txt', TEXT5);
    const { blobs } = server.store;
    const names = (await blobs.meta.find({ plotId: plot.id }).toArray()).map((info) => info._id);
    await directory.deleteMany({ _id: { $regex: `^${plot.id}#` } as never }); // as the API stored plots before
    assert.ok((await blobs.listOlderPlots()) >= 1);
    assert.deepEqual((await directory.findOne({ _id: `${plot.id}#0` as never }))!.names.sort(), [...names].sort());
    assert.equal(await blobs.listOlderPlots(), 0, 'done once: no later start-up scans');
    const find = blobs.meta.find;
    const filters: unknown[] = [];
    blobs.meta.find = ((filter: unknown, ...rest: unknown[]) => { filters.push(filter); return (find as Function).call(blobs.meta, filter, ...rest); }) as typeof find;
    try {
      assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
      await server.plots.removalsDone();
    } finally {
      blobs.meta.find = find;
    }
    assert.deepEqual(filters.filter((f: any) => !(Object.keys(f).length === 1 && typeof f._id === 'string')), []);
    await directory.deleteOne({ _id: '#all-plots-listed' as never });
    assert.deepEqual(await storedCounts(), before);
  });

  test('a thumbnail being stored while its plot is deleted goes with it; one stored after finds the plot gone', async () => {
    const before = await storedCounts();
    const plot = await alice.uploaded('drawn.txt', TEXT5);
    const { blobs } = server.store;
    const putBuffer = blobs.putBuffer;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let storing!: () => void;
    const started = new Promise<void>((resolve) => (storing = resolve));
    blobs.putBuffer = async (...args) => { storing(); await held; return putBuffer.apply(blobs, args); };
    try {
      const sent = alice.request('PUT', `/plots/${plot.id}/thumbnail`, new Uint8Array(png), { 'content-type': 'image/png' });
      await started;
      assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a removal not waiting for the thumbnail would be done by now
      release();
      assert.equal((await sent).status, 204);
    } finally {
      release();
      blobs.putBuffer = putBuffer;
    }
    await server.plots.removalsDone();
    assert.deepEqual(await storedCounts(), before);

    // A thumbnail whose request passed its checks before the delete, stored after the removal.
    const other = await alice.uploaded('late.txt', TEXT5);
    const doc = await server.plots.owned(other.id, (await alice.json('GET', '/auth/me')).username);
    assert.equal((await alice.request('DELETE', `/plots/${other.id}`)).status, 204);
    await server.plots.removalsDone();
    assert.equal(await server.plots.setThumbnail(doc, png, { drawn: false }), false);
    assert.deepEqual(await storedCounts(), before);
  });
});

describe('library queries, collections, tags, views and thumbnails', () => {
  test('list filters by text, tag, collection and owner, with paging', async () => {
    const carol = new Client(server.url);
    await carol.signUp('carol');
    const col = await carol.json('POST', '/collections', { name: 'Fungi' }, 201);
    for (let i = 0; i < 5; i++) {
      await carol.uploaded('p.txt', TEXT5, { name: `fungus ${i}`, tags: i % 2 ? 'odd' : 'even', collection: i < 2 ? col.id : '' });
    }
    const page1 = await carol.json('GET', '/plots?scope=mine&pageSize=2&sort=name');
    assert.equal(page1.total, 5);
    assert.deepEqual(page1.items.map((p: any) => p.name), ['fungus 0', 'fungus 1']);
    const page3 = await carol.json('GET', '/plots?scope=mine&pageSize=2&page=3&sort=name');
    assert.deepEqual(page3.items.map((p: any) => p.name), ['fungus 4']);
    assert.equal((await carol.json('GET', '/plots?scope=mine&tag=odd')).total, 2);
    assert.equal((await carol.json('GET', `/plots?collection=${col.id}`)).total, 2);
    assert.equal((await carol.json('GET', '/plots?q=FUNGUS 3')).total, 1);
    assert.deepEqual(
      (await carol.json('GET', '/tags')).filter((t: any) => ['odd', 'even'].includes(t.tag)),
      [{ tag: 'even', count: 3 }, { tag: 'odd', count: 2 }],
    );
    const cols = await carol.json('GET', '/collections');
    assert.deepEqual(cols.map((c: any) => [c.name, c.plots]), [['Fungi', 2]]);
    assert.equal((await bob.upload('p.txt', TEXT5, { collection: col.id })).status, 400);
    assert.equal((await carol.request('DELETE', `/collections/${col.id}`)).status, 204);
    assert.equal((await carol.json('GET', `/plots?collection=${col.id}`)).total, 0);
  });

  test('named views are saved by the owner and readable with the plot', async () => {
    const plot = await alice.uploaded('v.txt', TEXT5);
    const view = { camera: [1, 2, 3], hidden: [2] };
    assert.equal((await alice.request('PUT', `/plots/${plot.id}/views/overview`, view)).status, 204);
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/views`), { overview: view });
    await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public' });
    assert.equal((await bob.request('PUT', `/plots/${plot.id}/views/mine`, view)).status, 403);
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}/views/overview`)).status, 204);
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/views`), {});
  });

  test('simultaneous edits of one plot all stick (renames and saved views are not lost)', async () => {
    const plot = await alice.uploaded('c.txt', TEXT5);
    const edits = [
      alice.request('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 1, label: 'first' }] }),
      alice.request('PUT', `/plots/${plot.id}/views/a`, { camera: [1] }),
      alice.request('PATCH', `/plots/${plot.id}`, { clusters: [{ key: 2, label: 'second' }] }),
      alice.request('PUT', `/plots/${plot.id}/views/b`, { camera: [2] }),
      alice.request('PATCH', `/plots/${plot.id}`, { description: 'edited' }),
    ];
    for (const res of await Promise.all(edits)) assert.ok(res.ok, `status ${res.status}`);
    const after = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual(after.clusters.map((c: { label: string }) => c.label).sort(), ['first', 'second']);
    assert.equal(after.description, 'edited');
    assert.deepEqual(await alice.json('GET', `/plots/${plot.id}/views`), { a: { camera: [1] }, b: { camera: [2] } });
  });

  test('sorting by name ignores case, for new, renamed and older plots', async () => {
    const dave = await signedIn(server.url, 'dave');
    const names = async () => (await dave.json('GET', '/plots?scope=mine&sort=name')).items.map((p: any) => p.name);
    for (const name of ['Stock market', 'fungi 600 reads', 'Clustered blobs']) await dave.uploaded('p.txt', TEXT5, { name });
    assert.deepEqual(await names(), ['Clustered blobs', 'fungi 600 reads', 'Stock market']);
    const zebra = await dave.uploaded('p.txt', TEXT5, { name: 'Zebra' });
    await dave.json('PATCH', `/plots/${zebra.id}`, { name: 'apple' });
    assert.deepEqual(await names(), ['apple', 'Clustered blobs', 'fungi 600 reads', 'Stock market']);
    // A plot stored before names had a sort key gets one at start-up, as does one whose key an older rule made.
    const old = await dave.uploaded('p.txt', TEXT5, { name: 'Delta' });
    await server.store.plots.updateOne({ _id: old.id }, { $unset: { sortName: '' } });
    const accented = await dave.uploaded('p.txt', TEXT5, { name: 'Éclair' });
    await server.store.plots.updateOne({ _id: accented.id }, { $set: { sortName: 'éclair' } }); // the lower-cased name, as before
    const { Plots } = await import('../src/services/plots.ts');
    const plots = new Plots(server.store, server.config.limits);
    assert.ok((await plots.refreshSortNames()) >= 2);
    assert.equal(await plots.refreshSortNames(), 0, 'once');
    assert.deepEqual(await names(), ['apple', 'Clustered blobs', 'Delta', 'Éclair', 'fungi 600 reads', 'Stock market']);
    assert.equal((await dave.json('GET', `/plots/${old.id}`)).sortName, undefined, 'the key is not shown');
  });

  test('sorting by name is natural and ignores accents; search ignores accents', async () => {
    const erin = await signedIn(server.url, 'erin');
    for (const name of ['10 samples', 'Zebra', '2 samples', 'Éclair (accent)', 'eagle', 'Fig']) await erin.uploaded('p.txt', TEXT5, { name });
    const sorted = await erin.json('GET', '/plots?scope=mine&sort=name');
    assert.deepEqual(sorted.items.map((p: any) => p.name), ['2 samples', '10 samples', 'eagle', 'Éclair (accent)', 'Fig', 'Zebra']);
    const found = async (q: string) => (await erin.json('GET', `/plots?scope=mine&q=${encodeURIComponent(q)}`)).items.map((p: any) => p.name);
    assert.deepEqual(await found('ecla'), ['Éclair (accent)']);
    assert.deepEqual(await found('ÉCLAIR'), ['Éclair (accent)']);
    assert.deepEqual(await found('(accent)'), ['Éclair (accent)'], 'other characters are matched literally');
    assert.deepEqual(await found('zèbra'), ['Zebra']);
  });

  test('thumbnails accept a whole 256×256 PNG only, within the size limit', async () => {
    const plot = await alice.uploaded('t.txt', TEXT5);
    const png = new Uint8Array(drawThumbnail(new Float32Array([0, 0, 0]), new Uint32Array([1]), []));
    assert.equal((await alice.request('PUT', `/plots/${plot.id}/thumbnail`, png, { 'content-type': 'image/png' })).status, 204);
    const got = await alice.request('GET', `/plots/${plot.id}/thumbnail`);
    assert.deepEqual(await bytes(got), png);
    assert.equal((await alice.json('GET', `/plots/${plot.id}`)).hasThumbnail, true);
    // A replaced thumbnail is served at once, not a cached copy of the old one.
    const newer = new Uint8Array(drawThumbnail(new Float32Array([1, 1, 0, -1, -1, 0]), new Uint32Array([1, 1]), []));
    assert.equal((await alice.request('PUT', `/plots/${plot.id}/thumbnail`, newer, { 'content-type': 'image/png' })).status, 204);
    assert.deepEqual(await bytes(await alice.request('GET', `/plots/${plot.id}/thumbnail`)), newer);
    const refused = async (body: Uint8Array, why: RegExp) => {
      const { error } = await expectReply(await alice.request('PUT', `/plots/${plot.id}/thumbnail`, body, { 'content-type': 'image/png' }), 400, 'body');
      assert.match(error.message, why);
    };
    await refused(new Uint8Array(10), /not a PNG/);
    await refused(new Uint8Array([...png.subarray(0, 8), ...Buffer.from('not really a png')]), /not a PNG/);
    // Another size, however small the file: a 15000×15000 image of one colour is a few hundred KB.
    await refused(new Uint8Array(drawThumbnail(new Float32Array(0), new Uint32Array(0), [], 255)), /this one is 255×255/);
    const bomb = Uint8Array.from(png);
    new DataView(bomb.buffer).setUint32(16, 15_000);
    new DataView(bomb.buffer).setUint32(20, 15_000);
    await refused(bomb, /this one is 15000×15000/);
    // The right header over damaged or missing image data.
    const damaged = Uint8Array.from(png);
    damaged[damaged.length - 20] ^= 0xff;
    await refused(damaged, /malformed/);
    await refused(png.subarray(0, png.length - 30), /malformed/);
    assert.deepEqual(await bytes(await alice.request('GET', `/plots/${plot.id}/thumbnail`)), newer);
    const huge = new Uint8Array(300 * 1024);
    huge.set(png.subarray(0, 8));
    assert.equal((await alice.request('PUT', `/plots/${plot.id}/thumbnail`, huge, { 'content-type': 'image/png' })).status, 413);
  });
});

describe('limits, odd names and caching', () => {
  let capped: TestServer;
  let owner: Client;
  before(async () => {
    capped = await startServer({ MAX_VIEWS: '5', MAX_PLOT_DETAILS_BYTES: String(200 * 1024) });
    owner = new Client(capped.url);
    await owner.signUp('olga');
  });
  after(() => capped.close());

  test('views named like object built-ins are saved, listed and deleted like any other', async () => {
    const plot = await alice.uploaded('proto.txt', TEXT5);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      assert.equal((await alice.request('PUT', `/plots/${plot.id}/views/${name}`, { camera: [name.length] })).status, 204, name);
    }
    const views = await alice.json('GET', `/plots/${plot.id}/views`);
    assert.deepEqual(Object.keys(views).sort(), ['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    assert.deepEqual(views.__proto__, { camera: [9] });
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}/views/__proto__`)).status, 204);
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}/views/__proto__`)).status, 404);
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}/views/valueOf`)).status, 404);
  });

  test('saved views are capped in size (413) and number (422), never a 500', async () => {
    const plot = await owner.uploaded('caps.txt', TEXT5);
    const big = { note: 'x'.repeat(60 * 1024) };
    for (const name of ['a', 'b', 'c']) assert.equal((await owner.request('PUT', `/plots/${plot.id}/views/${name}`, big)).status, 204);
    const tooBig = await owner.request('PUT', `/plots/${plot.id}/views/d`, big);
    assert.equal(tooBig.status, 413);
    assert.match((await tooBig.json()).error.message, /delete some views/);
    assert.deepEqual(Object.keys(await owner.json('GET', `/plots/${plot.id}/views`)), ['a', 'b', 'c']);
    for (const name of ['d', 'e']) assert.equal((await owner.request('PUT', `/plots/${plot.id}/views/${name}`, { camera: [1] })).status, 204);
    const tooMany = await owner.request('PUT', `/plots/${plot.id}/views/f`, { camera: [1] });
    assert.equal(tooMany.status, 422);
    assert.equal((await tooMany.json()).error.code, 'too_many_views');
    // Replacing an existing view is not a new one.
    assert.equal((await owner.request('PUT', `/plots/${plot.id}/views/e`, { camera: [2] })).status, 204);
  });

  test('a saved view nested deeper than 32 levels is a 400 naming its key, not a stack overflow', async () => {
    const plot = await owner.uploaded('deep.txt', TEXT5);
    // Sent as text: JSON.stringify itself overflows at 50,000 levels.
    const put = (levels: number) => owner.request('PUT', `/plots/${plot.id}/views/deep`,
      `{"mode":"3d","camera":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`, { 'content-type': 'application/json' });
    for (const levels of [33, 50_000]) {
      const refused = await expectReply(await put(levels), 400, 'camera');
      assert.match(refused.error.message, /nested more than 32 levels/);
    }
    assert.equal((await put(31)).status, 204);
    assert.deepEqual(Object.keys(await owner.json('GET', `/plots/${plot.id}/views`)), ['deep']);
  });

  test('privacy changes take effect at once, though plot lookups are cached', async () => {
    const plot = await alice.uploaded('flip.txt', TEXT5);
    await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public' });
    const anon = new Client(server.url);
    for (let round = 0; round < 3; round++) {
      assert.equal((await anon.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 200);
      await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'private' });
      assert.equal((await anon.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 404);
      assert.equal((await anon.request('GET', `/plots/${plot.id}`)).status, 404);
      await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public' });
    }
    assert.equal((await alice.request('DELETE', `/plots/${plot.id}`)).status, 204);
    assert.equal((await anon.request('GET', `/plots/${plot.id}/frames/0/positions`)).status, 404);
  });

  test('error messages quote at most a few hundred characters of the input', async () => {
    const res = await alice.upload('long.txt', `0 1 2 3 1\n1 2 3 ${'9'.repeat(2_000_000)}x 1\n`);
    assert.ok(res.status >= 400 && res.status < 500, String(res.status));
    const text = await res.text();
    assert.ok(text.length < 1000, `${text.length} characters: ${text.slice(0, 200)}`);
    // Cut centrally, whatever the message: here a route echoing a 10,000-character path.
    const missing = await alice.request('GET', `/${'a'.repeat(10_000)}`);
    assert.equal(missing.status, 404);
    const { message } = (await missing.json()).error;
    assert.ok(message.length < 400);
    assert.match(message, /more characters\)$/);
  });
});

describe('security headers', () => {
  test('every response forbids framing and scripts from other origins', async () => {
    for (const url of [`${server.url}/api/v1/health`, `${server.url}/plots/anything`, `${server.url}/`]) {
      const res = await fetch(url);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
      assert.match(csp, /script-src-attr 'none'/, url);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', url);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', url);
    }
  });

  test('the API docs page runs under the policy: its script is a file of this origin', async () => {
    const page = await (await fetch(`${server.url}/api/v1/docs`)).text();
    const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attributes, body] of scripts) {
      assert.equal(body!.trim(), '', 'no inline script');
      const src = /src="([^"]+)"/.exec(attributes!)![1]!;
      const script = await fetch(server.url + src);
      assert.equal(script.status, 200);
      assert.match(script.headers.get('content-type')!, /javascript/);
      assert.match(await script.text(), /openapi\.json/);
    }
  });

  test('?embed=1 lets any site frame a public plot, and only a public one', async () => {
    const plot = await alice.uploaded('embed.txt', TEXT5);
    const embed = () => fetch(`${server.url}/plots/${plot.id}?embed=1`);
    let res = await embed();
    assert.match(res.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
    await alice.json('PATCH', `/plots/${plot.id}`, { visibility: 'public' });
    res = await embed();
    assert.match(res.headers.get('content-security-policy')!, /frame-ancestors \*/);
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.equal(res.headers.get('x-frame-options'), null);
    res = await fetch(`${server.url}/plots/${plot.id}`);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
  });
});
