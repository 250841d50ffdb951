import { describe, expect, it } from 'vitest';

import { errorHash, errorsHash, listQuery, parseHash, playgroundHash } from './route';

describe('routes', () => {
  it('reads the pages from the hash', () => {
    const none = { agent_id: '', error_type: '', severity: '', since: '' };
    expect(parseHash('')).toEqual({ page: 'errors', filters: none, cursor: '' });
    expect(parseHash('#/')).toEqual({ page: 'errors', filters: none, cursor: '' });
    expect(parseHash('#/?agent_id=query_engine&severity=high&since=24h&cursor=abc')).toEqual({
      page: 'errors',
      filters: { ...none, agent_id: 'query_engine', severity: 'high', since: '24h' },
      cursor: 'abc',
    });
    // A since that is not a preset is no filter.
    expect(parseHash('#/?since=2025-01-01')).toMatchObject({ filters: none });
    expect(parseHash('#/errors/err_8c3332123a9303c3')).toEqual({ page: 'error', id: 'err_8c3332123a9303c3' });
    expect(parseHash('#/playground?agent=echo')).toEqual({ page: 'playground', agent: 'echo' });
    expect(parseHash('#/nope')).toEqual({ page: 'missing', hash: '/nope' });
  });

  it('writes hashes that read back', () => {
    const filters = { agent_id: 'a b', error_type: 'query_error', severity: '', since: '7d' };
    expect(parseHash(errorsHash(filters, 'c1'))).toEqual({ page: 'errors', filters, cursor: 'c1' });
    expect(errorsHash({ agent_id: '', error_type: '', severity: '', since: '' })).toBe('#/');
    expect(parseHash(errorHash('err:1/2'))).toEqual({ page: 'error', id: 'err:1/2' });
    expect(parseHash(playgroundHash('echo'))).toEqual({ page: 'playground', agent: 'echo' });
  });

  it("builds GET /v1/errors' query, since a time before now", () => {
    const now = Date.parse('2025-08-08T12:00:00Z');
    const q = new URLSearchParams(
      listQuery({ agent_id: 'query_engine', error_type: '', severity: 'high', since: '1h' }, 'cur', 25, now),
    );
    expect(Object.fromEntries(q)).toEqual({
      agent_id: 'query_engine',
      severity: 'high',
      since: '2025-08-08T11:00:00.000Z',
      limit: '25',
      cursor: 'cur',
    });
    expect(listQuery({ agent_id: '', error_type: '', severity: '', since: '' }, '', 10)).toBe('limit=10');
  });
});
