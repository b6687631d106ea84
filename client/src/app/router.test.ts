import { describe, expect, it } from 'vitest';
import { matchRoute } from './router';

describe('matchRoute', () => {
  it('maps every contract path', () => {
    expect(matchRoute('/')).toEqual({ name: 'library' });
    expect(matchRoute('/plots/abc%20d')).toEqual({ name: 'viewer', id: 'abc d' });
    expect(matchRoute('/plots/x/')).toEqual({ name: 'viewer', id: 'x' });
    expect(matchRoute('/jobs')).toEqual({ name: 'jobs' });
    expect(matchRoute('/jobs/42')).toEqual({ name: 'job', id: '42' });
    expect(matchRoute('/login')).toEqual({ name: 'login' });
    expect(matchRoute('/tokens')).toEqual({ name: 'tokens' });
  });
  it('rejects unknown paths', () => {
    expect(matchRoute('/plots')).toEqual({ name: 'notFound' });
    expect(matchRoute('/plots/a/b')).toEqual({ name: 'notFound' });
    expect(matchRoute('/admin')).toEqual({ name: 'notFound' });
  });
});
