// Every failure leaves the API as {"error":{code,message,field?,line?,file?,requestId?}}.
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError as SharedApiError } from '@wpv/schema';
import { ZodError } from 'zod';
import { InputError } from '../formats/types.ts';
import { isStoreUnreachable } from '../storage/reachability.ts';

/** The shared API error, with extra response headers (Retry-After of a 429). */
export class ApiError extends SharedApiError {
  constructor(status: number, code: string, message: string, field?: string, readonly headers: Record<string, string> = {}) {
    super(status, code, message, field);
  }
}

export const notFound = (what = 'plot') => new ApiError(404, 'not_found', `${what} not found`);
/** The store is down (a restart, an outage): nothing the client did wrong, worth retrying in a moment. */
export const storeUnavailable = () =>
  new ApiError(503, 'store_unavailable', "the server's database is unavailable; try again in a few seconds", undefined, { 'Retry-After': '5' });
export const unauthorized = () => new ApiError(401, 'unauthorized', 'log in or send "Authorization: Bearer <token>"');

/** At most this much of a message goes back: messages quote input (a line, a field, a path), which may be megabytes. */
export const MAX_MESSAGE_CHARS = 300;

/** A size as people read it in a message: 20 GB, 64 MB, 1.5 kB, 300 bytes (binary units, as the limits are set). */
export function humanBytes(bytes: number): string {
  const round = (v: number) => String(Number(v.toFixed(1)));
  if (bytes >= 2 ** 30) return `${round(bytes / 2 ** 30)} GB`;
  if (bytes >= 2 ** 20) return `${round(bytes / 2 ** 20)} MB`;
  if (bytes >= 2 ** 10) return `${round(bytes / 2 ** 10)} kB`;
  return `${bytes} bytes`;
}

export function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

export function zodToApiError(err: ZodError): ApiError {
  const issue = err.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    // Named by the key itself: the issue's path is the object that holds it.
    const field = [...issue.path, issue.keys[0]!].join('.');
    const more = issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more)` : '';
    return new ApiError(400, 'bad_request', clip(`${field}: unknown key${more}`), field);
  }
  const field = issue?.path.join('.') || undefined;
  return new ApiError(400, 'bad_request', field ? `${field}: ${issue!.message}` : (issue?.message ?? 'invalid request'), field);
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Names the request in the log and in a 500's body, so a user's report finds the stack trace. */
    id: string;
  }
}

export const requestId: RequestHandler = (req, res, next) => {
  req.id = randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
};

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  if (err instanceof ZodError) err = zodToApiError(err);
  if (isStoreUnreachable(err)) err = storeUnavailable();
  if (res.headersSent) {
    // Mid-stream (a blob, an export): the status is gone, so the client learns of it by the cut connection.
    if (!(err instanceof ApiError || err instanceof InputError)) console.error(`request ${req.id} ${req.method} ${req.originalUrl} failed mid-response:`, err);
    res.destroy();
    return;
  }
  if (err instanceof ApiError) {
    res.set(err.headers);
    res.status(err.status).json({ error: { code: err.code, message: clip(err.message), ...(err.field && { field: err.field }) } });
    return;
  }
  if (err instanceof InputError) {
    const { status = 422, line, file, field } = err.details;
    res.status(status).json({ error: { code: err.code, message: clip(err.message), line, file: file && clip(file), field } });
    return;
  }
  // body-parser errors carry a status (malformed JSON, too large).
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
    const code = err.status === 413 ? 'too_large' : 'bad_request';
    res.status(err.status).json({ error: { code, message: err.expose ? clip(err.message) : 'bad request' } });
    return;
  }
  console.error(`request ${req.id} ${req.method} ${req.originalUrl} failed:`, err);
  res.status(500).json({ error: { code: 'internal', message: `internal error (request ${req.id})`, requestId: req.id } });
};
