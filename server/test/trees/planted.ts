// Planted truth for tree tests: points in well-separated groups and a Newick tree whose clades
// are exactly those groups, with a random binary topology among and within the groups.
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
