// stock-timeseries: a CSV of daily prices → prepare (worker: the CSV as mdsseries's
// binary matrices) → series (mdsseries: one aligned DA-MDS frame per sliding window)
// → a time-series plot, one frame per window, points labelled by symbol and
// clustered by sector or by the window's price change.
// The CSV is long (date,symbol,price[,volume,sector], one row per symbol and day) or
// wide (date, then one column per symbol). Both passes stream it through the shared
// CSV reader: memory holds the symbols and dates, never the rows.
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JOB_TYPES, categoricalColor } from '@wpv/schema';
import type { JobDoc } from '@wpv/jobs/model';
import { fileChunks } from '../formats/chunks.ts';
import { forEachCsvRow } from '../formats/csv-rows.ts';
import { inputError, quoted } from '../formats/reader.ts';
import type { ClusterDef, ParsedFrame, ParsedPlot } from '../formats/types.ts';
import { InputError } from '../formats/types.ts';
import { launch } from './commands.ts';
import { lines } from './inputs.ts';
import type { JobTypeModule } from './module.ts';

/** Files of the job directory: the prepare stage's outputs and the program's frames. */
const OUT = {
  prices: 'prices.bin',
  volumes: 'volumes.bin',
  dates: 'dates.txt',
  symbols: 'symbols.txt',
  sectors: 'sectors.json',
  frames: 'frames.txt',
} as const;

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Relative price change bins of mdsseries (its <bin> column), for clusterBy=change. */
const CHANGE_BINS = ['< −40 %', '−40 to −20 %', '−20 to −10 %', '−10 to −5 %', '−5 to 0 %', '0 to 5 %', '5 to 10 %', '10 to 20 %', '20 to 40 %', '≥ 40 %'];
/** SPIDAL's artificial reference series: daily growth rates. */
const REFERENCES: [string, number][] = [
  ['REF:flat', 0],
  ['REF:+0.1%/day', 0.001],
  ['REF:+0.2%/day', 0.002],
  ['REF:-0.1%/day', -0.001],
  ['REF:-0.2%/day', -0.002],
];
const REFERENCE_SECTOR = 'reference series';

