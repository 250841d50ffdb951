import { describe, expect, it } from 'vitest';

import { errorsHash, NO_FILTERS, parseHash, sessionHash, sessionsHash, sessionsQuery } from './route';

const none = { outcome: '', since: '' };

describe('the sessions routes', () => {
  it('reads the sessions and a session from the hash', () => {
    expect(parseHash('#/sessions')).toEqual({ page: 'sessions', filters: none, cursor: '' });
    expect(parseHash('#/sessions?outcome=expired&since=7d&cursor=abc')).toEqual({
      page: 'sessions',
      filters: { outcome: 'expired', since: '7d' },
      cursor: 'abc',
    });
    // An outcome or a since that is not one is no filter.
    expect(parseHash('#/sessions?outcome=lost&since=2025-01-01')).toEqual({ page: 'sessions', filters: none, cursor: '' });
    expect(parseHash('#/sessions/S1')).toEqual({ page: 'session', id: 'S1' });
    expect(parseHash(sessionHash('a/b c ü'))).toEqual({ page: 'session', id: 'a/b c ü' });
    expect(parseHash('#/sessions/a/b')).toEqual({ page: 'missing', hash: '/sessions/a/b' });
  });

  it('writes hashes that read back', () => {
    const filters = { outcome: 'closed', since: '1h' };
    expect(sessionsHash(filters, 'c1')).toBe('#/sessions?outcome=closed&since=1h&cursor=c1');
    expect(parseHash(sessionsHash(filters, 'c1'))).toEqual({ page: 'sessions', filters, cursor: 'c1' });
    expect(sessionsHash()).toBe('#/sessions');
    // A session that is no recorded MCP session: the errors filtered by it.
    const h = errorsHash({ ...NO_FILTERS, session_id: 'lc-7' });
    expect(h).toBe('#/?session_id=lc-7');
    expect(parseHash(h)).toEqual({ page: 'errors', filters: { ...NO_FILTERS, session_id: 'lc-7' }, cursor: '' });
  });

  it("builds GET /v1/sessions' query, since a time before now", () => {
    const now = Date.parse('2025-08-08T12:00:00Z');
    expect(Object.fromEntries(new URLSearchParams(sessionsQuery({ outcome: 'open', since: '24h' }, 'cur', 25, now)))).toEqual({
      outcome: 'open',
      since: '2025-08-07T12:00:00.000Z',
      limit: '25',
      cursor: 'cur',
    });
    expect(sessionsQuery(none, '', 10)).toBe('limit=10');
  });
});
