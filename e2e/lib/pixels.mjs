// Compares two PNG screenshots in the browser (no image library needed in node).

/** Fraction of pixels whose RGB differs by more than `tolerance` in any channel. */
export async function pixelDiff(page, pngA, pngB, tolerance = 8) {
  return page.evaluate(async ({ a, b, tolerance }) => {
    // Decoded in place, not fetched from a data: URL, which the page's Content-Security-Policy (connect-src 'self') refuses.
    const load = (base64) => createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
    const [ia, ib] = await Promise.all([load(a), load(b)]);
    if (ia.width !== ib.width || ia.height !== ib.height) return 1;
    const read = (img) => {
      const c = new OffscreenCanvas(img.width, img.height);
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      return ctx.getImageData(0, 0, img.width, img.height).data;
    };
    const da = read(ia), db = read(ib);
    let differing = 0;
    for (let i = 0; i < da.length; i += 4)
      if (Math.abs(da[i] - db[i]) > tolerance || Math.abs(da[i + 1] - db[i + 1]) > tolerance || Math.abs(da[i + 2] - db[i + 2]) > tolerance) differing++;
    return differing / (da.length / 4);
  }, { a: pngA.toString('base64'), b: pngB.toString('base64'), tolerance });
}

/** Pixels of a PNG screenshot whose RGB is exactly each of `colors` ("r,g,b" strings): { color: count }. */
export async function countExactColors(page, png, colors) {
  const stats = await exactColorStats(page, png, colors);
  return Object.fromEntries(colors.map((c) => [c, stats[c].count]));
}

/** The mean x (0–1 across the image) of the pixels of exactly this colour ("r,g,b"), null when none. */
export async function meanXOfColor(page, png, rgb) {
  const { count, sumX, width } = (await exactColorStats(page, png, [rgb]))[rgb];
  return count ? sumX / count / width : null;
}

/** For each of `colors` ("r,g,b"): how many pixels have exactly that RGB, the sum of their x, the image width. */
async function exactColorStats(page, png, colors) {
  return page.evaluate(async ({ base64, colors }) => {
    const img = await createImageBitmap(new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(img.width, img.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, img.width, img.height).data;
    const stats = Object.fromEntries(colors.map((c) => [c, { count: 0, sumX: 0, width: img.width }]));
    for (let i = 0; i < data.length; i += 4) {
      const found = stats[`${data[i]},${data[i + 1]},${data[i + 2]}`];
      if (found) { found.count++; found.sumX += (i / 4) % img.width; }
    }
    return stats;
  }, { base64: png.toString('base64'), colors });
}
