// Thumbnails drawn on the server (every new plot's, uploaded or a job's, and the demo loader's):
// planted points at known pixels, then stored for a plot in the real store and served as its
// library image until the owner's view replaces it; plots stored without one get it at start-up.
import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { PNG } from 'pngjs';
import type { ParsedPlot } from '../src/formats/types.ts';
import { Plots } from '../src/services/plots.ts';
import { backfillThumbnails, drawThumbnail, storeDrawnThumbnail, THUMBNAIL_SIZE } from '../src/services/thumbnails.ts';
import { frameBlobName } from '../src/storage/blobs.ts';
import { Client, bytes, signedIn, startServer, type TestServer } from './harness.ts';

const red = { r: 255, g: 0, b: 0, a: 255 }, blue = { r: 0, g: 0, b: 255, a: 255 };
const cluster = (key: number, color: typeof red, visible = true) => ({ key, label: String(key), color, shape: 0, size: 1, visible, count: 1 });
const pixel = (png: PNG, x: number, y: number) => [...png.data.subarray(4 * (y * png.width + x), 4 * (y * png.width + x) + 3)];

describe('a drawn thumbnail', () => {
  test('puts each point at its place seen from +z, in its cluster colour, on the viewer background', () => {
    // Corners of a square (x right, y up), and a point of a hidden cluster in the middle.
    const positions = new Float32Array([-1, -1, 0, 1, 1, 5, 0, 0, 0]);
    const png = PNG.sync.read(drawThumbnail(positions, new Uint32Array([1, 2, 3]), [cluster(1, red), cluster(2, blue), cluster(3, red, false)]));
    assert.equal(png.width, THUMBNAIL_SIZE);
    const margin = Math.round(THUMBNAIL_SIZE * 0.06);
    assert.deepEqual(pixel(png, margin, THUMBNAIL_SIZE - 1 - margin), [255, 0, 0]); // (-1, -1): bottom left
    assert.deepEqual(pixel(png, THUMBNAIL_SIZE - 1 - margin, margin), [0, 0, 255]); // (1, 1): top right
    assert.deepEqual(pixel(png, THUMBNAIL_SIZE / 2, THUMBNAIL_SIZE / 2), [0x11, 0x14, 0x18]); // hidden: background
    assert.deepEqual(pixel(png, 2, 2), [0x11, 0x14, 0x18]);
  });

  test('coloured points are drawn over grey and white ones at the same place', () => {
    const white = { r: 255, g: 255, b: 255, a: 255 };
    const positions = new Float32Array([-1, -1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0]); // a colour, then white, at the centre
    const png = PNG.sync.read(drawThumbnail(positions, new Uint32Array([1, 2, 3, 1]), [cluster(1, red), cluster(2, blue), cluster(3, white)]));
    assert.deepEqual(pixel(png, THUMBNAIL_SIZE / 2, THUMBNAIL_SIZE / 2), [0, 0, 255]);
  });

  test('an empty frame is a blank image', () => {
    const png = PNG.sync.read(drawThumbnail(new Float32Array(0), new Uint32Array(0), []));
    assert.deepEqual(pixel(png, 100, 100), [0x11, 0x14, 0x18]);
  });
});

