// Multipart uploads: the file is streamed to a private temporary file (never held
// in memory) under a size cap; text fields are collected beside it.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError } from './errors.ts';

export interface Upload {
  fields: Record<string, string>;
  file: { path: string; originalName: string; bytes: number } | null;
  /** Removes the temporary file; call in a finally block. */
  cleanup(): Promise<void>;
}

const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 64 * 1024;

export async function receiveUpload(req: Request, tmpDir: string, maxBytes: number): Promise<Upload> {
  if (!req.is('multipart/form-data')) throw new ApiError(415, 'unsupported_media_type', 'send multipart/form-data with a "file" part');
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  const tmpPath = path.join(tmpDir, `upload-${randomBytes(12).toString('hex')}`);
  const upload: Upload = {
    fields: {},
    file: null,
    cleanup: () => rm(tmpPath, { force: true }),
  };

  const parser = busboy({
    headers: req.headers,
    limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: maxBytes },
  });
  let fileDone: Promise<void> = Promise.resolve();
  let failure: ApiError | null = null;

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) failure ??= new ApiError(413, 'too_large', `field ${name} is over ${MAX_FIELD_BYTES} bytes`, name);
    upload.fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || upload.file) {
      failure ??= new ApiError(400, 'bad_request', 'send exactly one file part, named "file"', name);
      stream.resume();
      return;
    }
    const file = { path: tmpPath, originalName: path.basename(info.filename || 'upload'), bytes: 0 };
    upload.file = file;
    stream.on('data', (chunk: Buffer) => (file.bytes += chunk.length));
    stream.on('limit', () => {
      failure ??= new ApiError(413, 'too_large', `the file is over the ${maxBytes}-byte upload limit`, 'file');
    });
    fileDone = pipeline(stream, createWriteStream(tmpPath, { mode: 0o600 }));
  });
  parser.on('filesLimit', () => (failure ??= new ApiError(400, 'bad_request', 'send exactly one file part, named "file"', 'file')));
  parser.on('fieldsLimit', () => (failure ??= new ApiError(413, 'too_large', `more than ${MAX_FIELDS} fields`)));

  try {
    await pipeline(req, parser);
    await fileDone;
  } catch (err) {
    await upload.cleanup();
    if (failure) throw failure;
    throw new ApiError(400, 'bad_request', `malformed multipart body: ${(err as Error).message}`);
  }
  if (failure) {
    await upload.cleanup();
    throw failure;
  }
  return upload;
}
