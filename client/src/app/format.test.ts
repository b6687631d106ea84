import { expect, test } from 'vitest';
import { formatBytes, formatCount, formatWait } from './format';

test('sizes in bytes, KB, MB and GB, with a decimal below 10', () => {
  expect([0, 40, 1023, 5_000, 181_000 * 1024, 20_000_000 * 1024].map(formatBytes))
    .toEqual(['0 bytes', '40 bytes', '1023 bytes', '4.9 KB', '177 MB', '19 GB']);
});

test('counts take the singular for one only', () => {
  expect([0, 1, 2, 12_345].map((n) => formatCount(n, 'point'))).toEqual(['0 points', '1 point', '2 points', '12,345 points']);
  expect(formatCount(1, 'match', 'matches')).toBe('1 match');
  expect(formatCount(3, 'match', 'matches')).toBe('3 matches');
});

test('waits in seconds below a minute, then about so many minutes or hours', () => {
  expect([1, 0.2, 40, 59, 60, 89, 90, 894, 900, 5340, 5400, 7200].map(formatWait)).toEqual([
    '1 second', '1 second', '40 seconds', '59 seconds', 'about 1 minute', 'about 1 minute', 'about 2 minutes',
    'about 15 minutes', 'about 15 minutes', 'about 89 minutes', 'about 2 hours', 'about 2 hours',
  ]);
});
