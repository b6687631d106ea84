import { describe, expect, it } from 'vitest';
import { ApiError, errorFromBody } from './http';

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
