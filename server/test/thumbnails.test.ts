// Thumbnails drawn on the server (the demo plots'): planted points at known pixels, then stored
// for a plot in the real store and served as its library image.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { Plots } from '../src/services/plots.ts';
import { drawThumbnail, storeDrawnThumbnail, THUMBNAIL_SIZE } from '../src/services/thumbnails.ts';
import { Client, bytes, startServer, type TestServer } from './harness.ts';

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

  test('becomes the plot\'s library image', async () => {
    const alice = new Client(server.url);
    await alice.signUp('alice');
    const res = await alice.upload('two.txt', '0 0 0 0 1 a\n1 1 1 0 2 b\n', { visibility: 'public' });
    const plot = await res.json();
    assert.equal(plot.hasThumbnail, false);
    const doc = (await server.store.plots.findOne({ _id: plot.id }))!;
    await storeDrawnThumbnail(new Plots(server.store, server.config.limits), server.store.blobs, doc);
    const listed = (await alice.json('GET', '/plots?scope=mine')).items.find((p: any) => p.id === plot.id);
    assert.equal(listed.hasThumbnail, true);
    const image = await new Client(server.url).request('GET', `/plots/${plot.id}/thumbnail`);
    assert.equal(image.headers.get('content-type'), 'image/png');
    const png = PNG.sync.read(Buffer.from(await bytes(image)));
    assert.equal(png.width, THUMBNAIL_SIZE);
    assert.ok(png.data.some((v, i) => i % 4 !== 3 && v > 0x20), 'some point is drawn');
  });
});
