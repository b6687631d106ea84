import { cutTree, leavesUnder, type TreeNodes } from '@wpv/schema';
import { describe, expect, it } from 'vitest';
import { cladeLegend, cladePointColors, cladePoints, leafPoints, nodePositions, shownLeafPoints, treeLines, treeModel } from './treeModel';

// ((a:1,b:1):1,(c:1,d:1):1); over points d, c, b, a (frame 0) at x = 0, 10, 20, 30.
const nodes: TreeNodes = {
  parent: [-1, 0, 1, 1, 0, 4, 4],
  length: [null, 1, 1, 1, 1, 1, 1],
  name: ['', '', 'a', 'b', '', 'c', 'd'],
  point: [-1, -1, 3, 2, -1, 1, 0],
};
const positions = Float32Array.from([0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0, 0]);
const model = treeModel({ originalName: 't.nwk', root: 'file', uploadedAt: '', leaves: 4, matched: 4, unmatched: [], nodes });

describe('a tree over the points', () => {
  it('places leaves at their points and internal nodes at the mean of their leaves', () => {
    const { xyz, present } = nodePositions(nodes, leafPoints(nodes, 0, null), positions);
    expect([...xyz].filter((_, k) => k % 3 === 0)).toEqual([15, 25, 30, 20, 5, 10, 0]);
    expect([...present]).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('follows the leaves by label in a later frame; a leaf the frame lacks drops out', () => {
    const leafPoint = leafPoints(nodes, 1, ['a', 'c', 'x']);
    expect([...leafPoint]).toEqual([-1, -1, 0, -1, -1, 1, -1]);
    expect([...leafPoints(nodes, 1, null)].every((p) => p === -1)).toBe(true); // labels not in yet: nothing drawn
    const { xyz, present } = nodePositions(nodes, leafPoint, positions.subarray(0, 9));
    expect([...present]).toEqual([1, 1, 1, 0, 1, 1, 0]);
    expect(xyz[0]).toBe(5);
  });

  it('leaves out the points of hidden clusters, and the nodes left with none of theirs', () => {
    const leafPoint = leafPoints(nodes, 0, null);
    const clusters = Uint32Array.from([5, 5, 7, 7]); // d, c in cluster 5; b, a in 7
    expect(shownLeafPoints(leafPoint, clusters, [])).toBe(leafPoint);
    const shown = shownLeafPoints(leafPoint, clusters, [5]);
    expect([...shown]).toEqual([-1, -1, 3, 2, -1, -1, -1]);
    const { xyz, present } = nodePositions(nodes, shown, positions);
    expect([...present]).toEqual([1, 1, 1, 1, 0, 0, 0]);
    expect(xyz[0]).toBe(25); // the root at the mean of a and b only
  });

  it('cuts into clades: their points, colours, legend; a collapsed clade is dimmed and drawn as one mark', () => {
    const cut = cutTree(nodes, 2);
    const leafPoint = leafPoints(nodes, 0, null);
    expect(cut.clades).toEqual([1, 4]);
    expect(cladePoints(model, cut, 0, leafPoint)).toEqual([2, 3]);
    expect(cladePoints(model, cut, 1, leafPoint)).toEqual([0, 1]);
    expect(cladeLegend(model, cut, leafPoint).map((r) => [r.key, r.label, r.count])).toEqual([[0, 'clade 1', 2], [1, 'clade 2', 2]]);
    // A later frame lacking b and d: each clade counts its leaves at points of that frame.
    expect(cladeLegend(model, cut, leafPoints(nodes, 1, ['a', 'c'])).map((r) => r.count)).toEqual([1, 1]);
    const colours = cladePointColors(model, cut, new Set([1]), leafPoint, 5);
    const rgb = (p: number) => [...colours.subarray(4 * p, 4 * p + 3)];
    expect(rgb(2)).toEqual(rgb(3));
    expect(rgb(0)).not.toEqual(rgb(2));
    expect(rgb(0).reduce((a, b) => a + b)).toBeLessThan(rgb(2).reduce((a, b) => a + b)); // dimmed
    expect(rgb(4)).toEqual([150, 150, 150]); // no leaf of the tree

    const placed = nodePositions(nodes, leafPoint, positions);
    const open = treeLines(nodes, placed, cut, new Set());
    expect(open.segments.length / 6).toBe(6);
    const closed = treeLines(nodes, placed, cut, new Set([1]));
    expect(closed.segments.length / 6).toBe(4); // c and d's branches go; the branch to their clade stays
    expect([...closed.marks]).toEqual([5, 0, 0]);
    const marksOnly = treeLines(nodes, placed, cut, new Set([1]), false);
    expect([marksOnly.segments.length, ...marksOnly.marks]).toEqual([0, 5, 0, 0]); // branches off: the mark stays
    expect(leavesUnder(nodes.parent).leaves).toEqual(Int32Array.from([2, 3, 5, 6]));
  });

  it('draws an outlier of the cut (a leaf in no clade) grey, its branch in the trunk colour', () => {
    // The cut of (a,b) as one clade with c and d left out as outliers.
    const cut = { clades: [1], cladeOf: Int32Array.from([-1, 0, 0, 0, -1, -1, -1]), outlierLeaves: 2, minSize: 2, widest: 2 };
    const leafPoint = leafPoints(nodes, 0, null);
    const colours = cladePointColors(model, cut, new Set(), leafPoint, 4);
    const rgb = (p: number) => [...colours.subarray(4 * p, 4 * p + 3)];
    expect(rgb(0)).toEqual([150, 150, 150]); // d
    expect(rgb(1)).toEqual([150, 150, 150]); // c
    expect(rgb(2)).not.toEqual([150, 150, 150]);
    const lines = treeLines(nodes, nodePositions(nodes, leafPoint, positions), cut, new Set());
    const colour = (segment: number) => [...lines.segmentColors.subarray(6 * segment, 6 * segment + 3)];
    expect(colour(4)).toEqual(colour(3)); // c's branch in the trunk colour, like the one above it
    expect(colour(4)).not.toEqual(colour(1)); // a's, in its clade's
  });
});
