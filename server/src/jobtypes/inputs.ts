// Checks a job's uploaded input before anything is queued: the programs would
// reject a bad file too, but only after the job waited its turn. Errors carry the
// 1-based line (422) so the submission form can point at it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileChunks } from '../formats/chunks.ts';
import { forEachCsvRow } from '../formats/csv-rows.ts';
import { quoted } from '../formats/reader.ts';
import { InputError } from '../formats/types.ts';
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

const invalid = (code: string, message: string, line?: number) =>
  new InputError(code, line === undefined ? message : `line ${line}: ${message}`, { line, field: 'file' });

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
const overLimit = (code: string, message: string, line?: number) =>
  new InputError(code, line === undefined ? message : `line ${line}: ${message}`, { line, field: 'file', status: 413 });

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

/** Ids unique and printable, no empty sequence, residues of the alphabet (detected for "auto"), within the limits. */
export async function checkFasta(file: string, alphabet: 'auto' | 'dna' | 'protein', limits: FastaLimits): Promise<FastaSummary> {
  const ids = new Set<string>();
  let header = 0; // line of the current record's header
  let residues = 0;
  let total = 0;
  let firstNonDna: number | null = null;
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
    for (const char of text.toUpperCase()) {
      if (!PROTEIN.has(char) && !DNA.has(char)) throw invalid('bad_residue', `"${char}" is not a residue`, line);
      if (alphabet === 'dna' && !DNA.has(char)) throw invalid('bad_residue', `"${char}" is not a DNA residue`, line);
      if (firstNonDna === null && !DNA.has(char)) firstNonDna = line;
    }
    residues += text.length;
    total += text.length;
    if (residues > limits.maxSequenceLength) {
      throw overLimit('sequence_too_long', `sequence longer than ${limits.maxSequenceLength} residues, the limit (JOB_MAX_SEQUENCE_LENGTH)`, line);
    }
    if (total > limits.maxResidues) throw overLimit('too_many_residues', `more than ${limits.maxResidues} residues in all, the limit (JOB_MAX_RESIDUES)`, line);
  }
  closeRecord();
  if (ids.size < 2) throw invalid('too_few_sequences', 'at least 2 sequences are needed');
  return { sequences: ids.size, alphabet: alphabet === 'auto' ? (firstNonDna === null ? 'dna' : 'protein') : alphabet };
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
    // The reader's own errors (quotes, encoding) are about the file field too.
    if (error instanceof InputError && error.details.field === undefined) {
      throw new InputError(error.code, error.message, { ...error.details, field: 'file' });
    }
    throw error;
  }
  if (rows < 2) throw invalid('too_few_rows', 'at least 2 vectors are needed');
  return { rows, columns };
}