describe('a stored drawn thumbnail', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(() => server.close());

  /** The plot's library image, checked to be a drawn 256×256 PNG with some point on it. */
  async function libraryImage(owner: Client, id: string): Promise<Uint8Array> {
    const listed = (await owner.json('GET', '/plots?scope=mine')).items.find((p: any) => p.id === id);
    assert.equal(listed.hasThumbnail, true);
    const image = await owner.request('GET', `/plots/${id}/thumbnail`);
    assert.equal(image.headers.get('content-type'), 'image/png');
    const data = await bytes(image);
    const png = PNG.sync.read(Buffer.from(data));
    assert.equal(png.width, THUMBNAIL_SIZE);
    assert.ok(png.data.some((v, i) => i % 4 !== 3 && v > 0x20), 'some point is drawn');
    return data;
  }

  /** The owner's view stored as the plot's thumbnail, as the viewer sends it: its bytes. */
  async function viewersThumbnail(owner: Client, id: string): Promise<Uint8Array> {
    const viewers = new Uint8Array([...PNG.sync.write(new PNG({ width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE }))]);
    assert.equal((await owner.request('PUT', `/plots/${id}/thumbnail`, viewers, { 'content-type': 'image/png' })).status, 204);
    return viewers;
  }

  /** The plot as stored before thumbnails were drawn at ingest. */
  async function withoutThumbnail(id: string): Promise<void> {
    await server.store.plots.updateOne({ _id: id }, { $set: { hasThumbnail: false, thumbnailDrawn: false } });
    await server.store.blobs.meta.deleteOne({ _id: `${id}/thumbnail` });
  }

  const newPlots = () => new Plots(server.store, server.config.limits);
  const twoPoints = '0 0 0 0 1 a\n1 1 1 0 2 b\n';

  test('an upload has one as soon as it is stored, until the owner\'s view replaces it', async () => {
    const alice = await signedIn(server.url, 'alice');
    const plot = await alice.uploaded('two.txt', twoPoints, { visibility: 'public' });
    assert.deepEqual([plot.hasThumbnail, plot.thumbnailDrawn], [true, true]);
    await libraryImage(alice, plot.id);
    const viewers = await viewersThumbnail(alice, plot.id);
    const shown = await alice.json('GET', `/plots/${plot.id}`);
    assert.deepEqual([shown.hasThumbnail, shown.thumbnailDrawn], [true, false]);
    assert.deepEqual(await bytes(await alice.request('GET', `/plots/${plot.id}/thumbnail`)), viewers);
  });

  test('a job\'s plot has one as soon as it is stored', async () => {
    const bob = await signedIn(server.url, 'bob');
    const parsed: ParsedPlot = {
      title: 'a job',
      clusters: [1, 2].map((key) => ({ key, label: `cluster ${key}`, color: null, shape: 0, size: 1, visible: true })),
      frames: [{ title: '', positions: new Float32Array([0, 0, 0, 1, 1, 1]), clusterKeys: new Uint32Array([1, 2]), labels: ['a', 'b'], edges: [] }],
      warnings: [],
    };
    // As workers/src/assemble.ts stores a job's plot.
    const fields = { name: 'a job', description: '', visibility: 'private' as const, tags: ['job'] };
    const created = await new Plots(server.store, server.config.limits).ingestParsed('bob', parsed, fields, { format: 'pviz', originalName: 'job.pviz' }, 'job-thumbnailed');
    assert.equal(created.hasThumbnail, true);
    await libraryImage(bob, created.id);
  });

  test('the demo loader draws one for a plot stored without it', async () => {
    const carol = await signedIn(server.url, 'carol');
    const plot = await carol.uploaded('two.txt', twoPoints);
    await withoutThumbnail(plot.id);
    const doc = (await server.store.plots.findOne({ _id: plot.id }))!;
    await storeDrawnThumbnail(newPlots(), server.store.blobs, doc);
    await libraryImage(carol, plot.id);
  });

  test('a drawn one never replaces the owner\'s view that came while it was drawn', async () => {
    const dave = await signedIn(server.url, 'dave');
    const plot = await dave.uploaded('two.txt', twoPoints);
    await withoutThumbnail(plot.id);
    const read = (await server.store.plots.findOne({ _id: plot.id }))!;
    const viewers = await viewersThumbnail(dave, plot.id);
    assert.equal(await storeDrawnThumbnail(newPlots(), server.store.blobs, read), false);
    assert.deepEqual(await bytes(await dave.request('GET', `/plots/${plot.id}/thumbnail`)), viewers);
  });

  test('a plot whose thumbnail cannot be drawn is stored without one, and that is logged', async () => {
    const erin = await signedIn(server.url, 'erin');
    const encoder = mock.method(PNG.sync, 'write', () => { throw new Error('out of PNGs'); });
    const errors = mock.method(console, 'error', () => {});
    try {
      const plot = await erin.uploaded('two.txt', twoPoints);
      assert.deepEqual([plot.hasThumbnail, plot.thumbnailDrawn], [false, false]);
      assert.equal((await erin.json('GET', `/plots/${plot.id}`)).points, 2);
      assert.equal((await erin.request('GET', `/plots/${plot.id}/thumbnail`)).status, 404);
      assert.match(String(errors.mock.calls[0]?.arguments[0]), /thumbnail could not be drawn/);
    } finally {
      encoder.mock.restore();
      errors.mock.restore();
    }
  });

  test('plots stored without one get it from the start-up backfill, two processes at once, each plot once', async () => {
    const frank = await signedIn(server.url, 'frank');
    const [old, broken, viewed] = await Promise.all(['old', 'broken', 'viewed'].map((name) => frank.uploaded('two.txt', twoPoints, { name })));
    for (const plot of [old!, broken!, viewed!]) await withoutThumbnail(plot.id);
    const viewers = await viewersThumbnail(frank, viewed!.id);
    await server.store.blobs.meta.deleteOne({ _id: frameBlobName(broken!.id, 0, 'positions') });
    const errors = mock.method(console, 'error', () => {});
    try {
      // Two API processes starting together: each with its own Plots, as in its own process.
      const stored = await Promise.all([backfillThumbnails(newPlots(), server.store.blobs), backfillThumbnails(newPlots(), server.store.blobs)]);
      assert.ok(stored[0]! + stored[1]! >= 1, `stored ${stored}`);
      const drawn = await libraryImage(frank, old!.id);
      assert.equal((await frank.json('GET', `/plots/${old!.id}`)).thumbnailDrawn, true);
      assert.deepEqual(await bytes(await frank.request('GET', `/plots/${viewed!.id}/thumbnail`)), viewers);
      assert.equal((await frank.json('GET', `/plots/${broken!.id}`)).hasThumbnail, false);
      assert.ok(errors.mock.calls.some((call) => String(call.arguments[0]).includes(broken!.id)), 'the plot it could not draw is logged');
      // Done: a later start draws nothing again (the plot it cannot draw is tried, and logged, again).
      assert.equal(await backfillThumbnails(newPlots(), server.store.blobs), 0);
      assert.deepEqual(await libraryImage(frank, old!.id), drawn);
    } finally {
      errors.mock.restore();
    }
  });
});
