import { describe, expect, it } from 'vitest';
import { ApiError, errorFromBody, errorText, isOutage } from './http';

describe('errorFromBody', () => {
  it('reads the API error shape with field and line', () => {
    const e = errorFromBody(400, JSON.stringify({ error: { code: 'parse_error', message: 'bad number', line: 12, field: 'file' } }));
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.message, e.line, e.field]).toEqual([400, 'parse_error', 'bad number', 12, 'file']);
  });
  it('falls back to the status for non-JSON or foreign bodies', () => {
    expect(errorFromBody(404, '<html>not here</html>')).toMatchObject({ code: 'http_404', message: 'Request failed with HTTP 404' });
    expect(errorFromBody(502, '<html>bad gateway</html>')).toMatchObject({
      code: 'http_502', message: 'Something went wrong on the server (HTTP 502). Try again; if it keeps happening, tell the operator.',
    });
    expect(errorFromBody(500, '{"oops":1}', 'req-7')).toMatchObject({
      code: 'http_500', message: 'Something went wrong on the server (request req-7). Try again; if it keeps happening, send the request id to the operator.',
    });
  });
  it('tells users of an internal error to retry, keeping the request id', () => {
    const body = JSON.stringify({ error: { code: 'internal', message: 'internal error (request d84d-1)', requestId: 'd84d-1' } });
    expect(errorFromBody(500, body).message).toBe(
      'Something went wrong on the server (request d84d-1). Try again; if it keeps happening, send the request id to the operator.');
  });
  it('says whether to retry on every 5xx, once', () => {
    const body = (code: string, message: string) => JSON.stringify({ error: { code, message } });
    expect(errorFromBody(503, body('queue_unavailable', 'the job queue is unavailable: closed')).message)
      .toBe('the job queue is unavailable: closed; try again in a moment');
    expect(errorFromBody(503, body('store_unavailable', "the server's database is unavailable; try again in a few seconds")).message)
      .toBe("the server's database is unavailable; try again in a few seconds");
  });
  it('gives a lockout in minutes, not seconds', () => {
    const body = JSON.stringify({ error: { code: 'too_many_attempts', message: 'too many failed logins for this account or address; try again in 894 s' } });
    expect(errorFromBody(429, body).message).toBe('too many failed logins for this account or address; try again in about 15 minutes');
  });
});

describe('isOutage', () => {
  it('is the server or its store not answering, not a failed request', () => {
    expect(isOutage(new ApiError(0, 'network', 'The server could not be reached'))).toBe(true);
    expect(isOutage(new ApiError(503, 'store_unavailable', 'down'))).toBe(true);
    expect(isOutage(new ApiError(502, 'http_502', 'bad gateway'))).toBe(true);
    expect(isOutage(new ApiError(500, 'internal', 'bug'))).toBe(false);
    expect(isOutage(new ApiError(503, 'queue_unavailable', 'broker down'))).toBe(false);
    expect(isOutage(new ApiError(401, 'unauthorized', 'log in'))).toBe(false);
    expect(isOutage(new Error('offline'))).toBe(false);
  });
});

describe('errorText', () => {
  it('names the field and line once: not again when the message starts with the field', () => {
    expect(errorText(new ApiError(400, 'parse_error', 'bad number', 'file', 12))).toBe('bad number (field file) (line 12)');
    expect(errorText(new ApiError(409, 'already_a_cluster', 'points: these points already form cluster "a"', 'points'))).toBe('points: these points already form cluster "a"');
    expect(errorText(new ApiError(422, 'bad_number', 'line 3: y: "five" is not a number', undefined, 3))).toBe('line 3: y: "five" is not a number');
    expect(errorText(new ApiError(422, 'bad_number', 'frames/2.csv: line 3: bad', undefined, 3))).toBe('frames/2.csv: line 3: bad');
    expect(errorText(new Error('offline'))).toBe('offline');
    expect(errorText('plain')).toBe('plain');
  });
});
