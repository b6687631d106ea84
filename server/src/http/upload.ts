// Multipart uploads: each file part is streamed to a private temporary file (never
// held in memory) under a size cap; text fields are collected beside it.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError } from './errors.ts';

export interface UploadedPart {
  path: string;
  originalName: string;
  bytes: number;
}

export interface Upload {
  fields: Record<string, string>;
  /** Every file part by its field name. */
  files: Partial<Record<string, UploadedPart>>;
  /** Removes the temporary files; call in a finally block. */
  cleanup(): Promise<void>;
}

const MAX_FIELDS = 50;
const MAX_FIELD_BYTES = 64 * 1024;

/** `fileFields`: the file parts accepted, each at most once, each up to `maxBytes`. */
export async function receiveUpload(req: Request, tmpDir: string, maxBytes: number, fileFields: readonly string[] = ['file']): Promise<Upload> {
  if (!req.is('multipart/form-data')) throw new ApiError(415, 'unsupported_media_type', 'send multipart/form-data with a "file" part');
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  const tmpPaths: string[] = [];
  const upload: Upload = {
    fields: {},
    files: {},
    cleanup: async () => {
      await Promise.all(tmpPaths.map((p) => rm(p, { force: true })));
    },
  };
  const expected = fileFields.length === 1 ? `exactly one file part, named "${fileFields[0]}"` : `file parts named ${fileFields.map((f) => `"${f}"`).join(', ')}, each at most once`;

  const parser = busboy({
    headers: req.headers,
    limits: { files: fileFields.length, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: maxBytes },
  });
  const filesDone: Promise<void>[] = [];
  let failure: ApiError | null = null;

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) failure ??= new ApiError(413, 'too_large', `field ${name} is over ${MAX_FIELD_BYTES} bytes`, name);
    upload.fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (!fileFields.includes(name) || upload.files[name]) {
      failure ??= new ApiError(400, 'bad_request', `send ${expected}`, name);
      stream.resume();
      return;
    }
    const tmpPath = path.join(tmpDir, `upload-${randomBytes(12).toString('hex')}`);
    tmpPaths.push(tmpPath);
    const file = { path: tmpPath, originalName: path.basename(info.filename || 'upload'), bytes: 0 };
    upload.files[name] = file;
    stream.on('data', (chunk: Buffer) => (file.bytes += chunk.length));
    stream.on('limit', () => {
      failure ??= new ApiError(413, 'too_large', `the ${name} part is over the ${maxBytes}-byte upload limit`, name);
    });
    filesDone.push(pipeline(stream, createWriteStream(tmpPath, { mode: 0o600 })));
  });
  parser.on('filesLimit', () => (failure ??= new ApiError(400, 'bad_request', `send ${expected}`, 'file')));
  parser.on('fieldsLimit', () => (failure ??= new ApiError(413, 'too_large', `more than ${MAX_FIELDS} fields`)));

  try {
    await pipeline(req, parser);
    await Promise.all(filesDone);
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
