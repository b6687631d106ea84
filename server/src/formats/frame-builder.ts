// Appends points into growable typed arrays and checks what is common to all
// formats: finite Float32 coordinates, unique point keys, the point cap.
import type { ParsedEdge, ParsedFrame } from './types.ts';
import { inputError, quoted, type FrameInput } from './reader.ts';

const INITIAL_CAPACITY = 1 << 12;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Point keys → point indices. Keys that are integers compare as numbers ("07"
 * is 7), others as strings. While keys arrive as increasing integers (the
 * usual case) they sit in a Float64Array and are found by binary search; the
 * first key out of order moves them to a Map.
 */
class PointKeyIndex {
  private sorted: Float64Array<ArrayBuffer> = new Float64Array(INITIAL_CAPACITY);
  private map: Map<string, number> | null = null;
  private count = 0;

  /** Records the key of point `count` (text, or an integer already parsed); false when the key was already used. */
  add(keyText: string | number): boolean {
    const index = this.count;
    const key = Number(keyText);
    const integer = typeof keyText === 'number' || (keyText.length > 0 && Number.isSafeInteger(key));
    if (this.map === null) {
      if (integer && (index === 0 || key > this.sorted[index - 1])) {
        if (index === this.sorted.length) this.sorted = grow(this.sorted, index + 1);
        this.sorted[index] = key;
        this.count++;
        return true;
      }
      this.map = new Map();
      for (let i = 0; i < index; i++) this.map.set(String(this.sorted[i]), i);
      this.sorted = new Float64Array(0);
    }
    const canonical = integer ? String(key) : (keyText as string);
    if (this.map.has(canonical)) return false;
    this.map.set(canonical, index);
    this.count++;
    return true;
  }

  /** Index of the point with this key, or -1. */
  indexOf(keyText: string): number {
    const key = Number(keyText);
    const integer = keyText.length > 0 && Number.isSafeInteger(key);
    if (this.map !== null) return this.map.get(integer ? String(key) : keyText) ?? -1;
    if (!integer) return -1;
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.sorted[mid];
      if (at === key) return mid;
      if (at < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

export class FrameBuilder {
  private positions: Float32Array<ArrayBuffer> = new Float32Array(INITIAL_CAPACITY * 3);
  private clusterKeys: Uint32Array<ArrayBuffer> = new Uint32Array(INITIAL_CAPACITY);
  private readonly labels: string[] = [];
  private readonly columns = new Map<string, string[]>();
  private readonly keys = new PointKeyIndex();
  count = 0;

  constructor(private readonly input: FrameInput) {}

  /**
   * Appends a point. `key` is the file's point key (an integer when already
   * parsed as one), or null when the format
   * has none (then keys cannot collide). Throws an InputError naming `line`.
   */
  add(key: string | number | null, x: number, y: number, z: number, clusterKey: number, label: string, line: number): void {
    const n = this.count;
    if (n >= this.input.limits.maxPoints) {
      throw inputError(this.input, 'too_many_points', `more than ${this.input.limits.maxPoints} points in one frame`, line, 413);
    }
    if (!isFloat32Finite(x) || !isFloat32Finite(y) || !isFloat32Finite(z)) {
      throw inputError(this.input, 'non_finite', `coordinates (${x}, ${y}, ${z}) are not finite 32-bit numbers`, line);
    }
    if (key !== null && !this.keys.add(key)) {
      throw inputError(this.input, 'duplicate_point_key', `point key ${quoted(key)} is used twice`, line);
    }
    if (n === this.clusterKeys.length) {
      this.clusterKeys = grow(this.clusterKeys, n + 1);
      this.positions = grow(this.positions, (n + 1) * 3);
    }
    const p = n * 3;
    this.positions[p] = x;
    this.positions[p + 1] = y;
    this.positions[p + 2] = z;
    this.clusterKeys[n] = clusterKey;
    this.labels.push(label);
    this.count = n + 1;
  }

  /** Sets a metadata column's value of the point added last; points given none have ''. */
  setColumn(name: string, value: string): void {
    let values = this.columns.get(name);
    if (values === undefined) this.columns.set(name, (values = []));
    while (values.length < this.count - 1) values.push('');
    values[this.count - 1] = value;
  }

  /** Index of the point with this file key, or -1 (edges refer to points by key). */
  indexOfKey(keyText: string): number {
    return this.keys.indexOf(keyText);
  }

  finish(title: string, edges: ParsedEdge[], lastLine: number): ParsedFrame {
    if (this.count === 0) throw inputError(this.input, 'no_points', 'the file contains no points', lastLine);
    for (const values of this.columns.values()) while (values.length < this.count) values.push('');
    return {
      title,
      positions: this.positions.slice(0, this.count * 3),
      clusterKeys: this.clusterKeys.slice(0, this.count),
      labels: this.labels,
      edges,
      ...(this.columns.size > 0 && { columns: this.columns }),
    };
  }
}

function isFloat32Finite(v: number): boolean {
  return v >= -FLOAT32_MAX && v <= FLOAT32_MAX; // false for NaN and ±Infinity too
}

type Growable = Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

function grow<T extends Growable>(array: T, needed: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(needed, array.length * 2));
  bigger.set(array);
  return bigger;
}
