// JSON request bodies. express.json parses only application/json: a body of any other type
// reaches a route as undefined, which its schema would report as "expected object, received undefined".
import type { Request } from 'express';
import type { z } from 'zod';
import { ApiError } from './errors.ts';

/** The body as `schema` reads it (null when none was sent); a body of another type is a 415 saying what to send. */
export function jsonBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  const sent = Number(req.get('content-length')) > 0 || req.get('transfer-encoding') !== undefined;
  if (sent && !req.is('application/json')) {
    const type = req.get('content-type');
    throw new ApiError(415, 'unsupported_media_type', `expected a JSON body (Content-Type: application/json), got ${type ? `Content-Type: ${type}` : 'no Content-Type'}`);
  }
  return schema.parse(req.body ?? null);
}
