// Checks a job's uploaded input before anything is queued: the programs would
// reject a bad file too, but only after the job waited its turn. Errors carry the
// 1-based line (422) so the submission form can point at it.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileChunks } from '../formats/chunks.ts';
import { forEachCsvRow } from '../formats/csv-rows.ts';
import { quoted } from '../formats/reader.ts';
import { fileError, InputError } from '../formats/types.ts';
import { checkMatrixContent } from './matrixContent.ts';

const DNA = new Set('ACGTUNRYKMSWBDHV-'.split(''));
const PROTEIN = new Set('ACDEFGHIKLMNPQRSTVWYBZXUO*-'.split(''));
const FASTA_ID = /^[\x21-\x7e]+$/;

/** The lines of a text file with their 1-based numbers, streamed. */
export async function* lines(file: string): AsyncGenerator<[string, number]> {
  const reader = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of reader) yield [line, ++number];
}

const invalid = (code: string, message: string, line?: number) => fileError(code, message, line, 422);

/** Magic numbers of compressed files: read as text, the first line of one is not a header or a row. */
const COMPRESSED: readonly { name: string; magic: number[]; tool: string }[] = [
  { name: 'gzip', magic: [0x1f, 0x8b], tool: 'gunzip' },
  { name: 'bzip2', magic: [0x42, 0x5a, 0x68], tool: 'bunzip2' },
  { name: 'xz', magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], tool: 'unxz' },
  { name: 'zstd', magic: [0x28, 0xb5, 0x2f, 0xfd], tool: 'unzstd' },
  { name: 'ZIP', magic: [0x50, 0x4b, 0x03, 0x04], tool: 'unzip' },
];

/**
 * Job inputs are read as plain text: a compressed file is refused by name. Accepting it would
 * mean inflating it into the job directory, where the programs read it, under limits of its own
 * (the upload's size limit counts the bytes sent).
 */
async function refuseCompressed(file: string): Promise<void> {
  const head = Buffer.alloc(8);
  const handle = await open(file, 'r');
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const format = COMPRESSED.find(({ magic }) => bytesRead >= magic.length && magic.every((byte, i) => head[i] === byte));
  if (format) {
    throw invalid('compressed_input', `this file is ${format.name}-compressed; compressed files are not read: upload it uncompressed (${format.tool} it first)`);
  }
}

export interface FastaSummary {
  sequences: number;
  alphabet: 'dna' | 'protein';
}

export interface FastaLimits {
  /** Sequences (JOB_MAX_POINTS). */
  maxPoints: number;
  maxSequenceLength: number;
  maxResidues: number;
}

/** A limit of the job gateway exceeded: 413, naming the limit and its setting. */
const overLimit = (code: string, message: string, line?: number) => fileError(code, message, line, 413);

/** A FASTA header line (">id description") split: the id up to the first white space, the rest trimmed. */
export function fastaHeader(text: string): { id: string; description: string } {
  const body = text.slice(1);
  const end = body.search(/\s/);
  return end < 0 ? { id: body, description: '' } : { id: body.slice(0, end), description: body.slice(end).trim() };
}

/** The description of each record, in input order ('' when the header has none): the plot's "description" column. */
export async function fastaDescriptions(file: string): Promise<string[]> {
  const descriptions: string[] = [];
  for await (const [raw] of lines(file)) {
    const text = raw.trim();
    if (text.startsWith('>')) descriptions.push(fastaHeader(text).description);
  }
  return descriptions;
}

/**
 * With alphabet "auto", a file whose residues are at least this share nucleotides (A, C, G, T, U, N)
 * reads as DNA, and its other letters are errors: X, Z or * in a read of a DNA file are not taken
 * for a sign that the file is protein (amino acids A, C, G, T and N are about a quarter of a protein).
 */
const DNA_SHARE = 0.9;
const RESIDUES = new Set([...DNA, ...PROTEIN]);

/**
 * Per ASCII code (either case): whether it is a nucleotide, a DNA residue, a protein residue. One
 * lookup per character keeps the check of a 100,000-read file at the speed of reading it; `outside`
 * then says what is wrong with the rare line that fails.
 */
