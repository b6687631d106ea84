// Library thumbnails drawn on the server: every new plot's while it is stored (Plots.ingestParsed),
// and those of plots stored before that (backfillThumbnails at start-up, and the demo loader's);
// the owner's view in the viewer replaces it (`thumbnailDrawn`).
// The first frame's points seen from +z as the viewer's reset camera sees them, in their
// clusters' colours, on the viewer's background, as a 256×256 PNG (pngjs).
import type { Cluster } from '@wpv/schema';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { PNG } from 'pngjs';
import { ApiError } from '../http/errors.ts';
import type { BlobStore } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';
import type { Plots } from './plots.ts';

export const THUMBNAIL_SIZE = 256;
const BACKGROUND = [0x11, 0x14, 0x18]; // the viewer's clear colour
const MARGIN = 0.06;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Throws a 400 naming the body unless `png` is a whole THUMBNAIL_SIZE-square PNG, as the viewer
 * makes them: the library shows it to every visitor, so neither a broken image nor a decompression
 * bomb (a few hundred KB that decode to gigabytes). The size is read from the header before anything is decoded.
 */
export function checkThumbnail(png: Buffer): void {
  const refuse = (why: string) => new ApiError(400, 'bad_request', `the thumbnail must be a ${THUMBNAIL_SIZE}×${THUMBNAIL_SIZE} PNG (Content-Type: image/png); ${why}`, 'body');
  // The signature, then the IHDR chunk: length 13, type, width, height.
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') throw refuse('this is not a PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  if (width !== THUMBNAIL_SIZE || height !== THUMBNAIL_SIZE) throw refuse(`this one is ${width}×${height}`);
  try {
    PNG.sync.read(png); // every chunk's CRC and the image data, at most 256 KB of pixels
  } catch (err) {
    throw refuse(`this one is malformed (${(err as Error).message})`);
  }
}

/** Points (xyz triples) and their cluster keys drawn as discs; hidden clusters are left out. */
export function drawThumbnail(positions: Float32Array, keys: Uint32Array, clusters: readonly Cluster[], size = THUMBNAIL_SIZE): Buffer {
  const steps = drawingSteps(positions, keys, clusters, size);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same drawing, handing the event loop back every POINTS_PER_TURN points (the backfill's: a plot may have millions). */
async function drawThumbnailInTurns(positions: Float32Array, keys: Uint32Array, clusters: readonly Cluster[]): Promise<Buffer> {
  const steps = drawingSteps(positions, keys, clusters, THUMBNAIL_SIZE);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await setImmediate();
  }
}

/** About 20 ms of drawing. */
const POINTS_PER_TURN = 100_000;

function* drawingSteps(positions: Float32Array, keys: Uint32Array, clusters: readonly Cluster[], size: number): Generator<void, Buffer> {
  const png = new PNG({ width: size, height: size });
  png.data.fill(Buffer.from([...BACKGROUND, 255]));
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < keys.length; i++) {
    if (i % POINTS_PER_TURN === POINTS_PER_TURN - 1) yield;
    const x = positions[3 * i]!, y = positions[3 * i + 1]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  if (x0 > x1) return PNG.sync.write(png); // no point to draw
  // One scale for both axes, so shapes keep their proportions; the plot centred.
  const span = Math.max(x1 - x0, y1 - y0) || 1;
  const scale = (size * (1 - 2 * MARGIN)) / span;
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  // Fewer points draw larger, as the viewer's glyphs look at this size.
  const radius = keys.length > 20_000 ? 0.5 : keys.length > 2_000 ? 1 : 2;
  // Each point's colour looked up once, not once per pass: every plot is drawn while it is stored.
  const colors = [...clusters.map((c) => c.color), UNDECLARED];
  const colorIndex = new Map(clusters.map((c, index) => [c.key, c.visible ? index : HIDDEN]));
  const pointColor = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) pointColor[i] = colorIndex.get(keys[i]!) ?? clusters.length;
  const neutral = colors.map(isNeutral);
  // Greys and white first (a tree's internal nodes, unassigned points), the coloured points over them:
  // at this size, drawing order decides what shows.
  for (const neutralPass of [true, false]) {
    for (let i = 0; i < keys.length; i++) {
      if (i % POINTS_PER_TURN === POINTS_PER_TURN - 1) yield;
      const color = pointColor[i]!;
      if (color === HIDDEN || neutral[color] !== neutralPass) continue;
      const px = size / 2 + (positions[3 * i]! - cx) * scale, py = size / 2 - (positions[3 * i + 1]! - cy) * scale;
      if (!Number.isFinite(px) || !Number.isFinite(py)) continue;
      disc(png, px, py, radius, colors[color]!);
    }
  }
  return PNG.sync.write(png);
}

