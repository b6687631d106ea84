// A plot's phylogenetic tree: a Newick file whose leaves are matched to the labels of the
// plot's points (frame 0), kept as one plot blob `<plot>/tree` (JSON of PlotTree), which goes
// with the plot. Leaves no point has are left out with their branches, and the answer lists
// them: a tree is often built on more sequences than were plotted.
import { readFile } from 'node:fs/promises';
import { treeChildren, type PlotTree, type PlotTreeInfo, type TreeRoot } from '@wpv/schema';
import { notFound } from '../http/errors.ts';
import type { UploadedPart } from '../http/upload.ts';
import { parseNewick, type NewickTree } from '../formats/newick.ts';
import { quoted } from '../formats/reader.ts';
import { InputError } from '../formats/types.ts';
import type { BlobStore } from '../storage/blobs.ts';
import type { PlotDoc } from '../storage/documents.ts';
import { midpointRoot } from './midpoint-root.ts';
import type { Plots } from './plots.ts';

/** A Newick file of 100,000 leaves is a few MB; the parser holds the file in memory. */
export const MAX_TREE_BYTES = 64 * 1024 * 1024;
/** Unmatched leaf names an answer lists. */
const LISTED = 20;

const blobName = (plotId: string) => `${plotId}/tree`;
const refuse = (code: string, message: string, status = 422) => new InputError(code, `file: ${message}`, { field: 'file', status });
const list = (names: readonly string[], max = 5) => names.slice(0, max).map((n) => quoted(n)).join(', ') + (names.length > max ? ` and ${names.length - max} more` : '');

export class Trees {
  constructor(
    private readonly plots: Plots,
    private readonly blobs: BlobStore,
  ) {}

  /** The plot's tree, or null when it has none (an ordinary answer: the viewer asks for every plot). */
  async get(doc: PlotDoc): Promise<PlotTree | null> {
    const info = await this.blobs.find(blobName(doc._id));
    if (!info) return null;
    return JSON.parse((await this.blobs.readAll(info)).toString('utf8'));
  }

  /** Parses, matches and stores the tree (replacing one the plot has); `created`: it had none. */
  async put(doc: PlotDoc, file: UploadedPart, root: TreeRoot): Promise<{ tree: PlotTreeInfo; created: boolean }> {
    const text = decode(await readFile(file.path));
    const parsed = parseNewick(text);
    const labels = await this.plots.labels(doc, 0);
    const matched = matchLeaves(parsed, labels, file.originalName);
    // Rooted after pruning: the midpoint of the leaves on the plot.
    const tree = root === 'midpoint' ? { ...matched, root, nodes: midpointRoot(matched.nodes) } : matched;
    return this.plots.oneEditAtATime(doc._id, async () => {
      const created = !(await this.blobs.find(blobName(doc._id)));
      await this.blobs.putBuffer(doc._id, blobName(doc._id), Buffer.from(JSON.stringify(tree)), 'application/json');
      const { nodes: _, ...info } = tree;
      return { tree: info, created };
    });
  }

  delete(doc: PlotDoc): Promise<void> {
    return this.plots.oneEditAtATime(doc._id, async () => {
      if (!(await this.blobs.delete(blobName(doc._id)))) throw notFound('tree');
    });
  }
}

function decode(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refuse('not_utf8', 'the tree is not UTF-8 text', 400);
  }
}

/**
 * The tree restricted to the leaves whose name is a point's label in frame 0. Refused (422):
 * leaf names that repeat, a label that several points share, and a tree none of whose leaves
 * names a point.
 */
export function matchLeaves(tree: NewickTree, labels: readonly string[], originalName: string): PlotTree {
  const children = treeChildren(tree.parent);
  const leaves = tree.parent.flatMap((_, i) => (children[i]!.length === 0 ? [i] : []));
  const seen = new Set<string>(), repeated = new Set<string>();
  for (const i of leaves) (seen.has(tree.name[i]!) ? repeated : seen).add(tree.name[i]!);
  if (repeated.size) throw refuse('duplicate_leaf', `leaf names must be unique; repeated: ${list([...repeated])}`);

  const pointOf = new Map<string, number>(), shared = new Set<string>();
  labels.forEach((label, i) => {
    if (!seen.has(label)) return;
    if (pointOf.has(label)) shared.add(label);
    else pointOf.set(label, i);
  });
  if (shared.size) throw refuse('ambiguous_leaf', `leaves name labels that several points have: ${list([...shared])}`);
  const unmatched = leaves.map((i) => tree.name[i]!).filter((name) => !pointOf.has(name));
  if (unmatched.length === leaves.length) {
    const examples = labels.filter((l) => l !== '').slice(0, 3);
    throw refuse('no_matching_leaves', `no leaf name is a point label (leaves: ${list(unmatched, 3)}; ` +
      (examples.length ? `points: ${list(examples, 3)}` : 'the plot\'s points have no labels') + ')');
  }
  return {
    originalName, root: 'file', uploadedAt: new Date().toISOString(),
    leaves: leaves.length, matched: leaves.length - unmatched.length, unmatched: unmatched.slice(0, LISTED),
    nodes: prune(tree, children, (i) => pointOf.get(tree.name[i]!) ?? -1),
  };
}

/**
 * The tree without the leaves that have no point, in preorder again: a node left with one child
 * is merged into it (their branch lengths added), so every internal node still splits.
 */
function prune(tree: NewickTree, children: number[][], pointOf: (leaf: number) => number): PlotTree['nodes'] {
  const n = tree.parent.length;
  const kept = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    if (children[i]!.length === 0) kept[i] = pointOf(i) >= 0 ? 1 : 0;
    if (i > 0) kept[tree.parent[i]!]! += kept[i]!;
  }
  const keptChildren = (i: number) => children[i]!.filter((c) => kept[c]! > 0);
  /** From node i down its chain of one-child nodes: the node that ends it and the chain's length. */
  const descend = (i: number): [number, number | null] => {
    let total: number | null = tree.length[i]!;
    for (let next = keptChildren(i); next.length === 1; next = keptChildren(i)) {
      i = next[0]!;
      total = total === null || tree.length[i] === null ? null : total + tree.length[i]!;
    }
    return [i, total];
  };
  const out: PlotTree['nodes'] = { parent: [], length: [], name: [], point: [] };
  const stack: [node: number, parent: number][] = [[0, -1]];
  while (stack.length) {
    const [from, up] = stack.pop()!;
    const [i, total] = descend(from);
    const index = out.parent.length;
    out.parent.push(up);
    out.length.push(up < 0 ? null : total); // the root's own branch leads nowhere
    out.name.push(tree.name[i]!);
    const next = keptChildren(i);
    out.point.push(next.length === 0 ? pointOf(i) : -1);
    for (let c = next.length - 1; c >= 0; c--) stack.push([next[c]!, index]);
  }
  return out;
}
