// The reader of each single-frame format, by name (a ZIP frame is one of these).
import { readCsvFrame } from './csv.ts';
import { readPvizFrame } from './pviz.ts';
import type { FrameReader } from './reader.ts';
import { readTextFrame } from './text.ts';
import type { FormatName } from './types.ts';

export const FRAME_READERS: Record<Exclude<FormatName, 'zip'>, FrameReader> = {
  pviz: readPvizFrame,
  text: readTextFrame,
  csv: readCsvFrame,
};
