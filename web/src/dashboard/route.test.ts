import { describe, expect, it } from 'vitest';

import {
  NO_FILTERS,
  countsQuery,
  errorHash,
  errorsHash,
  listQuery,
  parseHash,
  playgroundHash,
  sparkRange,
  type ErrorFilters,
} from './route';

describe('routes', () => {
  it('reads the pages from the hash', () => {
    const none = NO_FILTERS;
    expect(parseHash('')).toEqual({ page: 'errors', filters: none, cursor: '' });
    expect(parseHash('#/')).toEqual({ page: 'errors', filters: none, cursor: '' });
    expect(parseHash('#/?agent_id=query_engine&severity=high&since=24h&cursor=abc')).toEqual({
      page: 'errors',
      filters: { ...none, agent_id: 'query_engine', severity: 'high', since: '24h' },
      cursor: 'abc',
    });
    expect(
      parseHash('#/?q=timed%20out&status=regressed&environment=prod&release=2.1.0%2Bb7&sort=count&error_type=query_error'),
    ).toEqual({
      page: 'errors',
      filters: {
        ...none,
        q: 'timed out',
        status: 'regressed',
        environment: 'prod',
        release: '2.1.0+b7',
        sort: 'count',
        error_type: 'query_error',
      },
      cursor: '',
    });
    // A since that is not a preset, a sort or a status the API does not
    // have, are no filter; an unknown parameter is ignored.
    expect(parseHash('#/?since=2025-01-01&sort=random&status=fixed&colour=red')).toMatchObject({ filters: none });
    expect(parseHash('#/?sort=last_seen')).toMatchObject({ filters: none });
    expect(parseHash('#/errors/err_8c3332123a9303c3')).toEqual({ page: 'error', id: 'err_8c3332123a9303c3' });
    expect(parseHash('#/playground?agent=echo')).toEqual({ page: 'playground', agent: 'echo' });
    expect(parseHash('#/nope')).toEqual({ page: 'missing', hash: '/nope' });
  });

  it('writes hashes that read back', () => {
    const filters: ErrorFilters = {
      q: 'db_timeout "x" & y',
      status: 'unresolved',
      session_id: 'S-1 &x',
      agent_id: 'a b',
      error_type: 'query_error',
      severity: '',
      environment: 'prod',
      release: 'v1.2/3?#',
      since: '7d',
      sort: 'first_seen',
    };
    expect(parseHash(errorsHash(filters, 'c1'))).toEqual({ page: 'errors', filters, cursor: 'c1' });
    expect(errorsHash(NO_FILTERS)).toBe('#/');
    expect(errorsHash({ ...NO_FILTERS, sort: 'count' })).toBe('#/?sort=count');
    expect(parseHash(errorHash('err:1/2'))).toEqual({ page: 'error', id: 'err:1/2' });
    expect(parseHash(playgroundHash('echo'))).toEqual({ page: 'playground', agent: 'echo' });
  });

  it("builds GET /v1/errors' query, since a time before now", () => {
    const now = Date.parse('2025-08-08T12:00:00Z');
    const q = new URLSearchParams(
      listQuery({ ...NO_FILTERS, agent_id: 'query_engine', severity: 'high', since: '1h' }, 'cur', 25, now),
    );
    expect(Object.fromEntries(q)).toEqual({
      agent_id: 'query_engine',
      severity: 'high',
      since: '2025-08-08T11:00:00.000Z',
      limit: '25',
      cursor: 'cur',
    });
    expect(listQuery(NO_FILTERS, '', 10)).toBe('limit=10');
    // Every filter, the search and the sort; by count with a since, the
    // count of that window.
    const all = new URLSearchParams(
      listQuery(
        { q: 'timed out', status: 'ignored', agent_id: 'a', error_type: 'query_error', severity: 'low', environment: 'prod', release: '1.2', session_id: 'S1', since: '24h', sort: 'count' },
        '',
        25,
        now,
      ),
    );
    expect(Object.fromEntries(all)).toEqual({
      q: 'timed out',
      status: 'ignored',
      agent_id: 'a',
      error_type: 'query_error',
      severity: 'low',
      environment: 'prod',
      release: '1.2',
      session_id: 'S1',
      sort: 'count',
      since: '2025-08-07T12:00:00.000Z',
      window: '24h',
      limit: '25',
    });
    // Without a since, the count is every occurrence's: no window.
    expect(new URLSearchParams(listQuery({ ...NO_FILTERS, sort: 'count' }, '', 5)).has('window')).toBe(false);
  });

  it("builds GET /v1/counts' query for a page's sparklines", () => {
    const now = Date.parse('2025-08-08T12:34:56Z');
    const q = new URLSearchParams(countsQuery(['err_a', 'err_b'], '24h', now));
    expect(q.getAll('error_id')).toEqual(['err_a', 'err_b']);
    expect(q.get('by')).toBe('record');
    expect(q.get('limit')).toBe('2');
    // 24 whole hours, the current one last.
    expect(q.get('bucket')).toBe('hour');
    expect(q.get('since')).toBe('2025-08-07T13:00:00.000Z');
    // The same all the hour long.
    expect(countsQuery(['err_a'], '24h', Date.parse('2025-08-08T12:00:00Z'))).toBe(
      countsQuery(['err_a'], '24h', Date.parse('2025-08-08T12:59:59Z')),
    );
    // A range under a day is a day; 30 days and any time are by day.
    expect(sparkRange('1h')).toEqual(sparkRange('24h'));
    expect(sparkRange('7d')).toMatchObject({ bucket: 'hour', label: 'the last 7 days' });
    expect(sparkRange('')).toMatchObject({ bucket: 'day', label: 'the last 30 days' });
    const days = new URLSearchParams(countsQuery(['err_a'], '', now));
    expect(days.get('bucket')).toBe('day');
    expect(days.get('since')).toBe('2025-07-10T00:00:00.000Z');
  });
});
