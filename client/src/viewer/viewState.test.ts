import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, decodeRanges, decodeViewState, encodeRanges, encodeViewState, mergeOverrides, viewDefaults, withoutPlayback, type ViewState } from './viewState';
import { MAX_TRAILS } from './trails';

describe('ranges', () => {
  it('compresses runs and round-trips', () => {
    expect(encodeRanges([9, 1, 2, 3, 4, 7, 10, 3])).toBe('1-4,7,9-10');
    expect(decodeRanges('1-4,7,9-10')).toEqual([1, 2, 3, 4, 7, 9, 10]);
    expect(decodeRanges('')).toEqual([]);
  });
  it('rejects garbage and reversed ranges', () => {
    expect(() => decodeRanges('3-1')).toThrow();
    expect(() => decodeRanges('a')).toThrow();
    expect(() => decodeRanges('0-99999999')).toThrow();
  });
});

describe('view state in the URL', () => {
  const full: ViewState = {
    camera: { position: [1.5, -2, 3.25], target: [0, 0.125, 0], up: [0, 1, 0], zoom: 2 },
    mode: '2d',
    hidden: [3, 4, 5, 100],
    overrides: { 7: { color: { r: 255, g: 0, b: 0, a: 128 }, size: 2.5 }, 9: { shape: 4 } },
    pointSize: 3,
    glyphSize: 7.5,
    glyphs: false,
    selection: [0, 1, 2, 50],
    frame: 12,
    edges: false,
    axes: true,
    colorBy: 'sector & size=big',
    labelBy: 'symbol',
    trails: ['ENE000', 'A,B & C'],
    fps: 20,
    tree: false,
    clades: 6,
    cladeWidth: null,
    collapsed: [1, 4],
  };
  it('round-trips every field through a query string', () => {
    const query = encodeViewState(full).toString();
    const { state, problems } = decodeViewState(new URLSearchParams(query));
    expect(problems).toEqual([]);
    expect(state).toEqual(full);
  });
  it('carries the tree cut and its collapsed clades; a collapsed clade past the cut or a bad cut is dropped', () => {
    const query = encodeViewState({ ...DEFAULT_VIEW, clades: 5, collapsed: [0, 3] });
    expect(query.toString()).toBe('clades=5&collapse=1%2C4'); // numbered from 1, as the panel's clades
    expect(encodeViewState({ ...DEFAULT_VIEW, clades: 0, collapsed: [2] }).toString()).toBe('');
    expect(decodeViewState(new URLSearchParams('clades=3&collapse=0,2,7')).state).toMatchObject({ clades: 3, collapsed: [1] });
    const { state, problems } = decodeViewState(new URLSearchParams('clades=x&tree=0'));
    expect([state.clades, state.tree, problems]).toEqual([0, false, ['clades: a number of clades, 0–200']]);
  });

  it('carries a cut at a width, which replaces a cut into k; its collapsed clades are kept whatever their number', () => {
    const query = encodeViewState({ ...DEFAULT_VIEW, cladeWidth: 0.035, collapsed: [0, 11] });
    expect(query.toString()).toBe('cladewidth=0.035&collapse=1%2C12');
    expect(decodeViewState(query).state).toMatchObject({ clades: 0, cladeWidth: 0.035, collapsed: [0, 11] });
    expect(decodeViewState(new URLSearchParams('clades=4&cladewidth=2')).state).toMatchObject({ clades: 0, cladeWidth: 2 });
    for (const bad of ['-1', 'x', '', 'Infinity']) {
      const { state, problems } = decodeViewState(new URLSearchParams(`cladewidth=${bad}`));
      expect([state.cladeWidth, problems]).toEqual([null, ['cladewidth: a clade width, a number ≥ 0']]);
    }
  });
  it('carries the colour-by and label-by columns by name (a shared link or saved view restores them)', () => {
    const query = encodeViewState({ ...DEFAULT_VIEW, colorBy: 'sector & size=big', labelBy: 'symbol' });
    expect(query.get('colorby')).toBe('sector & size=big');
    expect(query.toString()).toBe('colorby=sector+%26+size%3Dbig&labelby=symbol');
    const { state } = decodeViewState(new URLSearchParams(query.toString()));
    expect([state.colorBy, state.labelBy]).toEqual(['sector & size=big', 'symbol']);
    expect(decodeViewState(new URLSearchParams('colorby=&labelby=')).state).toMatchObject({ colorBy: null, labelBy: null });
  });
  it('carries the followed trails (one parameter each) and the playback speed', () => {
    const query = encodeViewState({ ...DEFAULT_VIEW, trails: ['ENE000', 'FIN,001'], fps: 20 });
    expect(query.toString()).toBe('trail=ENE000&trail=FIN%2C001&fps=20');
    expect(decodeViewState(query).state).toMatchObject({ trails: ['ENE000', 'FIN,001'], fps: 20 });
    expect(encodeViewState({ ...DEFAULT_VIEW, fps: DEFAULT_VIEW.fps }).toString()).toBe('');
  });
  it('reports trails and speeds it cannot use, keeping what it can', () => {
    const many = Array.from({ length: MAX_TRAILS + 3 }, (_, i) => `trail=T${i}`).join('&');
    const { state, problems } = decodeViewState(new URLSearchParams(`${many}&trail=&trail=T0&fps=7`));
    expect(state.trails).toHaveLength(MAX_TRAILS);
    expect(state.fps).toBe(DEFAULT_VIEW.fps);
    expect(problems).toEqual([
      'trail: an empty label', `trail: at most ${MAX_TRAILS} trails; 3 more left out`, 'fps: speeds are 1, 2, 5, 10, 20, 30 frames/s',
    ]);
  });
  it('says that frames count from 0, not that -3 is not whole', () => {
    expect(decodeViewState(new URLSearchParams('f=-3')).problems).toEqual(['f: "-3" is not a frame: f counts frames from 0 (the first)']);
  });
  it('writes nothing for the default view', () => {
    expect(encodeViewState(DEFAULT_VIEW).toString()).toBe('');
    expect(decodeViewState(new URLSearchParams('')).state).toEqual(DEFAULT_VIEW);
  });
  it('skips malformed parameters, reports them and keeps the rest', () => {
    const { state, problems } = decodeViewState(new URLSearchParams('cam=1,2&hide=2-3&shape=1:9&ps=-1&f=x'));
    expect(state.camera).toBeNull();
    expect(state.hidden).toEqual([2, 3]);
    expect(state.overrides).toEqual({});
    expect(problems.map((p) => p.split(':')[0])).toEqual(['cam', 'shape', 'ps', 'f']);
  });
  it("takes the plot's display settings as defaults, leaving them out of the link", () => {
    const defaults = viewDefaults({ pointSize: 2, glyphsVisible: false, glyphScale: 1.5 });
    expect(defaults).toMatchObject({ pointSize: 2, glyphs: false, glyphSize: 6 });
    expect(decodeViewState(new URLSearchParams(''), defaults).state).toEqual(defaults);
    expect(encodeViewState(defaults, defaults).toString()).toBe('');
    const changed = { ...defaults, glyphs: true, pointSize: 4 };
    const query = encodeViewState(changed, defaults);
    expect(query.toString()).toBe('ps=4&glyphs=1');
    expect(decodeViewState(query, defaults).state).toEqual(changed);
    expect(viewDefaults(undefined)).toEqual(DEFAULT_VIEW);
  });
  it('sizes points and glyphs by the plot\'s point count unless its file sets a size', () => {
    expect([40, 1_000, 5_000, 100_000].map((n) => viewDefaults(undefined, n).pointSize)).toEqual([8, 8, 6, 4]);
    expect([40, 5_000, 100_000].map((n) => viewDefaults(undefined, n).glyphSize)).toEqual([8, 6, 4]);
    expect(viewDefaults({ pointSize: 2, glyphScale: 1.5 }, 40)).toMatchObject({ pointSize: 2, glyphSize: 12 });
  });
});

describe('a single-frame plot', () => {
  it('drops the trails and the speed a link asks for, so its link does not carry them on', () => {
    const defaults = viewDefaults(undefined, 10);
    const linked = decodeViewState(new URLSearchParams('trail=p1&trail=p2&fps=20&ps=3'), defaults).state;
    const params = encodeViewState(withoutPlayback(linked, defaults), defaults);
    expect([params.getAll('trail'), params.get('fps'), params.get('ps')]).toEqual([[], null, '3']);
  });
});

describe('cluster overrides', () => {
  it('merges changes field by field; undefined drops a field and an empty entry drops the cluster', () => {
    const red = { r: 255, g: 0, b: 0, a: 255 };
    const start = { 1: { color: red }, 2: { size: 3 } };
    expect(mergeOverrides(start, { 1: { shape: 2 } })).toEqual({ 1: { color: red, shape: 2 }, 2: { size: 3 } });
    expect(mergeOverrides(start, { 2: { size: undefined } })).toEqual({ 1: { color: red } });
    expect(start).toEqual({ 1: { color: red }, 2: { size: 3 } }); // not changed in place
  });
});
