import { describe, expect, it } from 'vitest';
import { pointFragmentShader, SHAPE_COUNT, shapeDefines } from './shaders';

describe('glyph shapes compiled into the point shader', () => {
  it('defines exactly the shapes of the mask', () => {
    expect(Object.keys(shapeDefines(0b1000101))).toEqual(['SHAPE_0', 'SHAPE_2', 'SHAPE_6']);
    expect(shapeDefines(0)).toEqual({});
  });

  it('guards every shape with its define, so that any shape in use can be compiled in', () => {
    for (let k = 0; k < SHAPE_COUNT; k++) expect(pointFragmentShader).toMatch(new RegExp(`^#if.*\\bSHAPE_${k}\\b`, 'm'));
  });
});
