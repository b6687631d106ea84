// Every failure leaves the API as {"error":{code,message,field?,line?,file?}}.
import type { ErrorRequestHandler } from 'express';
import { ZodError } from 'zod';
import { InputError } from '../formats/types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const notFound = (what = 'plot') => new ApiError(404, 'not_found', `${what} not found`);
export const unauthorized = () => new ApiError(401, 'unauthorized', 'log in or send "Authorization: Bearer <token>"');

export function zodToApiError(err: ZodError): ApiError {
  const issue = err.issues[0];
  const field = issue?.path.join('.') || undefined;
  return new ApiError(400, 'bad_request', field ? `${field}: ${issue!.message}` : (issue?.message ?? 'invalid request'), field);
}

export const errorHandler: ErrorRequestHandler = (err, _req, res, _next) => {
  if (err instanceof ZodError) err = zodToApiError(err);
  if (err instanceof ApiError) {
    res.status(err.status).json({ error: { code: err.code, message: err.message, ...(err.field && { field: err.field }) } });
    return;
  }
  if (err instanceof InputError) {
    const { status = 422, line, file, field } = err.details;
    res.status(status).json({ error: { code: err.code, message: err.message, line, file, field } });
    return;
  }
  // body-parser errors carry a status (malformed JSON, too large).
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
    const code = err.status === 413 ? 'too_large' : 'bad_request';
    res.status(err.status).json({ error: { code, message: err.expose ? err.message : 'bad request' } });
    return;
  }
  console.error(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(500).json({ error: { code: 'internal', message: 'internal error' } });
};
