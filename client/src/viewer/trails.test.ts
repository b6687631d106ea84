import { describe, expect, it } from 'vitest';
import { blendTargets } from './timeSeries';
import { MAX_TRAILS, TRAIL_COLORS, computePaths, missingLabels, trailLabels, trailScene, type TrailFrame, type TrailSettings } from './trails';

const frame = (labels: string[], xs: number[]): TrailFrame => ({ labels, positions: new Float32Array(xs.flatMap((x) => [x, 0, 0])) });
// a is absent from frame 2; b is everywhere
const frames = [frame(['a', 'b'], [0, 10]), frame(['b', 'a'], [11, 1]), frame(['b'], [12]), frame(['a', 'b'], [3, 13])];
const BLACK: [number, number, number] = [0, 0, 0];
const settings = (s: Partial<TrailSettings> = {}): TrailSettings => ({ length: 10, width: 3, marks: false, ...s });
const xs = (v: Float32Array, stride: number) => [...v].filter((_, k) => k % stride === 0);

describe('trail labels', () => {
  it('are trimmed, without blanks or repeats', () => {
    expect(trailLabels([' AAPL', 'MSFT ', '', 'AAPL'])).toEqual({ labels: ['AAPL', 'MSFT'], leftOut: 0 });
  });
  it('are capped at MAX_TRAILS, saying how many were left out', () => {
    const many = Array.from({ length: MAX_TRAILS + 7 }, (_, i) => `S${i}`);
    const { labels, leftOut } = trailLabels(many);
    expect(labels).toEqual(many.slice(0, MAX_TRAILS));
    expect(leftOut).toBe(7);
  });
});

describe('trail paths', () => {
  it('follow a label through all frames, NaN where absent', () => {
    const [a, b] = computePaths(frames, ['a', 'b']);
    expect([a![0], a![3], a![6], a![9]]).toEqual([0, 1, NaN, 3]);
    expect([b![0], b![3], b![6], b![9]]).toEqual([10, 11, 12, 13]);
  });
  it('name the labels no frame has (AAPL in a plot without it)', () => {
    const labels = ['a', 'AAPL', 'b'];
    expect(missingLabels(computePaths(frames, labels), labels)).toEqual(['AAPL']);
  });
});

describe('trail scene', () => {
  const labels = ['a', 'b'];
  const paths = computePaths(frames, labels);
  it('draws the steps up to the frame shown and breaks where a label is missing', () => {
    const s = trailScene(paths, labels, 3, settings(), BLACK);
    // a: 0→1 (1→absent and absent→3 break); b: 10→11→12→13
    expect(xs(s.segments, 3)).toEqual([0, 1, 10, 11, 11, 12, 12, 13]);
  });
  it('draws only the last `length` steps', () => {
    const s = trailScene(paths, labels, 3, settings({ length: 1 }), BLACK);
    expect([...s.segments]).toEqual([12, 0, 0, 13, 0, 0]);
  });
  it('fades older steps towards the background; the newest has the full colour', () => {
    const s = trailScene(paths, labels, 3, settings({ length: 3 }), BLACK);
    const [r, g] = TRAIL_COLORS[1]!.map((c) => c / 255);
    const reds = xs(s.segmentColors, 3).slice(2); // a's one segment comes first
    // b's segment ends at frames 0,1, 1,2, 2,3: weights 0.2, 0.4667, 0.4667, 0.7333, 0.7333, 1
    expect(reds.at(-1)).toBeCloseTo(r!);
    expect(reds[0]).toBeCloseTo(0.2 * r!);
    for (let k = 1; k < reds.length; k++) expect(reds[k]!).toBeGreaterThanOrEqual(reds[k - 1]! - 1e-6);
    const onWhite = trailScene(paths, labels, 3, settings({ length: 3 }), [255, 255, 255]);
    expect(onWhite.segmentColors[7]).toBeCloseTo(1 - 0.2 * (1 - g!)); // fades towards white there
  });
  it('puts a mark at each frame position when asked, and heads where the label is now', () => {
    const off = trailScene(paths, labels, 2, settings(), BLACK);
    expect(off.marks.length).toBe(0);
    const on = trailScene(paths, labels, 2, settings({ marks: true }), BLACK);
    expect(xs(on.marks, 3)).toEqual([0, 1, 10, 11, 12]);
    expect(on.markColors.length).toBe(on.marks.length);
    // a is absent from frame 2: only b has a head there
    expect(on.heads.map((h) => [h.label, h.xyz[0]])).toEqual([['b', 12]]);
    expect(trailScene(paths, labels, 3, settings(), BLACK).heads.map((h) => h.label)).toEqual(['a', 'b']);
  });
  it('while playback glides to the next frame, heads sit where the shader draws their points and the line grows to them', () => {
    const t = 0.25;
    const s = trailScene(paths, labels, 0, settings(), BLACK, { to: 1, t });
    // The points' blend target (what the shader mixes towards) for frame 0's points a, b.
    const target = blendTargets({ ...frames[0]!, clusters: new Uint32Array(2) } as never, { ...frames[1]!, clusters: new Uint32Array(2) } as never);
    expect(s.heads.map((h) => h.xyz[0])).toEqual([0, 1].map((i) => frames[0]!.positions[3 * i]! + (target[3 * i]! - frames[0]!.positions[3 * i]!) * t));
    expect(s.heads.map((h) => h.xyz[0])).toEqual([0.25, 10.25]);
    // One growing segment per trail, from the frame shown to the head, in the head's colour.
    expect(xs(s.segments, 3)).toEqual([0, 0.25, 10, 10.25]);
    expect(s.segmentColors[3]).toBeCloseTo(TRAIL_COLORS[0]![0] / 255);
    // b glides into frame 2, where a is absent: a's head stays, as its point does.
    const partial = trailScene(paths, labels, 1, settings(), BLACK, { to: 2, t: 0.5 });
    expect(partial.heads.map((h) => [h.label, h.xyz[0]])).toEqual([['a', 1], ['b', 11.5]]);
    expect(xs(partial.segments, 3)).toEqual([0, 1, 10, 11, 11, 11.5]);
    // Looping back to the first frame moves the head but draws no line across the plot; t = 0 is the frame itself.
    const loop = trailScene(paths, labels, 3, settings(), BLACK, { to: 0, t: 0.5 });
    expect(loop.heads.map((h) => h.xyz[0])).toEqual([1.5, 11.5]);
    expect(loop.segments).toEqual(trailScene(paths, labels, 3, settings(), BLACK).segments);
    expect(trailScene(paths, labels, 0, settings(), BLACK, { to: 1, t: 0 })).toEqual(trailScene(paths, labels, 0, settings(), BLACK));
  });
  it('gives each trail its own contrasting colour', () => {
    const heads = trailScene(paths, labels, 3, settings(), BLACK).heads;
    expect(heads[0]!.color).toEqual(TRAIL_COLORS[0]);
    expect(heads[1]!.color).toEqual(TRAIL_COLORS[1]);
  });
});
