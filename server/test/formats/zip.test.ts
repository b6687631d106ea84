import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { test } from 'node:test';
import yazl from 'yazl';
import { parseFile } from '../../src/formats/index.ts';
import { LIMITS, assertInputError, tempPath } from './helpers.ts';

interface ZipEntry {
  name: string;
  content: string | Buffer;
  compress?: boolean;
  /** zlib level (the default, 6, takes seconds on large random-looking entries). */
  level?: number;
}

async function writeZip(entries: ZipEntry[], directories: string[] = []): Promise<string> {
  const path = tempPath('series.zip');
  const zip = new yazl.ZipFile();
  for (const dir of directories) zip.addEmptyDirectory(dir);
  for (const { name, content, compress = true, level } of entries) {
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, level === undefined ? { compress } : { compressionLevel: level });
  }
  zip.end();
  await finished(zip.outputStream.pipe(createWriteStream(path)));
  return path;
}

const pviz = (title: string, x: number) =>
  `<plotviz><plot><title>${title}</title></plot><clusters><cluster><key>0</key><label>only</label></cluster></clusters>` +
  `<points><point><key>0</key><clusterkey>0</clusterkey><label>p</label><location x="${x}" y="0" z="0"/></point></points></plotviz>`;

const firstX = (plot: Awaited<ReturnType<typeof parseFile>>) => plot.frames.map((frame) => frame.positions[0]);

test('without an index, frames follow the natural order of the names', async () => {
  const path = await writeZip(
    [
      { name: 'run/t10.pviz', content: pviz('ten', 10) },
      { name: 'run/t2.pviz', content: pviz('two', 2) },
      { name: 'run/t1.txt', content: '1 0 0\n' },
    ],
    ['run/'],
  );
  const plot = await parseFile(path, 'run.zip', LIMITS);
  assert.deepEqual(firstX(plot), [1, 2, 10]);
  assert.deepEqual(plot.frames.map((f) => f.title), ['t1', 'two', 'ten'], 'PlotViz title, else the file name');
  assert.equal(plot.title, 'run');
  assert.deepEqual(plot.clusters.map((c) => [c.key, c.label]), [[0, 'only']]);
});

test('an .index entry gives the order; unlisted entries are ignored with a warning', async () => {
  const path = await writeZip([
    { name: 'a.pviz', content: pviz('a', 1) },
    { name: 'b.pviz', content: pviz('b', 2) },
    { name: 'c.csv', content: 'x,y\n3,0\n' },
    { name: 'extra.pviz', content: pviz('extra', 4) },
    { name: 'order.index', content: '# frames\nc.csv\n\nb.pviz\na.pviz\n' },
  ]);
  const plot = await parseFile(path, 'series.zip', LIMITS);
  assert.deepEqual(firstX(plot), [3, 2, 1]);
  assert.equal(plot.title, 'series', 'a "#" line that is not a title leaves the archive name');
  assert.equal(plot.warnings.length, 1);
  assert.match(plot.warnings[0], /1 archive entries not listed in order\.index/);
});

test('the index\'s "# title:" line names the plot', async () => {
  const path = await writeZip([
    { name: 'a.pviz', content: pviz('a', 1) },
    { name: 'plot.index', content: '# exported\n#  Title:  Stocks 2004–2014 \na.pviz\n' },
  ]);
  const plot = await parseFile(path, 'download (3).zip', LIMITS);
  assert.equal(plot.title, 'Stocks 2004–2014');
  assert.deepEqual(firstX(plot), [1]);
});

test('an index naming a missing entry is rejected with its line', async () => {
  const path = await writeZip([
    { name: 'a.pviz', content: pviz('a', 1) },
    { name: 'plot.index', content: 'a.pviz\nmissing.pviz\n' },
  ]);
  await assertInputError(parseFile(path, 'series.zip', LIMITS), { code: 'bad_index', line: 2, file: 'plot.index' });
});

test('a bad frame is reported with its entry name and line', async () => {
  const path = await writeZip([
    { name: 'f1.txt', content: '0 0 0\n' },
    { name: 'f2.txt', content: '0 0 0\n1 1\n' },
  ]);
  await assertInputError(parseFile(path, 'series.zip', LIMITS), { code: 'column_count', line: 2, file: 'f2.txt' });
});

test('CSV frames share cluster numbering by name', async () => {
  const path = await writeZip([
    { name: 'f1.csv', content: 'x,y,cluster\n0,0,b\n1,1,a\n' },
    { name: 'f2.csv', content: 'x,y,cluster\n0,0,a\n1,1,c\n' },
  ]);
  const plot = await parseFile(path, 'series.zip', LIMITS);
  assert.deepEqual(plot.frames.map((f) => Array.from(f.clusterKeys)), [[0, 1], [1, 2]]);
  assert.deepEqual(plot.clusters.map((c) => c.label), ['b', 'a', 'c']);
});

/** yazl refuses unsafe names, so write a safe one and patch the bytes (the CRC does not cover names). */
async function zipWithEntryName(unsafeName: string): Promise<string> {
  const placeholder = 'x'.repeat(unsafeName.length);
  const path = await writeZip([{ name: placeholder, content: '0 0 0\n' }]);
  const bytes = await readFile(path);
  await writeFile(path, Buffer.from(bytes.toString('latin1').replaceAll(placeholder, unsafeName), 'latin1'));
  return path;
}

