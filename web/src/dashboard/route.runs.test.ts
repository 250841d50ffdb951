import { describe, expect, it } from 'vitest';

import { overviewHash, parseHash, runHash, runsHash, runsQuery } from './route';

const none = { agent_id: '', outcome: '', code: '', since: '' };

describe('the runs and overview routes', () => {
  it('reads the runs, a run and the overview from the hash', () => {
    expect(parseHash('#/runs')).toEqual({ page: 'runs', filters: none, cursor: '' });
    expect(parseHash('#/runs?agent_id=echo&outcome=failed&code=RATE_LIMITED&since=7d&cursor=abc')).toEqual({
      page: 'runs',
      filters: { agent_id: 'echo', outcome: 'failed', code: 'RATE_LIMITED', since: '7d' },
      cursor: 'abc',
    });
    // An outcome or a since that is not one is no filter.
    expect(parseHash('#/runs?outcome=lost&since=2025-01-01')).toEqual({ page: 'runs', filters: none, cursor: '' });
    expect(parseHash('#/runs/run-1')).toEqual({ page: 'run', id: 'run-1' });
    expect(parseHash('#/runs/a%2Fb%20c')).toEqual({ page: 'run', id: 'a/b c' });
    expect(parseHash('#/runs/a/b')).toEqual({ page: 'missing', hash: '/runs/a/b' });
    expect(parseHash('#/overview')).toEqual({ page: 'overview', range: '24h' });
    expect(parseHash('#/overview?range=30d')).toEqual({ page: 'overview', range: '30d' });
    expect(parseHash('#/overview?range=1y')).toEqual({ page: 'overview', range: '24h' });
  });

  it('writes hashes that read back', () => {
    const filters = { agent_id: 'a b', outcome: 'failed', code: '', since: '1h' };
    expect(runsHash(filters, 'c1')).toBe('#/runs?agent_id=a+b&outcome=failed&since=1h&cursor=c1');
    expect(parseHash(runsHash(filters, 'c1'))).toEqual({ page: 'runs', filters, cursor: 'c1' });
    expect(runsHash(none)).toBe('#/runs');
    // The record page links to a run with this hash.
    expect(runHash('run-1')).toBe('#/runs/run-1');
    expect(parseHash(runHash('r:1/2 ü'))).toEqual({ page: 'run', id: 'r:1/2 ü' });
    expect(overviewHash()).toBe('#/overview');
    expect(parseHash(overviewHash('7d'))).toEqual({ page: 'overview', range: '7d' });
  });

  it("builds GET /v1/runs' query, since a time before now", () => {
    const now = Date.parse('2025-08-08T12:00:00Z');
    const q = new URLSearchParams(runsQuery({ agent_id: 'echo', outcome: 'failed', code: 'TIMEOUT', since: '24h' }, 'cur', 25, now));
    expect(Object.fromEntries(q)).toEqual({
      agent_id: 'echo',
      outcome: 'failed',
      code: 'TIMEOUT',
      since: '2025-08-07T12:00:00.000Z',
      limit: '25',
      cursor: 'cur',
    });
    expect(runsQuery(none, '', 10)).toBe('limit=10');
  });
});
