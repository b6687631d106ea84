// Newick parsing (tricky inputs, errors with line and column) and the cut into clades
// (schema/src/trees.ts) against planted groups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutTree, leavesUnder } from '@wpv/schema';
import { parseNewick } from '../../src/formats/newick.ts';
import { InputError } from '../../src/formats/types.ts';
import { matchLeaves } from '../../src/services/trees.ts';
import { plantedTree } from '../trees/planted.ts';

const refusal = (text: string): InputError => {
  try {
    parseNewick(text);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.details.status, 400);
    assert.equal(e.details.field, 'file');
    return e;
  }
  assert.fail(`parsed: ${text}`);
};

test('lengths, internal labels, quoted labels, comments, whitespace and multifurcations', () => {
  const tree = parseNewick(`[FastTree 2.1]
  ( 'Homo sapiens':0.1 , "it's"[&&NHX:S=x]:2e-1,
    (B_1:1,C,D:.5)95:0.3 ,'a''b',
    'x (y)':-0.25) root ;
`);
  assert.deepEqual(tree.name, ['root', 'Homo sapiens', "it's", '95', 'B_1', 'C', 'D', "a'b", 'x (y)']);
  assert.deepEqual(tree.parent, [-1, 0, 0, 0, 3, 3, 3, 0, 0]);
  assert.deepEqual(tree.length, [null, 0.1, 0.2, 0.3, 1, null, 0.5, null, -0.25]);
});

test('deep nesting is read without recursion (a caterpillar of 100,000 leaves)', () => {
  const n = 100_000;
  const text = '('.repeat(n - 1) + 'L0' + Array.from({ length: n - 1 }, (_, i) => `,L${i + 1})`).join('') + ';';
  const tree = parseNewick(text);
  assert.equal(tree.parent.length, 2 * n - 1);
  assert.equal(tree.name.at(-1), `L${n - 1}`);
});

test('errors name the line and column', () => {
  const cases: [string, string][] = [
    ['(A,B);\n(C,D);', 'file: line 2, column 1: text after the tree\'s ";" (one tree per file)'],
    ['(A,B)', 'file: line 1, column 6: the tree does not end with ";"'],
    ['(A,\n (B,C);', 'file: line 2, column 7: ";" before every "(" is closed'],
    ['(A,\n  B:x1);', 'file: line 2, column 5: "x1" is not a branch length (a number after ":")'],
    ['(A,,B);', 'file: line 1, column 4: expected a leaf name, found ","'],
    ['(A,B)[unclosed;', 'file: line 1, column 6: a comment "[" is never closed by "]"'],
    ["('A,B);", 'file: line 1, column 2: the label quoted at \' is never closed'],
    ['(A,(B,C)', 'file: line 1, column 9: the file ends inside the tree: a "(" is never closed'],
    ['A,B;', 'file: line 1, column 2: "," outside any parentheses'],
    ['(A B);', 'file: line 1, column 4: expected ",", ")" or ";", found "B"'],
    ['  \n[only a comment]\n', 'file: line 3, column 1: the file holds no tree'],
  ];
  for (const [text, message] of cases) {
    const error = refusal(text);
    assert.equal(error.message, message, JSON.stringify(text));
    assert.equal(error.details.line, Number(/line (\d+)/.exec(message)![1]));
  }
});

test('the cut at k = number of planted groups gives exactly the groups', () => {
  for (const [seed, sizes] of [[1, [5, 8, 3]], [2, [10, 10, 10, 10, 10]], [3, [2, 30, 7, 12, 1, 9, 4]]] as [number, number[]][]) {
    const planted = plantedTree(sizes, seed);
    const labels = planted.groups.flat();
    const { nodes } = matchLeaves(parseNewick(planted.newick), labels, 'planted.nwk');
    const { clades } = cutTree(nodes, sizes.length);
    assert.equal(clades.length, sizes.length);
    const under = leavesUnder(nodes.parent);
    const found = clades.map((c) => [...under.leaves.subarray(under.start[c]!, under.end[c]!)].map((leaf) => labels[nodes.point[leaf]!]!).sort());
    const sortGroups = (groups: string[][]) => groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
    assert.deepEqual(sortGroups(found), sortGroups(planted.groups), `seed ${seed}`);
  }
});

