// Generated demo inputs, in the same file formats users upload.
/** A seeded PRNG (mulberry32), so demo plots look the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** `index x y z cluster` lines: DA-MDS output with DA-PWC labels. */
export function clusteredBlobsText(points: number, clusters: number, seed = 7): string {
  const random = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () => [0, 1, 2].map(() => (random() - 0.5) * 20));
  const lines: string[] = ['# index x y z cluster'];
  for (let i = 0; i < points; i++) {
    const k = i % clusters;
    const [x, y, z] = centres[k]!.map((c) => (c + gaussian(random)).toFixed(4));
    lines.push(`${i} ${x} ${y} ${z} ${k}`);
  }
  return lines.join('\n') + '\n';
}

const SECTORS = ['energy', 'technology', 'finance', 'health', 'utilities', 'consumer', 'industrials', 'materials'];

/**
 * Daily prices of a generated market, long layout `date,symbol,price,volume,sector`: each
 * stock follows the market, its sector's factor (the structure the plot should show) and
 * noise of its own; volumes vary by stock so traded-value weights matter. Weekdays only.
 */
export function stockMarketCsv(stocks: number, tradingDays: number, seed = 11): string {
  return [...stockMarketLines(stocks, tradingDays, seed)].join('\n') + '\n';
}

/** The lines of `stockMarketCsv` (header first) one at a time, for markets too big for one string. */
export function* stockMarketLines(stocks: number, tradingDays: number, seed = 11): Generator<string> {
  const random = seededRandom(seed);
  const day = new Date(Date.UTC(2021, 0, 4));
  const dates: string[] = [];
  while (dates.length < tradingDays) {
    if (day.getUTCDay() % 6 !== 0) dates.push(day.toISOString().slice(0, 10));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  const market = dates.map(() => gaussian(random));
  const sectorMoves = SECTORS.map(() => dates.map(() => gaussian(random)));
  yield 'date,symbol,price,volume,sector';
  for (let s = 0; s < stocks; s++) {
    const sector = s % SECTORS.length;
    const symbol = `${SECTORS[sector]!.slice(0, 3).toUpperCase()}${String(Math.floor(s / SECTORS.length)).padStart(3, '0')}`;
    const beta = 0.5 + random(), loading = 0.8 + 0.8 * random();
    const volume = Math.round(1e4 * Math.exp(3 * random()));
    let price = 10 + 190 * random();
    for (let t = 0; t < dates.length; t++) {
      price *= Math.exp(0.006 * beta * market[t]! + 0.012 * loading * sectorMoves[sector]![t]! + 0.008 * gaussian(random));
      yield `${dates[t]},${symbol},${price.toFixed(3)},${volume},${SECTORS[sector]}`;
    }
  }
}

/**
 * A Newick tree, topology only (no branch lengths), from polylines that draw an unrooted tree over
 * a plot's points, as SPIDAL's tree sample does: consecutive vertices are joined; points joined to
 * one other are the leaves, named by their labels; rooted at the first polyline's second vertex.
 * Throws when the polylines are not one tree or a leaf has no label.
 */
export function newickFromPolylines(polylines: readonly { vertices: readonly number[] }[], labels: readonly string[]): string {
  const joined = new Map<number, Set<number>>();
  const join = (a: number, b: number) => (joined.get(a) ?? joined.set(a, new Set()).get(a)!).add(b);
  for (const { vertices } of polylines) {
    for (let i = 1; i < vertices.length; i++) {
      if (vertices[i] === vertices[i - 1]) continue;
      join(vertices[i - 1]!, vertices[i]!);
      join(vertices[i]!, vertices[i - 1]!);
    }
  }
  const root = polylines[0]?.vertices[1];
  if (root === undefined) throw new Error('no polyline of two vertices or more');
  // Post-order without recursion (a tree may be thousands of nodes deep): each node's text once its children have theirs.
  const text = new Map<number, string>();
  const stack: [node: number, parent: number][] = [[root, -1]];
  const seen = new Set<number>([root]);
  const order: [number, number][] = [];
  while (stack.length) {
    const [node, parent] = stack.pop()!;
    order.push([node, parent]);
    for (const next of joined.get(node)!) {
      if (next === parent) continue;
      if (seen.has(next)) throw new Error(`the polylines have a cycle through point ${next}`);
      seen.add(next);
      stack.push([next, node]);
    }
  }
  if (seen.size !== joined.size) throw new Error(`the polylines are ${joined.size - seen.size} points short of one tree`);
  for (let i = order.length - 1; i >= 0; i--) {
    const [node, parent] = order[i]!;
    const children = [...joined.get(node)!].filter((n) => n !== parent);
    if (children.length === 0) {
      const label = labels[node];
      if (!label) throw new Error(`leaf point ${node} has no label`);
      text.set(node, /^[\w.|-]+$/.test(label) ? label : `'${label.replaceAll("'", "''")}'`);
    } else {
      text.set(node, `(${children.map((c) => text.get(c)!).join(',')})`);
    }
  }
  return `${text.get(root)!};`;
}
