import { describe, expect, it } from 'vitest';
import { ClusterCreate, decodeSelectionMask, encodeSelectionMask, SelectionMaskError } from '@wpv/schema';
import { clusterBody } from './endpoints';

const bytesOf = (mask: string) => [...atob(mask)].map((c) => c.charCodeAt(0));

describe('selection mask', () => {
  it('puts point i in bit i & 7 of byte i >> 3, least significant bit first', () => {
    const mask = encodeSelectionMask([0, 2, 3, 8, 17], 18);
    expect(bytesOf(mask)).toEqual([0b1101, 0b1, 0b10]);
    expect(mask).toBe('DQEC');
    expect(decodeSelectionMask(mask, 18)).toEqual([0, 2, 3, 8, 17]);
  });

  it('round-trips a million points, in order, whatever order they were given in', () => {
    const count = 1_000_003;
    const chosen = Array.from({ length: count }, (_, i) => i).filter((i) => i % 7 === 3 || i % 11 === 0 || i === count - 1);
    const mask = encodeSelectionMask([...chosen].reverse(), count);
    expect(mask.length).toBe(4 * Math.ceil(Math.ceil(count / 8) / 3));
    expect(decodeSelectionMask(mask, count)).toEqual(chosen);
  });

  it('encodes no point and every point', () => {
    expect(decodeSelectionMask(encodeSelectionMask([], 9), 9)).toEqual([]);
    expect(decodeSelectionMask(encodeSelectionMask([0, 1, 2, 3, 4, 5, 6, 7, 8], 9), 9)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(encodeSelectionMask([], 0)).toBe('');
  });

  it('refuses to encode an index outside the frame', () => {
    expect(() => encodeSelectionMask([6], 6)).toThrow(RangeError);
    expect(() => encodeSelectionMask([-1], 6)).toThrow(RangeError);
    expect(() => encodeSelectionMask([1.5], 6)).toThrow(RangeError);
  });

  it('refuses a mask of another length, not base64, or with bits past the last point', () => {
    const refused = (mask: string, count: number) => {
      try {
        decodeSelectionMask(mask, count);
      } catch (err) {
        expect(err).toBeInstanceOf(SelectionMaskError);
        return (err as Error).message;
      }
      throw new Error(`${mask} was accepted`);
    };
    expect(refused('DQEC', 6)).toBe('expected ceil(6 points / 8) = 1 byte(s), got 3');
    expect(refused('DQ==', 9)).toBe('expected ceil(9 points / 8) = 2 byte(s), got 1');
    expect(refused('DQEC', 0)).toBe('expected ceil(0 points / 8) = 0 byte(s), got 3');
    expect(refused('D$==', 6)).toBe('not base64');
    expect(refused('D Q=', 6)).toBe('not base64');
    expect(refused('DQ', 6)).toBe('not base64'); // unpadded
    expect(refused('QA==', 6)).toBe('bits past point 5 are set'); // 0x40: point 6
    expect(decodeSelectionMask('IA==', 6)).toEqual([5]);
  });
});

describe('ClusterCreate', () => {
  const issues = (body: unknown) => ClusterCreate.safeParse(body).error?.issues.map((i) => i.path.join('.'));

  it('takes exactly one of points and mask', () => {
    expect(issues({ label: 'x', points: [1] })).toBeUndefined();
    expect(issues({ label: 'x', mask: 'AQ==' })).toBeUndefined();
    expect(issues({ label: 'x' })).toEqual(['points']);
    expect(issues({ label: 'x', points: [1], mask: 'AQ==' })).toEqual(['mask']);
    expect(issues({ label: 'x', mask: 'AQ=' })).toEqual(['mask']);
  });
});

describe('clusterBody', () => {
  it('sends indices while they are shorter than the mask, then the mask', () => {
    expect(clusterBody({ label: 'few', frame: 2, points: [5, 9], pointCount: 1_000_000 })).toEqual({ label: 'few', frame: 2, points: [5, 9] });
    const many = Array.from({ length: 200_000 }, (_, i) => i * 5);
    const body = clusterBody({ label: 'many', frame: 0, points: many, pointCount: 1_000_000 });
    expect(body.points).toBeUndefined();
    expect(decodeSelectionMask(body.mask!, 1_000_000)).toEqual(many);
    expect(JSON.stringify(body).length).toBeLessThan(170_000);
  });
});
