import { describe, expect, it } from 'vitest';
import { NOTICE_MIN_MS, NOTICE_RICH_MS, noticeMs } from './notices';

describe('notice duration', () => {
  it('gives a short notice the minimum and a long one time to read it', () => {
    expect(noticeMs('Link copied.')).toBe(NOTICE_MIN_MS);
    const long = 'word '.repeat(40);
    expect(noticeMs(long)).toBeGreaterThan(NOTICE_MIN_MS);
    expect(noticeMs(long)).toBe(1_000 + 40 * 400);
  });

  it('gives a notice with a link the longer fixed time', () => {
    expect(noticeMs(null)).toBe(NOTICE_RICH_MS);
  });
});
