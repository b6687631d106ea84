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
