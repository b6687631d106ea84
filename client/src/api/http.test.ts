import { describe, expect, it } from 'vitest';
import { ApiError, errorFromBody, errorText } from './http';

describe('errorFromBody', () => {
  it('reads the API error shape with field and line', () => {
    const e = errorFromBody(400, JSON.stringify({ error: { code: 'parse_error', message: 'bad number', line: 12, field: 'file' } }));
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code, e.message, e.line, e.field]).toEqual([400, 'parse_error', 'bad number', 12, 'file']);
  });
  it('falls back to the status for non-JSON or foreign bodies', () => {
    expect(errorFromBody(502, '<html>bad gateway</html>')).toMatchObject({ code: 'http_502', message: 'Request failed with HTTP 502' });
    expect(errorFromBody(500, '{"oops":1}')).toMatchObject({ code: 'http_500' });
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