test('entries with ".." or absolute paths are rejected', async () => {
  await assertInputError(parseFile(await zipWithEntryName('../evil.txt'), 's.zip', LIMITS), { code: 'zip_path', file: '../evil.txt' });
  await assertInputError(parseFile(await zipWithEntryName('a/../../b.txt'), 's.zip', LIMITS), { code: 'zip_path' });
  await assertInputError(parseFile(await zipWithEntryName('/etc/passwd'), 's.zip', LIMITS), { code: 'zip_path' });
});

test('a ZIP bomb is stopped by the compression ratio while inflating', async () => {
  const bomb = Buffer.alloc(32 << 20, 0x20); // 32 MiB of spaces deflate about 1000:1
  const path = await writeZip([{ name: 'bomb.txt', content: bomb }]);
  await assertInputError(parseFile(path, 'bomb.zip', LIMITS), { code: 'zip_bomb', file: 'bomb.txt', status: 413 });
});

test('the total inflated size is capped, stored entries included', async () => {
  const frame = Buffer.from('0 0 0\n'.repeat(100_000)); // 600 kB each, stored
  const path = await writeZip([
    { name: 'f1.txt', content: frame, compress: false },
    { name: 'f2.txt', content: frame, compress: false },
  ]);
  const limits = { ...LIMITS, maxUncompressedBytes: 1_000_000 };
  await assertInputError(parseFile(path, 'big.zip', limits), { code: 'zip_too_large', status: 413 });
});

test('header sizes are not trusted: inflated bytes are counted', async () => {
  // Declared sizes patched to 6 bytes; the data inflates to 600 kB.
  const path = await writeZip([{ name: 'f.txt', content: '1 2 3\n'.repeat(100_000) }]);
  const bytes = await readFile(path);
  const localSizeOffset = 22; // local header: uncompressed size
  bytes.writeUInt32LE(6, localSizeOffset);
  const central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  bytes.writeUInt32LE(6, central + 24);
  await writeFile(path, bytes);
  const error = await assertInputError(parseFile(path, 'lying.zip', { ...LIMITS, maxUncompressedBytes: 100_000 }), {
    code: 'bad_zip',
    file: 'f.txt',
  });
  assert.match(error.message, /too many bytes/);
});

test('more frames than maxFrames, empty archives and nested archives are rejected', async () => {
  const three = await writeZip(['1', '2', '3'].map((i) => ({ name: `f${i}.txt`, content: '0 0 0\n' })));
  await assertInputError(parseFile(three, 's.zip', { ...LIMITS, maxFrames: 2 }), { code: 'too_many_frames', status: 413 });
  const many = await writeZip(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, content: '0 0 0\n' })));
  const error = await assertInputError(parseFile(many, 's.zip', { ...LIMITS, maxFrames: 2 }), { code: 'too_many_frames' });
  assert.match(error.message, /more than 21 files/, 'the listing stops early');
  await assertInputError(parseFile(await writeZip([], ['empty/']), 's.zip', LIMITS), { code: 'no_frames' });
  const inner = await readFile(three);
  await assertInputError(parseFile(await writeZip([{ name: 'inner.zip', content: inner }]), 's.zip', LIMITS), {
    code: 'bad_zip_entry',
    file: 'inner.zip',
  });
  const notZip = tempPath('fake.zip');
  await writeFile(notZip, 'PK\x03\x04 but not a zip');
  await assertInputError(parseFile(notZip, 'fake.zip', LIMITS), { code: 'bad_zip' });
});

/** Random letters from a four-letter alphabet: deflate only reaches about 4:1, under the ratio limit. */
function incompressibleText(bytes: number): string {
  const random = randomBytes(bytes);
  for (let i = 0; i < bytes; i++) random[i] = 97 + (random[i] & 3);
  return random.toString('latin1');
}

test('one huge XML text node in an entry costs linear time, accepted or rejected', async () => {
  // The scanner used to rejoin the unfinished text with every 16 KiB the
  // inflater gave: 17 MiB took 5.5 s (14 s with the machine loaded); now ~0.3 s.
  const title = incompressibleText(8 << 20);
  const accepted = await writeZip([{ name: 'long.pviz', content: pviz(title, 1), level: 1 }]);
  const plot = await parseFile(accepted, 'long.zip', LIMITS);
  assert.equal(plot.frames[0].title, title);
  assert.deepEqual(firstX(plot), [1]);

  const rejected = await writeZip([{ name: 'huge.pviz', content: pviz(incompressibleText(17 << 20), 1), level: 1 }]);
  const start = performance.now();
  await assertInputError(parseFile(rejected, 'huge.zip', LIMITS), { code: 'malformed_xml', line: 1, file: 'huge.pviz' });
  const ms = performance.now() - start;
  assert.ok(ms < 3000, `rejected in ${Math.round(ms)} ms`);
});

test('a parse whose signal has aborted (the upload\'s client went) stops with its reason, a ZIP and a single file alike', async () => {
  const zip = await writeZip([{ name: 'a.pviz', content: pviz('a', 1) }, { name: 'b.pviz', content: pviz('b', 2) }]);
  const text = tempPath('points.txt');
  await writeFile(text, '0 1 2 3 0\n1 2 3 4 1\n');
  for (const [path, name] of [[zip, 'series.zip'], [text, 'points.txt']]) {
    const abort = new AbortController();
    const reason = new Error('the client went');
    abort.abort(reason);
    await assert.rejects(parseFile(path!, name!, LIMITS, abort.signal), (err) => err === reason);
    assert.equal((await parseFile(path!, name!, LIMITS, new AbortController().signal)).frames.length, name === 'series.zip' ? 2 : 1);
  }
});
