import { describe, expect, it } from 'vitest';
import { selectionCsv, toCsv } from './csv';

describe('csv', () => {
  it('quotes commas, quotes and newlines', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['line\nbreak', 3]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",3\r\n');
  });
  it('writes one row per selected point', () => {
    const csv = selectionCsv([{ index: 4, label: 'seq1', cluster: 'c, 2', x: 1.5, y: -2, z: 0 }]);
    expect(csv).toBe('index,label,cluster,x,y,z\r\n4,seq1,"c, 2",1.5,-2,0\r\n');
  });
});