test('the cut without branch lengths splits the clade with the most leaves; multifurcations may overshoot k', () => {
  const tree = parseNewick('((A,B),(C,D,E),F);');
  const names = (k: number) => {
    const { clades } = cutTree({ parent: tree.parent, length: tree.length }, k);
    return clades.map((c) => tree.name[c] || c);
  };
  assert.deepEqual(names(1), [0]);
  assert.deepEqual(names(2), [1, 4, 'F'], 'the root splits in three');
  assert.deepEqual(names(4), [1, 'C', 'D', 'E', 'F'], '(C,D,E) before (A,B)');
  assert.deepEqual(names(99), ['A', 'B', 'C', 'D', 'E', 'F']);
});

test('outliers on long branches near the root are left out of the k clades, which are the planted groups', () => {
  // Four planted groups of 20 leaves, wrapped in lone leaves on long branches, each a step nearer
  // the root: splitting root-most nodes first (the cut before) gave o4, o3, o2 and everything else.
  const planted = plantedTree([20, 20, 20, 20], 4);
  const outliers = ['o1', 'o2', 'o3', 'o4'];
  let newick = planted.newick.slice(0, -1);
  for (const o of outliers) newick = `(${newick}:0.01,${o}:8)`;
  const labels = [...planted.groups.flat(), ...outliers];
  const { nodes } = matchLeaves(parseNewick(newick + ';'), labels, 'outliers.nwk');
  const cut = cutTree(nodes, 4);
  assert.equal(cut.minSize, 2, 'a tenth of the mean clade size, 84 / 4');
  assert.equal(cut.outlierLeaves, 4);
  const under = leavesUnder(nodes.parent);
  const found = cut.clades.map((c) => [...under.leaves.subarray(under.start[c]!, under.end[c]!)].map((leaf) => labels[nodes.point[leaf]!]!).sort());
  const sortGroups = (groups: string[][]) => groups.map((g) => [...g].sort()).sort((a, b) => a[0]!.localeCompare(b[0]!));
  assert.deepEqual(sortGroups(found), sortGroups(planted.groups));
  for (const o of outliers) assert.equal(cut.cladeOf[nodes.name.indexOf(o)], -1, `${o} is in no clade`);
});

test('a ladder-like tree is not peeled leaf by leaf: outliers stay within a tenth of the leaves', () => {
  let newick = 'x0:1';
  for (let i = 1; i < 100; i++) newick = `(${newick},x${i}:1):1`;
  const tree = parseNewick(newick.slice(0, -2) + ';');
  const cut = cutTree({ parent: tree.parent, length: tree.length }, 5);
  assert.equal(cut.clades.length, 5);
  assert.ok(cut.outlierLeaves <= 10, `${cut.outlierLeaves} outliers`);
});

test('leaves without a point are left out; a node left with one child is merged into it', () => {
  const tree = parseNewick('((A:1,X:1):2,(B:1,(C:1,Y:4):1):1);');
  const matched = matchLeaves(tree, ['C', 'A', 'B', 'Z'], 't.nwk');
  assert.equal(matched.leaves, 5);
  assert.equal(matched.matched, 3);
  assert.deepEqual(matched.unmatched, ['X', 'Y']);
  assert.deepEqual(matched.nodes, {
    parent: [-1, 0, 0, 2, 2],
    length: [null, 3, 1, 1, 2],
    name: ['', 'A', '', 'B', 'C'],
    point: [-1, 1, -1, 2, 0],
  });
});

test('refused: repeated leaf names, labels several points share, no leaf matching', () => {
  const refused = (newick: string, labels: string[]) => assert.throws(() => matchLeaves(parseNewick(newick), labels, 't'), InputError);
  assert.throws(() => matchLeaves(parseNewick('(A,(B,A));'), ['A', 'B'], 't'), /^InputError: file: leaf names must be unique; repeated: "A"$/);
  assert.throws(() => matchLeaves(parseNewick('(A,B);'), ['A', 'B', 'A'], 't'), /file: leaves name labels that several points have: "A"/);
  assert.throws(() => matchLeaves(parseNewick('(A,B,C,D);'), ['p1', 'p2'], 't'), /^InputError: file: no leaf name is a point label \(leaves: "A", "B", "C" and 1 more; points: "p1", "p2"\)$/);
  refused('(A,B);', ['', '']);
});