const NUCLEOTIDE = 1, IN_DNA = 2, IN_PROTEIN = 4;
const RESIDUE_CLASS = (() => {
  const table = new Uint8Array(128);
  const mark = (letters: Iterable<string>, flag: number) => {
    for (const c of letters) {
      table[c.charCodeAt(0)]! |= flag;
      table[c.toLowerCase().charCodeAt(0)]! |= flag;
    }
  };
  mark('ACGTUN', NUCLEOTIDE);
  mark(DNA, IN_DNA);
  mark(PROTEIN, IN_PROTEIN);
  return table;
})();

/** A sequence line's characters outside `valid` (case-insensitive), each once in order, and the 1-based column of the first. */
function outside(raw: string, valid: ReadonlySet<string>): { chars: string[]; column: number } | null {
  const chars = new Set<string>();
  let column = 0;
  [...raw].forEach((char, i) => {
    if (/\s/.test(char) || valid.has(char.toUpperCase())) return;
    if (chars.size === 0) column = i + 1;
    chars.add(char);
  });
  return chars.size ? { chars: [...chars], column } : null;
}

/** '"!" is not a residue (column 14)', '"X", "Z", "*" are not DNA residues (the first at column 11)'. */
function residueMessage({ chars, column }: { chars: string[]; column: number }, kind: string): string {
  const listed = chars.map((c) => JSON.stringify(c)).join(', ');
  return chars.length === 1 ? `${listed} is not a ${kind} (column ${column})` : `${listed} are not ${kind}s (the first at column ${column})`;
}

/** Ids unique and printable, no empty sequence, residues of the alphabet (detected for "auto"), within the limits; not compressed. */
export async function checkFasta(file: string, alphabet: 'auto' | 'dna' | 'protein', limits: FastaLimits): Promise<FastaSummary> {
  await refuseCompressed(file);
  const ids = new Set<string>();
  let header = 0; // line of the current record's header
  let residues = 0;
  let total = 0;
  let nucleotides = 0; // and letters of either alphabet, over which "auto" reckons the share
  let letters = 0;
  let firstNonDna: { line: number; chars: string[]; column: number } | null = null;
  const readsAsDna = () => nucleotides >= DNA_SHARE * letters;
  const closeRecord = () => {
    if (header && residues === 0) throw invalid('empty_sequence', 'the sequence is empty', header);
  };
  for await (const [raw, line] of lines(file)) {
    const text = raw.trim();
    if (text === '') continue;
    if (text.startsWith('>')) {
      closeRecord();
      const { id } = fastaHeader(text);
      if (!id || !FASTA_ID.test(id)) throw invalid('bad_fasta_id', 'a header needs a printable sequence id after ">"', line);
      if (ids.has(id)) throw invalid('duplicate_id', `sequence id "${id}" appears twice`, line);
      if (ids.size === limits.maxPoints) {
        throw overLimit('too_many_sequences', `more than ${limits.maxPoints} sequences, the limit per job (JOB_MAX_POINTS)`, line);
      }
      ids.add(id);
      header = line;
      residues = 0;
      continue;
    }
    if (!header) throw invalid('not_fasta', 'expected a ">id" header line first', line);
    residues += text.length;
    total += text.length;
    const validFlags = alphabet === 'dna' ? IN_DNA : alphabet === 'protein' ? IN_PROTEIN : IN_DNA | IN_PROTEIN;
    let allValid = true, allDna = true;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const flags = code < 128 ? RESIDUE_CLASS[code]! : 0;
      if (flags & NUCLEOTIDE) nucleotides++;
      if (flags & (IN_DNA | IN_PROTEIN)) letters++;
      if (!(flags & validFlags)) allValid = false;
      if (!(flags & IN_DNA)) allDna = false;
    }
    const valid = alphabet === 'dna' ? DNA : alphabet === 'protein' ? PROTEIN : RESIDUES;
    if (!allValid && outside(raw, valid)) {
      // Named with every character not of the file's alphabet (so far, for "auto"): a DNA read's X, Z and * with its "!".
      const dna = alphabet === 'dna' || (alphabet === 'auto' && readsAsDna());
      const kind = dna ? 'DNA residue' : alphabet === 'protein' ? 'protein residue' : 'residue';
      throw invalid('bad_residue', residueMessage(outside(raw, dna ? DNA : valid)!, kind), line);
    }
    if (alphabet === 'auto' && firstNonDna === null && !allDna) {
      const nonDna = outside(raw, DNA);
      if (nonDna) firstNonDna = { line, ...nonDna };
    }
    if (residues > limits.maxSequenceLength) {
      throw overLimit('sequence_too_long', `sequence longer than ${limits.maxSequenceLength} residues, the limit (JOB_MAX_SEQUENCE_LENGTH)`, line);
    }
    if (total > limits.maxResidues) throw overLimit('too_many_residues', `more than ${limits.maxResidues} residues in all, the limit (JOB_MAX_RESIDUES)`, line);
  }
  closeRecord();
  if (ids.size < 2) throw invalid('too_few_sequences', 'at least 2 sequences are needed');
  if (alphabet !== 'auto') return { sequences: ids.size, alphabet };
  if (firstNonDna && readsAsDna()) {
    const share = Math.floor((100 * nucleotides) / letters);
    throw invalid('bad_residue', `${residueMessage(firstNonDna, 'DNA residue')}; the file reads as DNA (${share} % A, C, G, T/U or N): set alphabet to protein if it is protein`, firstNonDna.line);
  }
  return { sequences: ids.size, alphabet: firstNonDna === null ? 'dna' : 'protein' };
}

