// stock-timeseries: a CSV of daily prices → prepare (worker: the checked observations
// as mdsseries's binary matrices) → series (mdsseries: one aligned DA-MDS frame per
// sliding window) → a time-series plot, one frame per window, points labelled by
// symbol and clustered by sector or by the window's price change.
// The CSV is long (date,symbol,price[,volume,sector], one row per symbol and day) or
// wide (date, then one column per symbol). It is read once, by the input check, which
// streams it through the shared CSV reader and writes each observation as a fixed-size
// binary record into the job directory: memory holds the symbols and dates, never the
// rows, and prepare only places the records (the read was 4/5 of the time outside mdsseries).
import { closeSync, openSync, writeSync } from 'node:fs';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JOB_TYPES, categoricalColor } from '@wpv/schema';
import type { JobDoc } from '@wpv/jobs/model';
import { fileChunks, forEachByteLine, utf8 } from '../formats/chunks.ts';
import { forEachCsvRow } from '../formats/csv-rows.ts';
import { parseFloat32, parseIndex } from '../formats/numbers.ts';
import { inputError, quoted } from '../formats/reader.ts';
import type { ClusterDef, ParsedFrame, ParsedPlot } from '../formats/types.ts';
import { fileError, InputError } from '../formats/types.ts';
import { launch } from './commands.ts';
import type { JobTypeModule } from './module.ts';

