import { describe, expect, test } from 'vitest';
import { paramFields, paramsFromInputs } from './paramFields';

describe('paramFields', () => {
  test('takes defaults, limits, choices and help from the schema', () => {
    const fields = paramFields('sequence-clustering');
    const maxClusters = fields.find((f) => f.key === 'maxClusters')!;
    expect(maxClusters).toMatchObject({ kind: 'integer', placeholder: '20', min: 2, max: 100, required: false });
    expect(maxClusters.help).toMatch(/clusters/);
    expect(fields.find((f) => f.key === 'alphabet')).toMatchObject({ kind: 'choice', options: ['auto', 'dna', 'protein'], placeholder: 'auto' });
    expect(fields.find((f) => f.key === 'seed')!.placeholder).toBe('');
  });

  test('marks required fields and unbounded maxima', () => {
    const points = paramFields('distance-matrix').find((f) => f.key === 'points')!;
    expect(points).toMatchObject({ required: true, min: 2, max: undefined });
    expect(paramFields('distance-matrix').find((f) => f.key === 'labels')!.kind).toBe('list');
    expect(paramFields('vectors').find((f) => f.key === 'header')!.kind).toBe('boolean');
  });

  test('a new job type gets its form from its contract alone (stock-timeseries)', () => {
    const fields = paramFields('stock-timeseries');
    expect(fields.map((f) => f.key)).toEqual(['windowDays', 'stepDays', 'maxMissing', 'distance', 'weights', 'clusterBy', 'referenceStocks', 'ranks', 'threads', 'nodes']);
    expect(fields.find((f) => f.key === 'windowDays')).toMatchObject({ kind: 'integer', placeholder: '365', min: 3 });
    expect(fields.find((f) => f.key === 'maxMissing')).toMatchObject({ kind: 'number', placeholder: '0.05', min: 0, max: 1 });
    expect(fields.find((f) => f.key === 'distance')).toMatchObject({ kind: 'choice', options: ['correlation', 'change'] });
    expect(fields.find((f) => f.key === 'weights')!.placeholder).toBe('');
  });
});

describe('paramsFromInputs', () => {
  test('converts typed inputs and leaves blanks to the defaults', () => {
    expect(paramsFromInputs('vectors', { maxClusters: '5', header: 'false', metric: '', seed: ' ' }))
      .toEqual({ params: { maxClusters: 5, header: false } });
    expect(paramsFromInputs('distance-matrix', { points: '3', labels: 'a, b,,c' }))
      .toEqual({ params: { points: 3, labels: ['a', 'b', 'c'] } });
  });

  test('reports the first invalid field by name', () => {
    expect(paramsFromInputs('sequence-clustering', { maxClusters: '500' }).error).toMatch(/^maxClusters: /);
    expect(paramsFromInputs('sequence-clustering', { ranks: '1.5' }).error).toMatch(/^ranks: /);
    expect(paramsFromInputs('distance-matrix', {})).toMatchObject({ error: expect.stringMatching(/^points: /), field: 'params.points' });
  });
});
