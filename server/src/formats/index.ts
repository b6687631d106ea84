// Entry point of the plot file formats: detect the format of an upload and
// parse it with that format's module.
import { open } from 'node:fs/promises';
import { assemblePlot } from './assemble.ts';
import { fileChunks } from './chunks.ts';
import { detectFormat } from './detect.ts';
import { FRAME_READERS } from './frame-readers.ts';
import { titleFromName, type FrameReader } from './reader.ts';
import { InputError, type FormatName, type FormatParser, type ParseLimits, type ParsedPlot } from './types.ts';
import { zipParser } from './zip.ts';

export { detectFormat };
export { writePviz, type ExportCluster, type ExportPlot } from './export.ts';

const HEAD_BYTES = 4096;

function singleFrameParser(name: Exclude<FormatName, 'zip'>, read: FrameReader): FormatParser {
  return {
    name,
    async parse(path, originalName, limits, signal) {
      const frame = await read({ chunks: fileChunks(path, signal), name: originalName, limits, clusterNames: new Map() });
      return assemblePlot(frame.titleFromContent ? frame.frame.title : titleFromName(originalName), [frame]);
    },
  };
}

export const PARSERS: Record<FormatName, FormatParser> = {
  pviz: singleFrameParser('pviz', FRAME_READERS.pviz),
  text: singleFrameParser('text', FRAME_READERS.text),
  csv: singleFrameParser('csv', FRAME_READERS.csv),
  zip: zipParser,
};

/** The format of an uploaded file, from its name and first bytes; an empty file is an InputError. */
export async function sniffFormat(path: string, originalName: string): Promise<FormatName> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, HEAD_BYTES, 0);
    if (bytesRead === 0) throw new InputError('empty_file', 'the file is empty');
    return detectFormat(originalName, buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** Parses an uploaded file; bad content throws an InputError (see types.ts); `signal`: see FormatParser.parse. */
export async function parseFile(path: string, originalName: string, limits: ParseLimits, signal?: AbortSignal): Promise<ParsedPlot> {
  return PARSERS[await sniffFormat(path, originalName)].parse(path, originalName, limits, signal);
}