const HIDDEN = -1;
/** Points of a key that no cluster declares. */
const UNDECLARED: Cluster['color'] = { r: 160, g: 160, b: 160, a: 255 };
const isNeutral = ({ r, g, b }: Cluster['color']) => Math.max(r, g, b) - Math.min(r, g, b) < 32;

function disc(png: PNG, cx: number, cy: number, r: number, { r: red, g, b, a }: Cluster['color']): void {
  const alpha = a / 255;
  const { data, width, height } = png;
  const top = Math.max(0, Math.floor(cy - r)), bottom = Math.min(height - 1, Math.ceil(cy + r));
  const left = Math.max(0, Math.floor(cx - r)), right = Math.min(width - 1, Math.ceil(cx + r));
  for (let y = top; y <= bottom; y++) {
    for (let x = left; x <= right; x++) {
      if (r >= 1 && (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 > r * r) continue;
      const o = 4 * (y * width + x);
      data[o] = Math.round(red * alpha + data[o]! * (1 - alpha));
      data[o + 1] = Math.round(g * alpha + data[o + 1]! * (1 - alpha));
      data[o + 2] = Math.round(b * alpha + data[o + 2]! * (1 - alpha));
    }
  }
}

/** Draws and stores the thumbnail of a plot's first frame, unless it has one by then; whether it was stored. */
export async function storeDrawnThumbnail(plots: Plots, blobs: BlobStore, doc: PlotDoc): Promise<boolean> {
  const read = async (kind: 'positions' | 'clusters') => {
    const bytes = await blobs.readAll(await plots.frameBlob(doc, 0, kind));
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  };
  const [positions, keys] = await Promise.all([read('positions'), read('clusters')]);
  const { clusters } = await plots.details(doc);
  return plots.setThumbnail(doc, await drawThumbnailInTurns(new Float32Array(positions), new Uint32Array(keys), clusters), { drawn: true });
}

/** Plots read per page of the backfill: a page of small documents in memory, never the whole library. */
const BACKFILL_PAGE = 50;
/** The backfill's pause before each plot, so it takes a small share of the process beside requests. */
const BACKFILL_PAUSE_MS = 50;

/**
 * Draws the thumbnails of ready plots that have none (stored before thumbnails were drawn at
 * ingest), one plot at a time: its first frame in memory, its drawing in turns of the event loop
 * of 100,000 points, a pause between plots. It keeps no state: the query is its
 * progress, so a crash resumes at the next start, and a second API process doing the same draws
 * the same images (a drawn thumbnail never replaces one stored meanwhile). A plot that cannot be
 * drawn is logged and left for the next start. The number of thumbnails stored.
 */
export async function backfillThumbnails(plots: Plots, blobs: BlobStore): Promise<number> {
  let stored = 0;
  for (let after = ''; ; ) {
    const page = await plots.withoutThumbnail(after, BACKFILL_PAGE);
    if (page.length === 0) return stored;
    for (const doc of page) {
      await sleep(BACKFILL_PAUSE_MS);
      try {
        if (await storeDrawnThumbnail(plots, blobs, doc)) stored++;
      } catch (err) {
        console.error(`thumbnails: plot ${doc._id} could not be drawn; it is left without one until the next start`, err);
      }
    }
    after = page.at(-1)!._id;
  }
}
