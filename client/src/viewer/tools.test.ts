import { describe, expect, it } from 'vitest';
import { SHORTCUTS } from './keymap';
import type { PlotRenderer } from './renderer';
import { TOOLS, toolSpec } from './tools';

describe('tool table', () => {
  it('gives every tool a key of its own in the key map and a help line', () => {
    const keys = SHORTCUTS.flatMap((s) => s.keys);
    expect(new Set(keys).size).toBe(keys.length);
    for (const t of TOOLS) {
      const shortcut = SHORTCUTS.find((s) => s.keys.includes(t.key));
      expect(shortcut?.help).toBe(t.help);
    }
  });

  it('names the orbit tool for what a drag does: rotate in 3D, pan in 2D', () => {
    expect(toolSpec('orbit').label('3d')).toBe('Rotate');
    expect(toolSpec('orbit').label('2d')).toBe('Pan');
    expect(toolSpec('box').label('2d')).toBe('Box select');
  });

  it('box keeps its corner and the pointer; lasso keeps the whole path', () => {
    expect(toolSpec('box').drag(toolSpec('box').drag([[1, 2]], [3, 4]), [5, 6])).toEqual([[1, 2], [5, 6]]);
    expect(toolSpec('lasso').drag([[1, 2], [3, 4]], [5, 6])).toHaveLength(3);
  });

  it('selects through the renderer only with a shape; a press that did not move is a click', () => {
    const calls: string[] = [];
    const renderer = {
      selectRect: (...a: number[]) => { calls.push(`rect ${a.join(',')}`); return [1]; },
      selectPolygon: (p: [number, number][]) => { calls.push(`polygon ${p.length}`); return [2]; },
    } as unknown as PlotRenderer;
    expect(toolSpec('box').select(renderer, [[0, 0]])).toBeNull();
    expect(toolSpec('box').select(renderer, [[0, 0], [5, 6]])).toEqual([1]);
    expect(toolSpec('lasso').select(renderer, [[0, 0], [5, 6]])).toBeNull();
    expect(toolSpec('lasso').select(renderer, [[0, 0], [5, 6], [0, 6]])).toEqual([2]);
    expect(toolSpec('orbit').select(renderer, [[0, 0], [5, 6], [0, 6]])).toBeNull();
    expect(calls).toEqual(['rect 0,0,5,6', 'polygon 3']);
  });
});
