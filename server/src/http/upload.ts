// Multipart uploads: each file part is streamed to a private temporary file (never
// held in memory) under a size cap; text fields are collected beside it. Whatever
// happens to the request (a client gone mid-body, a truncated or malformed form, a
// stalled sender), every write is awaited and every temporary file removed.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { ApiError, humanBytes } from './errors.ts';

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
/** An upload that sends nothing for this long is cut off (app.locals.uploadIdleMs overrides it). */
export const UPLOAD_IDLE_MS = 60_000;
// Temporary files carry the pid of the process writing them, so a start-up sweep removes
// only those of processes that are gone (another API process may share the directory).
const TMP_PREFIX = 'upload-';

/** Removes the temporary upload files that processes no longer running left behind; returns how many. */
export async function sweepUploadTmp(tmpDir: string): Promise<number> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const pid = Number(/^upload-(\d+)-/.exec(name)?.[1] ?? 'NaN');
    if (name.startsWith(TMP_PREFIX) && (pid === process.pid || !isRunning(pid))) {
      await rm(path.join(tmpDir, name), { force: true });
      removed++;
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Aborted when the client goes before its answer is sent (the connection closed): the work of
 * a request whose body is in (parsing, checking) goes on without it, so a service abandons it
 * before its commit point, and the client's cancel really cancels. Take it before the body is read.
 */
export function untilClientGone(res: Response): AbortSignal {
  const abort = new AbortController();
  const gone = () => abort.abort(new ApiError(499, 'client_gone', 'the client closed the connection before the answer'));
  if (res.destroyed) gone();
  else res.once('close', () => res.writableFinished || gone());
  return abort.signal;
}

/** What a route's form holds: its file parts and its text fields; anything else is refused. */
export interface FormFields {
  files: readonly string[];
  fields: readonly string[];
}

/**
 * `form.files`: the file parts accepted, each at most once, each up to `maxBytes`; `form.fields`: the
 * text fields (a misspelt one is a 400 naming it, as an unknown query or JSON key is); `overLimit`:
 * the error for a part over it, when the limit is not the upload limit (a storage quota's room).
 */
export async function receiveUpload(req: Request, tmpDir: string, maxBytes: number, form: FormFields, overLimit?: (part: string) => ApiError): Promise<Upload> {
  const fileFields = form.files;
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

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // File names arrive as raw UTF-8 bytes (RFC 7578, what browsers and curl send); busboy reads them as latin1 by default.
      defParamCharset: 'utf8',
      limits: { files: fileFields.length, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, fileSize: maxBytes },
    });
  } catch (err) {
    // A multipart Content-Type without a boundary, or one busboy cannot read.
    throw new ApiError(400, 'bad_request', `malformed multipart header: ${(err as Error).message}`);
  }
  // Each write settles to its error (or null): a write that fails while nobody awaits it yet must
  // not become an unhandled rejection, which would end the process.
  const filesDone: Promise<Error | null>[] = [];
  let failure: ApiError | null = null;

  parser.on('field', (name, value, info) => {
    if (!form.fields.includes(name) && !fileFields.includes(name)) {
      failure ??= new ApiError(400, 'bad_request', `${name}: unknown field; the form takes ${[...fileFields, ...form.fields].join(', ')}`, name);
    }
    if (info.valueTruncated) failure ??= new ApiError(413, 'too_large', `field ${name} is over ${MAX_FIELD_BYTES} bytes`, name);
    upload.fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (!fileFields.includes(name) || upload.files[name]) {
      failure ??= new ApiError(400, 'bad_request', `send ${expected}`, name);
      stream.resume();
      return;
    }
    const tmpPath = path.join(tmpDir, `${TMP_PREFIX}${process.pid}-${randomBytes(12).toString('hex')}`);
    tmpPaths.push(tmpPath);
    const file = { path: tmpPath, originalName: path.basename(info.filename || 'upload'), bytes: 0 };
    upload.files[name] = file;
    stream.on('data', (chunk: Buffer) => (file.bytes += chunk.length));
    stream.on('limit', () => {
      failure ??= overLimit?.(name) ?? overUploadLimit(name, maxBytes);
    });
    filesDone.push(pipeline(stream, createWriteStream(tmpPath, { mode: 0o600 })).then(() => null, (err: Error) => err));
  });
  parser.on('filesLimit', () => (failure ??= new ApiError(400, 'bad_request', `send ${expected}`, 'file')));
  parser.on('fieldsLimit', () => (failure ??= new ApiError(413, 'too_large', `more than ${MAX_FIELDS} fields`)));

  // A sender that stalls (slowloris) is cut off; the connection ends with it.
  const idleMs: number = req.app.locals.uploadIdleMs ?? UPLOAD_IDLE_MS;
  const stalled = () => parser.destroy((failure ??= new ApiError(408, 'timeout', `no upload data for ${idleMs / 1000} s`)));
  const idle = setTimeout(stalled, idleMs);
  const onData = () => idle.refresh();
  req.on('data', onData);

  let received: Error | null = null;
  try {
    await pipeline(req, parser);
  } catch (err) {
    received = err as Error;
  } finally {
    clearTimeout(idle);
    req.off('data', onData);
  }
  // The writes end either way (busboy ends or destroys each file stream); only then may their files go.
  const writeError = (await Promise.all(filesDone)).find((err) => err !== null) ?? null;
  if (received || writeError || failure) {
    await upload.cleanup();
    // The rest of the body is not wanted (a stalled or oversized sender): the connection ends with the answer.
    if (!req.complete) req.res?.setHeader('Connection', 'close');
    if (failure) throw failure;
    if (received) throw new ApiError(400, 'bad_request', `malformed or incomplete multipart body: ${received.message}`);
    throw writeError; // the disk, not the client: a 500
  }
  return upload;
}

/** The 413 for a file part over the upload limit: "file: the file is over the 64 MB upload limit". */
export function overUploadLimit(field: string, maxBytes: number): ApiError {
  return new ApiError(413, 'too_large', `${field}: the file is over the ${humanBytes(maxBytes)} upload limit`, field);
}
