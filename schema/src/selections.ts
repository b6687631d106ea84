// Named selections saved with a plot (/plots/{id}/selections/{name}): sets of point indices
// of one frame that the viewer and scripts share. Sent as indices or as the base64 bitset
// of selectionMask.ts; stored and served as that bitset, decoded to indices on request.
import { z } from 'zod';
import { BASE64 } from './selectionMask.ts';

/** Letters, digits, space, "_", "." and "-", starting with a letter or digit: safe in a URL path and a store key. */
export const SelectionName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/, '1–100 letters, digits, spaces, "_", "." or "-", starting with a letter or digit');

export const SelectionInput = z
  .object({
    frame: z.number().int().min(0).default(0).describe('the frame the indices refer to'),
    indices: z
      .array(z.number().int().min(0))
      .refine((indices) => new Set(indices).size === indices.length, 'an index is listed twice')
      .optional()
      .describe('indices of the selected points of `frame` (a large selection is shorter as `mask`)'),
    mask: z
      .string()
      .regex(BASE64, 'not base64')
      .optional()
      .describe('the selected points as a base64 bitset, instead of `indices`: bit i of byte i>>3 (least significant bit first) is point i; exactly ceil(points in the frame / 8) bytes'),
  })
  .strict()
  .refine((s) => s.indices !== undefined || s.mask !== undefined, { path: ['indices'], message: 'give the indices in `indices` or a bitset in `mask`' })
  .refine((s) => s.indices === undefined || s.mask === undefined, { path: ['mask'], message: 'give either `indices` or `mask`, not both' });
export type SelectionInput = z.input<typeof SelectionInput>;

export const SelectionInfo = z.object({
  name: z.string(),
  frame: z.number().int(),
  count: z.number().int().describe('selected points'),
  updatedAt: z.string(),
});
export type SelectionInfo = z.infer<typeof SelectionInfo>;

export const Selection = SelectionInfo.extend({
  indices: z.array(z.number().int()).optional().describe('ascending (encoding=indices, the default)'),
  mask: z.string().optional().describe('the base64 bitset over the frame\'s points (encoding=mask)'),
});
export type Selection = z.infer<typeof Selection>;

export const SelectionQuery = z.object({
  encoding: z.enum(['indices', 'mask']).default('indices').describe('how the points are returned: `mask` is ~50× shorter for large selections'),
}).strict();
