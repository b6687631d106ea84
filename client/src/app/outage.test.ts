import { expect, test } from 'vitest';
import { ApiError } from '../api/http';
import { outageText, retryDelayMs } from './outage';

test('the banner names the database when the store is down, else the server', () => {
  expect(outageText(new ApiError(503, 'store_unavailable', 'down'))).toBe("The server's database is unavailable; retrying…");
  expect(outageText(new ApiError(0, 'network', 'unreachable'))).toBe('The server could not be reached; retrying…');
  expect(outageText(new ApiError(502, 'http_502', 'bad gateway'))).toBe('The server could not be reached; retrying…');
  expect(outageText(new ApiError(500, 'internal', 'bug'))).toBe('Something went wrong on the server; retrying…');
});

test('asks again after 1, 2, 4, 8 s, then every 15 s', () => {
  expect([0, 1, 2, 3, 4, 5, 50].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
});
