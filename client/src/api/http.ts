// One place that talks HTTP to /api/v1: CSRF header on cookie-authenticated
// writes, JSON error bodies turned into ApiError, replies checked with zod.
import { API_PREFIX, ApiError, ErrorBody } from '@wpv/schema';
import type { z } from 'zod';
import { formatWait } from '../app/format';

export { ApiError };

let csrfToken: string | undefined;
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

function withCsrf(method: string, headers: Record<string, string>): Record<string, string> {
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  return headers;
}

/** A server fault as users read it: what happened, whether to retry, and the id the operator finds it by in the log. */
export function serverFaultText(requestId: string | undefined, status: number): string {
  const which = requestId ? `request ${requestId}` : `HTTP ${status}`;
  const tell = requestId ? 'send the request id to the operator' : 'tell the operator';
  return `Something went wrong on the server (${which}). Try again; if it keeps happening, ${tell}.`;
}

/** An API message made readable: waits in minutes rather than seconds ("try again in 894 s"), and a 5xx told whether to retry. */
function readable(status: number, message: string): string {
  const text = message.replace(/\btry again in (\d+) s\b/, (_, seconds: string) => `try again in ${formatWait(Number(seconds))}`);
  return status >= 500 && !/try again/i.test(text) ? `${text}; try again in a moment` : text;
}

/** Builds an ApiError from a failed reply, whatever its body holds; `requestId`: the X-Request-Id header. */
export function errorFromBody(status: number, text: string, requestId?: string | null): ApiError {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) {
      const e = parsed.data.error;
      // An unexpected failure ("internal error (request …)"): its message says nothing the user can act on.
      const message = e.code === 'internal' ? serverFaultText(e.requestId ?? requestId ?? undefined, status) : readable(status, e.message);
      return new ApiError(status, e.code, message, e.field, e.line);
    }
  } catch {
    // not JSON: fall through to a generic message
  }
  if (status >= 500) return new ApiError(status, 'http_' + status, serverFaultText(requestId ?? undefined, status));
  return new ApiError(status, 'http_' + status, `Request failed with HTTP ${status}`);
}

/**
 * The server or its database cannot answer for now (unreachable, restarting, the store down), as
 * opposed to this request being wrong: the session is then unknown, and asked again until it answers.
 */
export function isOutage(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.code === 'network' || error.code === 'store_unavailable' || error.status === 502 || error.status === 504);
}

const outageListeners = new Set<(error: ApiError) => void>();
/** Calls `listener` with every request's outage error (isOutage); returns the unsubscribe. */
export function onOutage(listener: (error: ApiError) => void): () => void {
  outageListeners.add(listener);
  return () => outageListeners.delete(listener);
}

/** An error as one line for the page: an API error's field and line added unless its message already starts with the field. */
export function errorText(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof ApiError) {
    if (error.field && !text.startsWith(`${error.field}:`)) text += ` (field ${error.field})`;
    if (error.line !== undefined && !text.includes(`line ${error.line}:`)) text += ` (line ${error.line})`;
  }
  return text;
}

export interface RequestOptions {
  method?: string;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  signal?: AbortSignal;
}

async function send(path: string, opts: RequestOptions): Promise<Response> {
  const method = opts.method ?? 'GET';
  const headers = withCsrf(method, {});
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.contentType) headers['Content-Type'] = opts.contentType;
  let res: Response;
  try {
    res = await fetch(API_PREFIX + path, { method, headers, body, credentials: 'same-origin', signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw reportOutage(new ApiError(0, 'network', 'The server could not be reached'));
  }
  if (!res.ok) throw reportOutage(errorFromBody(res.status, await res.text(), res.headers.get('X-Request-Id')));
  return res;
}

/** Tells the outage listeners of `error` when it is an outage (a request's, or one the server sent on a stream); returns it. */
export function reportOutage(error: ApiError): ApiError {
  if (isOutage(error)) for (const listener of outageListeners) listener(error);
  return error;
}

/** JSON request; the reply is validated against `schema` when one is given. */
export async function api<T>(path: string, schema: z.ZodType<T> | null, opts: RequestOptions = {}): Promise<T> {
  const res = await send(path, opts);
  if (res.status === 204 || !schema) return undefined as T;
  const data: unknown = await res.json();
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new ApiError(res.status, 'bad_reply', `Unexpected reply from ${path}: ${parsed.error.message}`);
  return parsed.data;
}

export async function apiBinary(path: string, signal?: AbortSignal): Promise<ArrayBuffer> {
  return (await send(path, { signal })).arrayBuffer();
}

export async function apiRaw(path: string, opts: RequestOptions = {}): Promise<Response> {
  return send(path, opts);
}

/** Multipart upload through XHR, the only browser API that reports upload progress. */
export function uploadWithProgress<T>(
  path: string,
  form: FormData,
  schema: z.ZodType<T>,
  onProgress: (fraction: number) => void,
): { promise: Promise<T>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<T>((resolve, reject) => {
    xhr.open('POST', API_PREFIX + path);
    const headers = withCsrf('POST', {});
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (ev) => {
      if (ev.lengthComputable) onProgress(ev.loaded / ev.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'Upload failed: the server could not be reached'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'Upload cancelled'));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) return reject(errorFromBody(xhr.status, xhr.responseText, xhr.getResponseHeader('X-Request-Id')));
      try {
        const parsed = schema.safeParse(JSON.parse(xhr.responseText));
        if (parsed.success) resolve(parsed.data);
        else reject(new ApiError(xhr.status, 'bad_reply', 'Unexpected upload reply: ' + parsed.error.message));
      } catch {
        reject(new ApiError(xhr.status, 'bad_reply', 'Upload reply is not JSON'));
      }
    };
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