/** Files of the job directory: the input check's, the prepare stage's outputs and the program's frames. */
const OUT = {
  observations: 'observations.bin',
  market: 'market.json',
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
function dayNumber(text: string): number | null {
  if (!ISO_DATE.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return null;
  return ms / DAY_MS;
}

type Layout =
  | { kind: 'long'; date: number; symbol: number; price: number; volume: number | null; sector: number | null }
  | { kind: 'wide'; symbols: string[] };

/** What the check read besides the observations: symbols and days by their index in the records. */
interface Market {
  symbols: string[];
  /** A symbol's first non-empty sector. */
  sectors: (string | null)[];
  /** Day numbers (days since 1970-01-01). */
  days: number[];
  hasVolume: boolean;
}

/** observations.bin: one record per price, uint32 symbol, uint32 day (indices of Market), float32 price, float32 volume (NaN: none), little-endian. */
const RECORD_BYTES = 16;
const RECORDS_PER_BLOCK = 65_536;

/** Writes the records in blocks, synchronously: the CSV reader's callback cannot wait. */
class RecordWriter {
  private readonly block = new ArrayBuffer(RECORD_BYTES * RECORDS_PER_BLOCK);
  private readonly ids = new Uint32Array(this.block);
  private readonly values = new Float32Array(this.block);
  private count = 0;
  private readonly fd: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  add(symbol: number, day: number, price: number, volume: number): void {
    const at = 4 * this.count;
    this.ids[at] = symbol;
    this.ids[at + 1] = day;
    this.values[at + 2] = price;
    this.values[at + 3] = volume;
    if (++this.count === RECORDS_PER_BLOCK) this.flush();
  }

  private flush(): void {
    writeSync(this.fd, new Uint8Array(this.block, 0, this.count * RECORD_BYTES));
    this.count = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
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
  // Number() ignores surrounding white space and reads "" and " " as 0.
  const value = Number(cell);
  if (!(value > 0 && value < Infinity)) throw bad('bad_price', `${what} ${quoted(cell)} is not a positive number`, line);
  return value;
}

/**
 * Reads and checks the CSV (dates, symbols, prices, volumes) in one pass, writing its
 * observations to `records`. Cells are looked up as written: each distinct date and
 * symbol is checked and trimmed once (a market has thousands, its rows millions).
 */
async function readMarket(file: string, records: RecordWriter): Promise<Market> {
  const market: Market = { symbols: [], sectors: [], days: [], hasVolume: false };
  const symbolOf = new Map<string, number>(); // cell as written → index
  const symbolByName = new Map<string, number>(); // trimmed name → index
  const dayOf = new Map<string, number>();
  const dayByNumber = new Map<number, number>();
  const addSymbol = (name: string) => {
    let index = symbolByName.get(name);
    if (index === undefined) {
      index = market.symbols.push(name) - 1;
      market.sectors.push(null);
      symbolByName.set(name, index);
    }
    return index;
  };
  const newDay = (cell: string, line: number) => {
    const day = dayNumber(cell.trim());
    if (day === null) throw bad('bad_date', `date ${quoted(cell)} is not a YYYY-MM-DD date`, line);
    let index = dayByNumber.get(day);
    if (index === undefined) dayByNumber.set(day, (index = market.days.push(day) - 1));
    dayOf.set(cell, index);
    return index;
  };
  const newSymbol = (cell: string, line: number) => {
    const symbol = cell.trim();
    if (!symbol) throw bad('missing_symbol', 'the symbol is empty', line);
    if (/\s/.test(symbol)) throw bad('bad_symbol', `symbol ${quoted(symbol)} contains white space`, line);
    const index = addSymbol(symbol);
    symbolOf.set(cell, index);
    return index;
  };
  let layout: Layout | null = null;
  let wide: number[] = []; // the wide layout's columns' symbols
  await forEachCsvRow(fileChunks(file), (cells, line) => {
    if (!layout) {
      layout = layoutOf(cells);
      if (layout.kind === 'wide') wide = layout.symbols.map(addSymbol);
      return;
    }
    const l: Layout = layout;
    const dateCell = cells[l.kind === 'long' ? l.date : 0] ?? '';
    const day = dayOf.get(dateCell) ?? newDay(dateCell, line);
    if (l.kind === 'long') {
      const symbolCell = cells[l.symbol] ?? '';
      const symbol = symbolOf.get(symbolCell) ?? newSymbol(symbolCell, line);
      const price = positive(cells[l.price] ?? '', 'price', line);
      const volumeCell = l.volume === null ? '' : (cells[l.volume] ?? '');
      let volume = NaN; // none
      if (volumeCell !== '') {
        volume = Number(volumeCell);
        if (volume === 0 && volumeCell.trim() === '') volume = NaN;
        else if (!(volume >= 0 && volume < Infinity)) throw bad('bad_volume', `volume ${quoted(volumeCell.trim())} is not a number ≥ 0`, line);
        else market.hasVolume = true;
      }
      if (l.sector !== null && market.sectors[symbol] === null) market.sectors[symbol] = (cells[l.sector] ?? '').trim() || null;
      records.add(symbol, day, price, volume);
    } else {
      if (cells.length !== l.symbols.length + 1) throw bad('ragged_row', `${cells.length} cells, the header has ${l.symbols.length + 1}`, line);
      for (let i = 1; i < cells.length; i++) {
        const cell = cells[i]!;
        if (cell.trim() === '') continue; // no price that day
        records.add(wide[i - 1]!, day, positive(cell, `price of ${l.symbols[i - 1]}`, line), NaN);
      }
    }
  });
  if (!layout) throw bad('empty', 'no header line');
  return market;
}

const isoOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The prepare stage: the check's observations as mdsseries's inputs (WPVTSMAT float32 matrices, dates, symbols) and the sectors. */
async function prepare(job: JobDoc): Promise<Record<string, never>> {
  const p = job.params as { referenceStocks: boolean; weights: string };
  const market = JSON.parse(await readFile(path.join(job.workdir, OUT.market), 'utf8')) as Market;
  // Rows in symbol order, columns in date order: each record's place by its indices.
  const symbolOrder = market.symbols.map((_, i) => i).sort((a, b) => (market.symbols[a]! < market.symbols[b]! ? -1 : 1));
  const dayOrder = market.days.map((_, i) => i).sort((a, b) => market.days[a]! - market.days[b]!);
  const row = new Uint32Array(symbolOrder.length);
  symbolOrder.forEach((s, r) => (row[s] = r));
  const column = new Uint32Array(dayOrder.length);
  dayOrder.forEach((d, c) => (column[d] = c));
  const names = symbolOrder.map((s) => market.symbols[s]!);
  const references = p.referenceStocks ? REFERENCES.map(([name]) => name) : [];
  const all = [...names, ...references];
  const D = dayOrder.length;
  const prices = new Float32Array(all.length * D).fill(NaN);
  const withVolumes = p.weights === 'tradedValue';
  const volumes = withVolumes ? new Float32Array(all.length * D).fill(NaN) : null;
  const block = Buffer.alloc(RECORD_BYTES * RECORDS_PER_BLOCK);
  const ids = new Uint32Array(block.buffer, block.byteOffset, block.length / 4);
  const values = new Float32Array(block.buffer, block.byteOffset, block.length / 4);
  const records = await open(path.join(job.workdir, OUT.observations), 'r');
  try {
    for (;;) {
      const { bytesRead } = await records.read(block, 0, block.length);
      if (bytesRead === 0) break;
      // In file order, so that a later row of the same symbol and day wins, as it would in a spreadsheet.
      for (let at = 0; at < bytesRead / 4; at += 4) {
        const cell = row[ids[at]!]! * D + column[ids[at + 1]!]!;
        prices[cell] = values[at + 2]!;
        if (volumes) volumes[cell] = values[at + 3]!;
      }
    }
  } finally {
    await records.close();
  }
  REFERENCES.slice(0, references.length).forEach(([, rate], r) => {
    const at = (names.length + r) * D;
    for (let t = 0; t < D; t++) {
      prices[at + t] = (1 + rate) ** t;
      if (volumes) volumes[at + t] = 1;
    }
  });
  await writeMatrix(path.join(job.workdir, OUT.prices), prices, all.length, D);
  if (volumes) await writeMatrix(path.join(job.workdir, OUT.volumes), volumes, all.length, D);
  await writeFile(path.join(job.workdir, OUT.dates), dayOrder.map((d) => isoOf(market.days[d]!)).join('\n') + '\n');
  await writeFile(path.join(job.workdir, OUT.symbols), all.join('\n') + '\n');
  const sectors = Object.fromEntries([...symbolOrder.map((s) => [market.symbols[s]!, market.sectors[s] ?? null]), ...references.map((s) => [s, REFERENCE_SECTOR])]);
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
  const sectorKeys = new Map<string, number>();
  // Keys in sorted sector order, so colours do not depend on which symbol comes first.
  for (const s of [...new Set(Object.values(sectors).map((v) => v ?? 'no sector'))].sort()) sectorKeys.set(s, sectorKeys.size);
  const names: string[] = [];
  const frames: ParsedFrame[] = [];
  let frame: { title: string; positions: Float32Array; clusterKeys: Uint32Array; labels: string[]; sectorColumn: string[] } | null = null;
  const close = (line: number) => {
    if (!frame) return;
    if (frame.labels.length !== frame.clusterKeys.length) throw new Error(`${OUT.frames} line ${line}: frame ${frames.length} has ${frame.labels.length} of its ${frame.clusterKeys.length} points`);
    // The sector stays a column when the clusters are the price change bins (and beside the sector clusters, for search and hover).
    const columns = hasSectors ? new Map([['sector', frame.sectorColumn]]) : undefined;
    frames.push({ title: frame.title, positions: frame.positions, clusterKeys: frame.clusterKeys, labels: frame.labels, edges: [], ...(columns && { columns }) });
    frame = null;
  };
  // A frame's point lines (millions in all) are read in place from the bytes; the few others as text.
  const lastLine = await forEachByteLine(fileChunks(path.join(job.workdir, OUT.frames)), (bytes, start, end, line) => {
    if (bytes[start]! >= 48 && bytes[start]! <= 57) {
      const fields = pointFields(bytes, start, end);
      const i = frame?.labels.length ?? -1;
      if (!frame || fields === null || i === frame.clusterKeys.length) throw new Error(`${OUT.frames} line ${line}: expected "index x y z bin" in a frame`);
      const [index, x, y, z, bin] = fields;
      const name = names[index] ?? String(index);
      const sector = sectors[name] ?? null;
      frame.positions[3 * i] = x;
      frame.positions[3 * i + 1] = y;
      frame.positions[3 * i + 2] = z;
      frame.clusterKeys[i] = p.clusterBy === 'change' ? bin : sectorKeys.get(sector ?? 'no sector')!;
      frame.labels.push(name);
      frame.sectorColumn.push(sector ?? '');
      return;
    }
    const cells = utf8(bytes, start, end).trim().split(/\s+/);
    if (cells[0] === 'symbol') names[Number(cells[1])] = cells[2]!;
    else if (cells[0] === 'frame') {
      close(line);
      const points = Number(cells[6]);
      if (!Number.isInteger(points) || points < 0) throw new Error(`${OUT.frames} line ${line}: expected "frame k first_day last_day first_date last_date points stress"`);
      frame = { title: cells[5]!, positions: new Float32Array(3 * points), clusterKeys: new Uint32Array(points), labels: [], sectorColumn: [] };
    }
  });
  close(lastLine);
  if (!frames.length) throw new Error(`${OUT.frames} has no frame`);
  const clusters: ClusterDef[] = p.clusterBy === 'change'
    ? CHANGE_BINS.map((label, key) => ({ key, label: `change ${label}`, color: categoricalColor(key), shape: 3, size: 1, visible: true }))
    : [...sectorKeys].map(([label, key]) => ({ key, label, color: categoricalColor(key), shape: label === REFERENCE_SECTOR ? 2 : 3, size: label === REFERENCE_SECTOR ? 3 : 1, visible: true }));
  return { title: job.name, clusters, frames, warnings: [] };
}

/** A point line of the frames file, "index x y z bin" separated by spaces, or null when it is not one. */
function pointFields(bytes: Buffer, start: number, end: number): [number, number, number, number, number] | null {
  const values: number[] = [];
  for (let at = start; at < end && values.length < 5; ) {
    let stop = at;
    while (stop < end && bytes[stop] !== 32) stop++;
    // index and bin are whole numbers (-1: not one), the coordinates decimals (NaN: not one).
    values.push(values.length === 0 || values.length === 4 ? parseIndex(bytes, at, stop) : parseFloat32(bytes, at, stop));
    at = stop;
    while (at < end && bytes[at] === 32) at++;
  }
  const ok = values.length === 5 && values[0]! >= 0 && values[4]! >= 0 && values.every(Number.isFinite);
  return ok ? (values as [number, number, number, number, number]) : null;
}

export const stockTimeseries: JobTypeModule = {
  contract: JOB_TYPES['stock-timeseries'],
  inputName: 'input.csv',
  checkOutputs: [OUT.observations, OUT.market],
  // The price records and mdsseries's matrices (hundreds of MB at 7,000 stocks); the plot has the frames.
  intermediates: [OUT.observations, OUT.prices, OUT.volumes],
  async checkInput({ file, params, config, maxFrames, workdir }) {
    const records = new RecordWriter(path.join(workdir, OUT.observations));
    const market = await readMarket(file, records).finally(() => records.close());
    await writeFile(path.join(workdir, OUT.market), JSON.stringify(market));
    const symbols = market.symbols.length;
    if (symbols < 3) throw bad('too_few_symbols', `${symbols} symbol${symbols === 1 ? '' : 's'}; at least 3 are needed`);
    if (symbols > config.maxPoints) {
      throw fileError('too_many_symbols', `${symbols} symbols; a job has at most ${config.maxPoints} (JOB_MAX_POINTS)`, undefined, 413);
    }
    const first = market.days.reduce((a, b) => Math.min(a, b), Infinity);
    const last = market.days.reduce((a, b) => Math.max(a, b), -Infinity);
    if (params.windowDays > last - first + 1) {
      throw new InputError('window_too_long',
        `params.windowDays: a window of ${params.windowDays} days is longer than the data (${last - first + 1} days, ${isoOf(first)} to ${isoOf(last)})`,
        { field: 'params.windowDays', status: 422 });
    }
    // One frame per window (kernels/README.md, "Windows"): window k ends on first + k·step + window − 1 ≤ last.
    const span = last - first + 1;
    const windows = Math.floor((span - params.windowDays) / params.stepDays) + 1;
    if (windows > maxFrames) {
      const step = Math.floor((span - params.windowDays) / maxFrames) + 1;
      throw new InputError('too_many_frames',
        `params.stepDays: windows of ${params.windowDays} days every ${params.stepDays === 1 ? 'day' : `${params.stepDays} days`} over the data's ${span} days make ${windows} frames; a plot has at most ${maxFrames} (MAX_FRAMES): take a step of at least ${step} days`,
        { field: 'params.stepDays', status: 422 });
    }
    params.weights ??= market.hasVolume ? 'tradedValue' : 'none';
    if (params.weights === 'tradedValue' && !market.hasVolume) {
      throw new InputError('no_volume', 'params.weights: "tradedValue" needs a volume column', { field: 'params.weights', status: 422 });
    }
    const hasSector = market.sectors.some((s) => s !== null);
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
