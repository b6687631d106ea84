// One place that talks HTTP to /api/v1: CSRF header on cookie-authenticated
// writes, JSON error bodies turned into ApiError, replies checked with zod.
import { API_PREFIX, ApiError, ErrorBody } from '@wpv/schema';
import type { z } from 'zod';

export { ApiError };

let csrfToken: string | undefined;
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

function withCsrf(method: string, headers: Record<string, string>): Record<string, string> {
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  return headers;
}

/** Builds an ApiError from a failed reply, whatever its body holds. */
export function errorFromBody(status: number, text: string): ApiError {
  try {
    const parsed = ErrorBody.safeParse(JSON.parse(text));
    if (parsed.success) {
      const e = parsed.data.error;
      return new ApiError(status, e.code, e.message, e.field, e.line);
    }
  } catch {
    // not JSON: fall through to a generic message
  }
  return new ApiError(status, 'http_' + status, `Request failed with HTTP ${status}`);
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
    throw new ApiError(0, 'network', 'The server could not be reached');
  }
  if (!res.ok) throw errorFromBody(res.status, await res.text());
  return res;
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
      if (xhr.status < 200 || xhr.status >= 300) return reject(errorFromBody(xhr.status, xhr.responseText));
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
