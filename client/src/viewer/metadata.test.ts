import { categoricalColor, type PlotColumn } from '@wpv/schema';
import { describe, expect, it } from 'vitest';
import { columnColors, columnLegend, missingColumnsText, MISSING, numberColor, pointValues } from './metadata';

const species: PlotColumn = { name: 'species', kind: 'category', categories: ['setosa', 'virginica', ''], codeBytes: 2 };
const length: PlotColumn = { name: 'length', kind: 'number', min: 1, max: 6 };
const rgbOf = (colors: Uint8Array, i: number) => Array.from(colors.subarray(4 * i, 4 * i + 3));

describe('metadata columns', () => {
  it('names missing columns once each, quoted, in the plural for several', () => {
    expect(missingColumnsText(['nosuch', 'nosuch'])).toBe('This plot has no column “nosuch”: the points keep their own colours and labels.');
    expect(missingColumnsText(['a', 'b'])).toBe('This plot has no columns “a” and “b”: the points keep their own colours and labels.');
  });


  it('colours categories from the shared palette by code, and numbers along the scale (grey when missing)', () => {
    const codes = new Uint16Array([1, 0, 2]);
    const c = columnColors(species, codes);
    const rgb = (k: number) => { const p = categoricalColor(k); return [p.r, p.g, p.b]; };
    expect([rgbOf(c, 0), rgbOf(c, 1), rgbOf(c, 2)]).toEqual([rgb(1), rgb(0), rgb(2)]);
    const n = columnColors(length, new Float32Array([1, 6, NaN, 3.5]));
    const low = numberColor(0), high = numberColor(1), mid = numberColor(0.5);
    expect(rgbOf(n, 0)).toEqual([low.r, low.g, low.b]);
    expect(rgbOf(n, 1)).toEqual([high.r, high.g, high.b]);
    expect(rgbOf(n, 2)).toEqual([MISSING.r, MISSING.g, MISSING.b]);
    expect(rgbOf(n, 3)).toEqual([mid.r, mid.g, mid.b]);
    expect(low).not.toEqual(high);
  });

  it('a category legend counts the points of each value, largest first, without empty rows', () => {
    const legend = columnLegend(species, new Uint16Array([1, 1, 0, 2, 1]));
    expect(legend.map((r) => [r.label, r.count])).toEqual([['virginica', 3], ['setosa', 1], ['(none)', 1]]);
    expect(legend[0]!.color).toEqual(categoricalColor(1));
    expect(columnLegend(species, new Uint16Array([0])).map((r) => r.label)).toEqual(['setosa']);
  });

  it('a number legend bins the range in order, with the missing values last', () => {
    const legend = columnLegend(length, new Float32Array([1, 1.5, 6, NaN, 3.6]));
    expect(legend.map((r) => r.label)).toEqual(['1 – 2', '2 – 3', '3 – 4', '4 – 5', '5 – 6', '(none)']);
    expect(legend.map((r) => r.count)).toEqual([2, 0, 1, 0, 1, 1]);
    const flat = columnLegend({ name: 'k', kind: 'number', min: 7, max: 7 }, new Float32Array([7, 7]));
    expect(flat.map((r) => [r.label, r.count])).toEqual([['7', 2]]);
  });

  it('a point\'s values read as text: categories, shortest numbers, "" when missing', () => {
    const data = [new Uint16Array([0, 1]), new Float32Array([4.7, NaN])];
    expect(pointValues([species, length], data, 0)).toEqual([['species', 'setosa'], ['length', '4.7']]);
    expect(pointValues([species, length], data, 1)).toEqual([['species', 'virginica'], ['length', '']]);
    expect(pointValues([species, length], [data[0], undefined], 1)).toEqual([['species', 'virginica']]);
  });
});
