// Screenshot PNGs carry the plot's title and a legend of the visible clusters, drawn into the image.
import type { ClusterStyle } from './clusterStyles';

/** Legend rows at most; the rest are counted in a last row. */
export const LEGEND_ROWS = 12;

/** The visible clusters the legend lists, largest first, and how many visible ones it leaves out. */
export function legendEntries(styles: readonly ClusterStyle[], rows = LEGEND_ROWS): { entries: ClusterStyle[]; more: number } {
  const visible = styles.filter((s) => s.visible).sort((a, b) => b.count - a.count || a.key - b.key);
  return { entries: visible.slice(0, rows), more: Math.max(0, visible.length - rows) };
}

/** The rendered PNG with the title along its top and the legend in its lower left corner. */
export async function annotateScreenshot(png: Blob, title: string, styles: readonly ClusterStyle[]): Promise<Blob> {
  const image = await createImageBitmap(png);
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(image, 0, 0);
  const u = Math.max(1, Math.round(image.height / 700)); // text scales with the image
  const pad = 8 * u, line = 18 * u;
  ctx.textBaseline = 'middle';
  ctx.font = `bold ${16 * u}px sans-serif`;
  ctx.fillStyle = 'rgba(17, 20, 24, 0.75)';
  ctx.fillRect(0, 0, Math.min(image.width, ctx.measureText(title).width + 2 * pad), line + 2 * pad);
  ctx.fillStyle = '#fff';
  ctx.fillText(title, pad, pad + line / 2);

  const { entries, more } = legendEntries(styles);
  const rows = entries.length + (more > 0 ? 1 : 0);
  if (!rows) return blobOf(canvas);
  ctx.font = `${13 * u}px sans-serif`;
  const texts = entries.map((s) => `${s.label} (${s.count.toLocaleString()})`);
  if (more > 0) texts.push(`and ${more.toLocaleString()} more`);
  const width = Math.max(...texts.map((t) => ctx.measureText(t).width)) + line + 3 * pad;
  const top = image.height - rows * line - 2 * pad;
  ctx.fillStyle = 'rgba(17, 20, 24, 0.75)';
  ctx.fillRect(0, top, Math.min(image.width, width), rows * line + 2 * pad);
  texts.forEach((text, i) => {
    const y = top + pad + i * line + line / 2;
    const s = entries[i];
    if (s) {
      ctx.fillStyle = `rgb(${s.color.r}, ${s.color.g}, ${s.color.b})`;
      ctx.fillRect(pad, y - line / 3, (2 * line) / 3, (2 * line) / 3);
    }
    ctx.fillStyle = '#ddd';
    ctx.fillText(text, pad + line + pad, y);
  });
  return blobOf(canvas);
}

const blobOf = (canvas: HTMLCanvasElement) =>
  new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('screenshot failed'))), 'image/png'));