/** Day number of an ISO date, or null when it is not a real YYYY-MM-DD date. */
function dayOf(text: string): number | null {
  if (!ISO_DATE.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return null;
  return ms / DAY_MS;
}

type Layout =
  | { kind: 'long'; date: number; symbol: number; price: number; volume: number | null; sector: number | null }
  | { kind: 'wide'; symbols: string[] };

/** One observation of the CSV: a symbol's price (and volume, sector) on a day. */
interface Observation {
  day: number;
  symbol: string;
  price: number;
  volume: number | null;
  sector: string | null;
}

const bad = (code: string, message: string, line?: number) => inputError({}, code, message, line, 422);

function layoutOf(header: string[]): Layout {
  const names = header.map((h) => h.trim().toLowerCase());
  const col = (name: string) => (names.indexOf(name) < 0 ? null : names.indexOf(name));
  if (col('symbol') !== null || col('price') !== null) {
    const missing = ['date', 'symbol', 'price'].filter((n) => col(n) === null);
    if (missing.length) throw bad('missing_column', `the header has no ${missing.map((m) => `"${m}"`).join(', ')} column (long layout: date,symbol,price[,volume,sector])`, 1);
    return { kind: 'long', date: col('date')!, symbol: col('symbol')!, price: col('price')!, volume: col('volume'), sector: col('sector') };
  }
  if (names[0] !== 'date') {
    throw bad('missing_column', 'the header needs "date", "symbol" and "price" columns, or "date" first and one column per symbol', 1);
  }
  const symbols = header.slice(1).map((s) => s.trim());
  const empty = symbols.findIndex((s) => s === '');
  if (empty >= 0) throw bad('missing_column', `column ${empty + 2} of the header has no symbol name`, 1);
  return { kind: 'wide', symbols };
}

function positive(cell: string, what: string, line: number): number {
  const value = Number(cell.trim());
  if (cell.trim() === '' || !Number.isFinite(value) || value <= 0) throw bad('bad_price', `${what} ${quoted(cell)} is not a positive number`, line);
  return value;
}

/** Streams the CSV's observations (checked: dates, prices, volumes), after its header. */
async function readObservations(file: string, onObservation: (o: Observation, line: number) => void): Promise<Layout> {
  let layout: Layout | null = null;
  await forEachCsvRow(fileChunks(file), (cells, line) => {
    if (!layout) {
      layout = layoutOf(cells);
      return;
    }
    const l: Layout = layout;
    const dateCell = cells[l.kind === 'long' ? l.date : 0] ?? '';
    const day = dayOf(dateCell.trim());
    if (day === null) throw bad('bad_date', `date ${quoted(dateCell)} is not a YYYY-MM-DD date`, line);
    if (l.kind === 'long') {
      const symbol = (cells[l.symbol] ?? '').trim();
      if (!symbol) throw bad('missing_symbol', 'the symbol is empty', line);
      if (/\s/.test(symbol)) throw bad('bad_symbol', `symbol ${quoted(symbol)} contains white space`, line);
      const price = positive(cells[l.price] ?? '', 'price', line);
      const volumeCell = l.volume === null ? '' : (cells[l.volume] ?? '').trim();
      const volume = volumeCell === '' ? null : Number(volumeCell);
      if (volume !== null && !(Number.isFinite(volume) && volume >= 0)) throw bad('bad_volume', `volume ${quoted(volumeCell)} is not a number ≥ 0`, line);
      onObservation({ day, symbol, price, volume, sector: l.sector === null ? null : (cells[l.sector] ?? '').trim() || null }, line);
    } else {
      if (cells.length !== l.symbols.length + 1) throw bad('ragged_row', `${cells.length} cells, the header has ${l.symbols.length + 1}`, line);
      l.symbols.forEach((symbol, i) => {
        const cell = cells[i + 1]!;
        if (cell.trim() === '') return; // no price that day
        onObservation({ day, symbol, price: positive(cell, `price of ${symbol}`, line), volume: null, sector: null }, line);
      });
    }
  });
  if (!layout) throw bad('empty', 'no header line');
  return layout;
}

interface MarketSummary {
  layout: Layout;
  symbols: Map<string, string | null>; // symbol → sector
  days: Set<number>;
  hasVolume: boolean;
}

async function summarise(file: string): Promise<MarketSummary> {
  const symbols = new Map<string, string | null>();
  const days = new Set<number>();
  let hasVolume = false;
  const layout = await readObservations(file, (o) => {
    if (!symbols.has(o.symbol) || (o.sector && !symbols.get(o.symbol))) symbols.set(o.symbol, o.sector);
    days.add(o.day);
    if (o.volume !== null) hasVolume = true;
  });
  if (layout.kind === 'wide') for (const s of layout.symbols) if (!symbols.has(s)) symbols.set(s, null);
  return { layout, symbols, days, hasVolume };
}

const isoOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The prepare stage: the CSV as mdsseries's inputs (WPVTSMAT float32 matrices, dates, symbols) and the sectors. */
async function prepare(job: JobDoc): Promise<Record<string, never>> {
  const p = job.params as { referenceStocks: boolean; weights: string };
  const file = path.join(job.workdir, job.input.file);
  const market = await summarise(file);
  const days = [...market.days].sort((a, b) => a - b);
  const dayIndex = new Map(days.map((d, i) => [d, i]));
  const names = [...market.symbols.keys()].sort();
  const references = p.referenceStocks ? REFERENCES.map(([name]) => name) : [];
  const all = [...names, ...references];
  const symbolIndex = new Map(names.map((s, i) => [s, i]));
  const D = days.length;
  const prices = new Float32Array(all.length * D).fill(NaN);
  const withVolumes = p.weights === 'tradedValue';
  const volumes = withVolumes ? new Float32Array(all.length * D).fill(NaN) : null;
  await readObservations(file, (o) => {
    const at = symbolIndex.get(o.symbol)! * D + dayIndex.get(o.day)!;
    prices[at] = o.price;
    if (volumes && o.volume !== null) volumes[at] = o.volume;
  });
  REFERENCES.slice(0, references.length).forEach(([, rate], r) => {
    const row = (names.length + r) * D;
    for (let t = 0; t < D; t++) {
      prices[row + t] = (1 + rate) ** t;
      if (volumes) volumes[row + t] = 1;
    }
  });
  await writeMatrix(path.join(job.workdir, OUT.prices), prices, all.length, D);
  if (volumes) await writeMatrix(path.join(job.workdir, OUT.volumes), volumes, all.length, D);
  await writeFile(path.join(job.workdir, OUT.dates), days.map(isoOf).join('\n') + '\n');
  await writeFile(path.join(job.workdir, OUT.symbols), all.join('\n') + '\n');
  const sectors = Object.fromEntries([...names.map((s) => [s, market.symbols.get(s) ?? null]), ...references.map((s) => [s, REFERENCE_SECTOR])]);
  await writeFile(path.join(job.workdir, OUT.sectors), JSON.stringify(sectors));
  return {};
}

/** mdsseries's matrix file: "WPVTSMAT", uint32 version 1, uint32 bytes per value, uint64 symbols, uint64 days; then the values, symbol after symbol. */
async function writeMatrix(file: string, values: Float32Array, symbols: number, days: number): Promise<void> {
  const header = Buffer.alloc(32);
  header.write('WPVTSMAT', 0, 'latin1');
  header.writeUInt32LE(1, 8);
  header.writeUInt32LE(4, 12);
  header.writeBigUInt64LE(BigInt(symbols), 16);
  header.writeBigUInt64LE(BigInt(days), 24);
  const handle = await open(`${file}.tmp`, 'w');
  try {
    await handle.write(header);
    await handle.write(Buffer.from(values.buffer, values.byteOffset, values.byteLength));
  } finally {
    await handle.close();
  }
  await rename(`${file}.tmp`, file);
}

/** The frames file of mdsseries (kernels/README.md, "Output") as a time-series plot. */
async function toPlot(job: JobDoc): Promise<ParsedPlot> {
  const p = job.params as { clusterBy: 'sector' | 'change' };
  const sectors = JSON.parse(await readFile(path.join(job.workdir, OUT.sectors), 'utf8')) as Record<string, string | null>;
  const hasSectors = Object.entries(sectors).some(([, sector]) => sector !== null && sector !== REFERENCE_SECTOR);
  const names: string[] = [];
  const frames: ParsedFrame[] = [];
  let current: { title: string; rows: [number, number, number, number, number][] } | null = null;
  const close = () => {
    if (!current) return;
    const n = current.rows.length;
    const positions = new Float32Array(n * 3);
    const clusterKeys = new Uint32Array(n);
    const labels: string[] = [];
    const sectorColumn: string[] = [];
    current.rows.forEach(([index, x, y, z, bin], i) => {
      positions.set([x, y, z], i * 3);
      const name = names[index] ?? String(index);
      labels.push(name);
      sectorColumn.push(sectors[name] ?? '');
      clusterKeys[i] = p.clusterBy === 'change' ? bin : sectorKey(sectors[name] ?? null);
    });
    // The sector stays a column when the clusters are the price change bins (and beside the sector clusters, for search and hover).
    const columns = hasSectors ? new Map([['sector', sectorColumn]]) : undefined;
    frames.push({ title: current.title, positions, clusterKeys, labels, edges: [], ...(columns && { columns }) });
    current = null;
  };
  const sectorKeys = new Map<string, number>();
  const sectorKey = (sector: string | null) => {
    const name = sector ?? 'no sector';
    if (!sectorKeys.has(name)) sectorKeys.set(name, sectorKeys.size);
    return sectorKeys.get(name)!;
  };
  // Keys in sorted sector order, so colours do not depend on which symbol comes first.
  for (const s of [...new Set(Object.values(sectors).map((v) => v ?? 'no sector'))].sort()) sectorKey(s === 'no sector' ? null : s);
  for await (const [raw, line] of lines(path.join(job.workdir, OUT.frames))) {
    const cells = raw.trim().split(/\s+/);
    if (cells[0] === '' || cells[0]!.startsWith('#') || cells[0] === 'symbols') continue;
    if (cells[0] === 'symbol') names[Number(cells[1])] = cells[2]!;
    else if (cells[0] === 'frame') {
      close();
      current = { title: cells[5]!, rows: [] };
    } else {
      const row = cells.slice(0, 5).map(Number) as [number, number, number, number, number];
      if (!current || cells.length < 5 || row.some((v) => !Number.isFinite(v))) throw new Error(`${OUT.frames} line ${line}: expected "index x y z bin"`);
      current.rows.push(row);
    }
  }
  close();
  if (!frames.length) throw new Error(`${OUT.frames} has no frame`);
  const clusters: ClusterDef[] = p.clusterBy === 'change'
    ? CHANGE_BINS.map((label, key) => ({ key, label: `change ${label}`, color: categoricalColor(key), shape: 3, size: 1, visible: true }))
    : [...sectorKeys].map(([label, key]) => ({ key, label, color: categoricalColor(key), shape: label === REFERENCE_SECTOR ? 2 : 3, size: label === REFERENCE_SECTOR ? 3 : 1, visible: true }));
  return { title: job.name, clusters, frames, warnings: [] };
}

export const stockTimeseries: JobTypeModule = {
  contract: JOB_TYPES['stock-timeseries'],
  inputName: 'input.csv',
  async checkInput({ file, params, config }) {
    const market = await summarise(file);
    const symbols = market.symbols.size;
    if (symbols < 3) throw bad('too_few_symbols', `${symbols} symbol${symbols === 1 ? '' : 's'}; at least 3 are needed`);
    if (symbols > config.maxPoints) {
      throw new InputError('too_many_symbols', `${symbols} symbols; a job has at most ${config.maxPoints} (JOB_MAX_POINTS)`, { field: 'file', status: 413 });
    }
    const days = [...market.days];
    const first = Math.min(...days);
    const last = Math.max(...days);
    if (params.windowDays > last - first + 1) {
      throw new InputError('window_too_long',
        `params.windowDays: a window of ${params.windowDays} days is longer than the data (${last - first + 1} days, ${isoOf(first)} to ${isoOf(last)})`,
        { field: 'params.windowDays', status: 422 });
    }
    params.weights ??= market.hasVolume ? 'tradedValue' : 'none';
    if (params.weights === 'tradedValue' && !market.hasVolume) {
      throw new InputError('no_volume', 'params.weights: "tradedValue" needs a volume column', { field: 'params.weights', status: 422 });
    }
    const hasSector = [...market.symbols.values()].some((s) => s !== null);
    params.clusterBy ??= hasSector ? 'sector' : 'change';
    return symbols + (params.referenceStocks ? REFERENCES.length : 0);
  },
  workerStages: { prepare },
  command(job, stage, config) {
    if (stage !== 'series') throw new Error(`stage ${stage} of a stock-timeseries job is not an MPI program`);
    const p = job.params as Record<string, any>;
    const { bin, layout, at } = launch(job, config, 'mdsseries');
    return {
      ...layout,
      argv: [
        bin,
        '--prices', at(OUT.prices),
        ...(p.weights === 'tradedValue' ? ['--volumes', at(OUT.volumes)] : []),
        '--dates', at(OUT.dates),
        '--symbols', at(OUT.symbols),
        '--output', at(OUT.frames),
        '--window-days', String(p.windowDays),
        '--step-days', String(p.stepDays),
        '--max-missing', String(p.maxMissing),
        '--distance', String(p.distance),
        '--weights', String(p.weights),
        // The reference series are the last symbols (prepare); the flat one must survive the constant-price rule.
        ...(p.referenceStocks ? ['--references', String(REFERENCES.length)] : []),
      ],
      outputs: [OUT.frames],
    };
  },
  toPlot,
};
