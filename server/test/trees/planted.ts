// Planted truth for tree tests: points in well-separated groups and a Newick tree whose clades
// are exactly those groups, with a random binary topology among and within the groups; and a
// peer's tree (Debian's FastTree) of a planted alignment.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// Branches among the groups are short (0.01) and the branch into each group long (10), longer
// than a group's leaf-to-leaf paths, so the groups' G − 1 splits are both the tree's root-most
// and the ones between its widest clades: the cut at k = G must give the groups back.

/** A small seeded generator (mulberry32): the same tree on every run. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A subtree and the length of the branch above it. */
interface Part { text: string; length: string }

/** A random binary tree joining `parts`; its new inner branches are `length()` long. */
function join(parts: Part[], length: () => string, rand: () => number): Part {
  const pool = [...parts];
  while (pool.length > 1) {
    const a = pool.splice(Math.floor(rand() * pool.length), 1)[0]!;
    const b = pool.splice(Math.floor(rand() * pool.length), 1)[0]!;
    pool.push({ text: `(${a.text}:${a.length},${b.text}:${b.length})`, length: length() });
  }
  return pool[0]!;
}

export interface Planted {
  /** leaf names per group */
  groups: string[][];
  newick: string;
  /** a text plot (idx x y z cluster label), each group around its own centre 100 apart */
  points: string;
}

export function plantedTree(sizes: number[], seed = 1): Planted {
  const rand = random(seed);
  const groups = sizes.map((size, g) => Array.from({ length: size }, (_, i) => `g${g}_s${i}`));
  const within = () => (0.1 + rand()).toFixed(3);
  const groupRoots = groups.map((names) => ({ ...join(names.map((text) => ({ text, length: within() })), within, rand), length: '10' }));
  const newick = join(groupRoots, () => '0.01', rand).text + ';';
  let points = '', idx = 0;
  groups.forEach((names, g) => {
    for (const name of names) points += `${idx++} ${g * 100 + rand()} ${rand()} ${rand()} 0 ${name}\n`;
  });
  return { groups, newick, points };
}

/**
 * FastTree's Newick tree (unrooted) of a planted alignment: 600 nt groups 25 % from a common
 * ancestor, their reads 2 % from the group's; `groups` holds the reads' names per group.
 */
export function fastTreeOfPlantedGroups(sizes: number[], seed: number): { groups: string[][]; newick: string } {
  const rand = random(seed);
  const base = (avoid?: string) => { for (;;) { const b = 'ACGT'[Math.floor(rand() * 4)]!; if (b !== avoid) return b; } };
  const mutate = (seq: string, rate: number) => [...seq].map((c) => (rand() < rate ? base(c) : c)).join('');
  const ancestor = Array.from({ length: 600 }, () => base()).join('');
  const groups = sizes.map((size, g) => {
    const groupAncestor = mutate(ancestor, 0.25);
    return Array.from({ length: size }, (_, i) => ({ name: `g${g}_s${i}`, seq: mutate(groupAncestor, 0.02) }));
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'wpv-fasttree-'));
  try {
    const alignment = path.join(dir, 'planted.fa');
    writeFileSync(alignment, groups.flat().map((r) => `>${r.name}\n${r.seq}\n`).join(''));
    const newick = execFileSync('FastTree', ['-nt', '-quiet', '-nopr', alignment], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { groups: groups.map((g) => g.map((r) => r.name)), newick };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
