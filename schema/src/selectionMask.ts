// A selection of a frame's points as a bitset in base64: bit i of byte i >> 3, least significant
// bit first, is point i. A million points take 167 kB of JSON, where their indices could take 7 MB.
// The client encodes it (POST /plots/{id}/clusters `mask`), the server decodes it.

/** The base64 alphabet, padded to a multiple of 4 characters. */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A mask that does not fit the frame; the message says why. */
export class SelectionMaskError extends Error {}

/** The base64 mask of `points` (indices in a frame of `pointCount` points). */
export function encodeSelectionMask(points: Iterable<number>, pointCount: number): string {
  const bits = new Uint8Array(Math.ceil(pointCount / 8));
  for (const i of points) {
    if (!Number.isInteger(i) || i < 0 || i >= pointCount) throw new RangeError(`index ${i} is not a point of ${pointCount}`);
    bits[i >> 3] |= 1 << (i & 7);
  }
  // btoa takes a "binary string": built in slices, as spreading a whole large array overflows the stack.
  let binary = '';
  for (let at = 0; at < bits.length; at += 0x8000) binary += String.fromCharCode(...bits.subarray(at, at + 0x8000));
  return btoa(binary);
}

/** The selected indices, ascending; throws SelectionMaskError unless the mask has exactly the frame's bits. */
export function decodeSelectionMask(mask: string, pointCount: number): number[] {
  const bytes = Math.ceil(pointCount / 8);
  if (!BASE64.test(mask)) throw new SelectionMaskError('not base64');
  // Its byte length shows before decoding: a mask made for another frame is reported as such.
  const length = (mask.length / 4) * 3 - (mask.endsWith('==') ? 2 : mask.endsWith('=') ? 1 : 0);
  if (length !== bytes) throw new SelectionMaskError(`expected ceil(${pointCount} points / 8) = ${bytes} byte(s), got ${length}`);
  const binary = atob(mask);
  const spare = bytes * 8 - pointCount;
  if (spare && binary.charCodeAt(bytes - 1) >> (8 - spare)) throw new SelectionMaskError(`bits past point ${pointCount - 1} are set`);
  const points: number[] = [];
  for (let b = 0; b < bytes; b++) {
    const byte = binary.charCodeAt(b);
    for (let bit = 0; byte >> bit; bit++) if ((byte >> bit) & 1) points.push(b * 8 + bit);
  }
  return points;
}