/** A SPIDAL matrix is exactly N×N int16 values of a distance matrix (matrixContent.ts); its optional weight matrix has the same size. */
export async function checkMatrix(
  file: string,
  points: number,
  maxPoints: number,
  byteOrder: 'little' | 'big',
  labels?: string[],
  weights?: string,
): Promise<void> {
  if (points > maxPoints) {
    throw new InputError('too_many_points', `points: ${points}; a matrix job has at most ${maxPoints} (JOB_MAX_POINTS)`, { field: 'params.points', status: 413 });
  }
  await checkMatrixSize(file, points, 'file');
  if (weights) await checkMatrixSize(weights, points, 'weights');
  if (labels && labels.length !== points) {
    throw new InputError('label_count', `${labels.length} labels for ${points} points`, { field: 'params.labels' });
  }
  await checkMatrixContent(file, points, byteOrder);
}

async function checkMatrixSize(file: string, points: number, field: string): Promise<void> {
  const bytes = (await stat(file)).size;
  const expected = points * points * 2;
  if (bytes !== expected) {
    throw new InputError('matrix_size', `${field}: ${bytes} bytes; a ${points}×${points} int16 matrix has ${expected}`, { field });
  }
}

export interface VectorTable {
  rows: number;
  columns: number;
}

/** Same number of cells on every row, numeric cells outside the label column; read as CSV like plot uploads (csv-rows.ts). */
export async function checkVectors(file: string, header: boolean, labelColumn: number | undefined, maxRows: number): Promise<VectorTable> {
  let columns = 0;
  let rows = 0;
  let first = true;
  await refuseCompressed(file);
  const onRow = (cells: string[], line: number) => {
    if (first) {
      columns = cells.length;
      if (labelColumn !== undefined && labelColumn >= columns) {
        throw invalid('bad_label_column', `labelColumn ${labelColumn} but the rows have ${columns} columns`, line);
      }
      if (columns - (labelColumn === undefined ? 0 : 1) < 1) throw invalid('no_features', 'no numeric column', line);
      first = false;
      if (header) return;
    }
    if (cells.length !== columns) throw invalid('ragged_row', `${cells.length} cells, the first row has ${columns}`, line);
    cells.forEach((cell, column) => {
      if (column === labelColumn) return;
      const text = cell.trim();
      if (text === '' || !Number.isFinite(Number(text))) throw invalid('not_a_number', `column ${column + 1}: ${quoted(text)} is not a number`, line);
    });
    if (++rows > maxRows) throw overLimit('too_many_rows', `more than ${maxRows} vectors, the limit per job (JOB_MAX_VECTOR_ROWS)`, line);
  };
  try {
    await forEachCsvRow(fileChunks(file), onRow);
  } catch (error) {
    // The reader's own errors (quotes, encoding) are about the file field too, and say so first (fileError).
    if (error instanceof InputError && error.details.field === undefined) {
      throw new InputError(error.code, `file: ${error.message}`, { ...error.details, field: 'file' });
    }
    throw error;
  }
  if (rows < 2) throw invalid('too_few_rows', 'at least 2 vectors are needed');
  return { rows, columns };
}
