// Plot thumbnails: a 256×256 centre crop of the viewer, stored on the server by the owner.
import { plots } from '../api/endpoints';
import type { PlotRenderer } from './renderer';

const SIZE = 256;

export async function uploadThumbnail(plotId: string, renderer: PlotRenderer): Promise<void> {
  const bitmap = await createImageBitmap(await renderer.screenshot(1));
  const side = Math.min(bitmap.width, bitmap.height);
  const canvas = Object.assign(document.createElement('canvas'), { width: SIZE, height: SIZE });
  canvas.getContext('2d')!.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, SIZE, SIZE);
  const png = await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('thumbnail failed'))), 'image/png'));
  await plots.putThumbnail(plotId, png);
}

