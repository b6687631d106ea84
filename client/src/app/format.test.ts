import { expect, test } from 'vitest';
import { formatBytes } from './format';

test('sizes in bytes, KB, MB and GB, with a decimal below 10', () => {
  expect([0, 40, 1023, 5_000, 181_000 * 1024, 20_000_000 * 1024].map(formatBytes))
    .toEqual(['0 bytes', '40 bytes', '1023 bytes', '4.9 KB', '177 MB', '19 GB']);
});
