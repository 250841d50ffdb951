import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { Bars, Group } from './ErrorPage';
import {
  attemptRange,
  bars,
  changeOf,
  contradiction,
  countsQuery,
  defaultRange,
  describeState,
  groupOccurrences,
  originOf,
  reportIdentity,
  runHash,
  traceIdOf,
  type Counts,
  type StatusForm,
} from './record';
import type { Feedback, Occurrence } from './types';

const AT = Date.parse('2026-12-02T12:00:00Z');

/** An occurrence of a report with message msg, received i minutes after AT, with context ctx. */
function occ(i: number, msg = 'query timed out', ctx: Record<string, unknown> = {}, attempt = 1): Occurrence {
  const t = new Date(AT + i * 60_000).toISOString();
  return {
    error_id: 'err_0123456789abcdef',
    query_id: 'q_1',
    agent_id: 'sql_agent',
    error_type: 'query_error',
    severity: 'medium',
    next_action: 'resume',
    attempt,
    reported_at: t,
    received_at: t,
    report: {
      agent_id: 'sql_agent',
      timestamp: t,
      status: 'error',
      data: { message: msg, query_id: 'q_1', error_code: 'DB_TIMEOUT', context: ctx },
    } as Occurrence['report'],
    feedback: {} as Feedback,
    actions: [],
  };
}

describe('grouping identical occurrences', () => {
  it('makes 153 identical reports one group, whatever their time, and keeps them the latest first', () => {
    const occs = Array.from({ length: 153 }, (_, i) => occ(153 - i, 'query timed out', {}, 153 - i));
    const groups = groupOccurrences(occs);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.occurrences).toHaveLength(153);
    expect(groups[0]?.occurrences[0]).toBe(occs[0]);
    expect(attemptRange(groups[0]!)).toBe('1–153');
  });

  it('tells different reports apart, interleaved or not, each group where its latest stands', () => {
    const occs = [occ(5, 'a'), occ(4, 'b'), occ(3, 'a'), occ(2, 'a', { table: 'sales' }), occ(1, 'b')];
    const groups = groupOccurrences(occs);
    expect(groups.map((g) => g.occurrences.map((o) => o.received_at))).toEqual([
      [occs[0]!.received_at, occs[2]!.received_at],
      [occs[1]!.received_at, occs[4]!.received_at],
      [occs[3]!.received_at],
    ]);
    expect(attemptRange(groups[2]!)).toBe('1');
  });

  it('ignores the ids of a run, session or trace, and the order of members, but not the rest of the context', () => {
    const a = occ(1, 'x', { door: 'agui', run_id: 'r1', trace_id: 't1', traceparent: 'tp1', table: 'sales', n: 1 });
    const b = occ(2, 'x', { n: 1, table: 'sales', run_id: 'r2', door: 'agui', thread_id: 'th', session_id: 's', call_id: 'c' });
    const c = occ(3, 'x', { door: 'agui', run_id: 'r3', table: 'orders', n: 1 });
    expect(reportIdentity(a)).toBe(reportIdentity(b));
    expect(reportIdentity(a)).not.toBe(reportIdentity(c));
  });

  it('shows a group as one row, ×N, which expands to a row each', () => {
    const occs = Array.from({ length: 12 }, (_, i) => occ(12 - i));
    const [g] = groupOccurrences(occs);
    const { container } = render(
      <table>
        <Group g={g!} />
      </table>,
    );
    expect(container.querySelectorAll('tr')).toHaveLength(1);
    const button = screen.getByRole('button', { name: /×12/ });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(container.querySelectorAll('tr.member')).toHaveLength(12);
    fireEvent.click(button);
    expect(container.querySelectorAll('tr.member')).toHaveLength(0);
  });

  it('shows a single occurrence without ×1, with its run linked', () => {
    const [g] = groupOccurrences([occ(1, 'x', { door: 'agui', run_id: 'run-42' })]);
    render(
      <table>
        <Group g={g!} />
      </table>,
    );
    expect(screen.queryByRole('button')).toBeNull();
    expect(screen.getByRole('link', { name: /run-42/ }).getAttribute('href')).toBe('#/runs/run-42');
  });
});

describe('where an occurrence came from', () => {
  it('reads the run, session, tool and trace of a door’s report', () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(originOf(occ(1, 'x', { door: 'agui', run_id: 'r/1', thread_id: 't', traceparent: tp }).report)).toEqual({
      door: 'agui',
      runId: 'r/1',
      threadId: 't',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
    expect(originOf(occ(1, 'x', { door: 'mcp', session_id: 'S1', tool: 'sessions_prompt', trace_id: 'abc' }).report)).toEqual({
      door: 'mcp',
      sessionId: 'S1',
      tool: 'sessions_prompt',
      traceId: 'abc',
    });
    expect(originOf(null)).toEqual({ door: '' });
    expect(originOf(occ(1, 'x', { run_id: 42 }).report)).toEqual({ door: '' });
    expect(runHash('r/1 x')).toBe('#/runs/r%2F1%20x');
    expect(traceIdOf('not-a-traceparent')).toBeUndefined();
  });
});

describe('contradictions', () => {
  const fb = (user_message: string, retryable: boolean) => ({ user_message, fault: { code: 'PAYLOAD_TOO_LARGE', http_status: 413, retryable } }) as Feedback;
  it('are a message inviting a retry beside a fault that is not retryable', () => {
    expect(contradiction(fb('This service is temporarily unavailable; please try again in a few minutes.', false))).toMatch(/not retryable/);
    expect(contradiction(fb('Something went wrong; please try again in a little while.', false))).toMatch(/Contradiction/);
  });
  it('are not a retryable fault’s invitation, nor a request to correct and try again', () => {
    expect(contradiction(fb('This service is temporarily unavailable; please try again in a few minutes.', true))).toBeNull();
    expect(contradiction(fb('The date isn’t valid. Please correct it and try again.', false))).toBeNull();
    expect(contradiction(fb('This request couldn’t be completed, and sending it again as it is would fail the same way.', false))).toBeNull();
  });
});

describe('the status form', () => {
  const form: StatusForm = { action: 'resolve', release: ' 1.4.2 ', seconds: 3600, count: 10, windowSeconds: 0, assignee: ' ana ', note: '  ' };
  it('asks for each action’s change, with the note when there is one', () => {
    expect(changeOf(form)).toEqual({ status: 'resolved' });
    expect(changeOf({ ...form, action: 'resolve_in_release', note: 'fixed by #12' })).toEqual({
      status: 'resolved',
      resolution: { in_release: '1.4.2' },
      note: 'fixed by #12',
    });
    expect(changeOf({ ...form, action: 'resolve_next_release' })).toEqual({ status: 'resolved', resolution: { in_next_release: true } });
    expect(changeOf({ ...form, action: 'ignore' })).toEqual({ status: 'ignored' });
    expect(changeOf({ ...form, action: 'ignore_for' })).toEqual({ status: 'ignored', ignore: { seconds: 3600 } });
    expect(changeOf({ ...form, action: 'ignore_until_count' })).toEqual({ status: 'ignored', ignore: { count: 10 } });
    expect(changeOf({ ...form, action: 'ignore_until_count', windowSeconds: 3600 })).toEqual({
      status: 'ignored',
      ignore: { count: 10, window_seconds: 3600 },
    });
    expect(changeOf({ ...form, action: 'unresolve' })).toEqual({ status: 'unresolved' });
    expect(changeOf({ ...form, action: 'assign' })).toEqual({ assignee: 'ana' });
    expect(changeOf({ ...form, action: 'assign', assignee: '' })).toEqual({ assignee: '' });
  });
  it('says a state in words', () => {
    expect(describeState({ status: 'resolved', resolution: { in_release: '1.4.2' } })).toBe('resolved in 1.4.2');
    expect(describeState({ status: 'resolved', resolution: { in_release: '1.5', in_next_release: true } })).toBe(
      'resolved in the next release (1.5)',
    );
    expect(describeState({ status: 'ignored', ignore: { count: 12, seen: 2 } })).toBe('ignored until 12 more (10 to go)');
    expect(describeState({ status: 'ignored', ignore: { count: 5, window_ns: 3600e9 } })).toBe('ignored until 5 more within 1 hour');
    expect(describeState({ status: 'ignored', ignore: { until: '2026-12-03T00:00:00Z' } })).toBe('ignored until 2026-12-03T00:00:00Z');
    expect(describeState({ status: 'unresolved' })).toBe('unresolved');
  });
});

describe('the chart', () => {
  it('opens on the shortest range that holds the first occurrence, by hour, or by day for 30 days', () => {
    expect(defaultRange(new Date(AT - 3600_000).toISOString(), AT)).toBe('24h');
    expect(defaultRange(new Date(AT - 3 * 86400_000).toISOString(), AT)).toBe('7d');
    expect(defaultRange(new Date(AT - 90 * 86400_000).toISOString(), AT)).toBe('30d');
    expect(new URLSearchParams(countsQuery('24h', AT)).get('bucket')).toBe('hour');
    expect(new URLSearchParams(countsQuery('7d', AT)).get('since')).toBe(new Date(AT - 7 * 86400_000).toISOString());
    expect(new URLSearchParams(countsQuery('30d', AT)).get('bucket')).toBe('day');
  });

  const counts: Counts = {
    by: 'record',
    bucket: 'hour',
    since: '2026-12-02T10:00:00Z',
    until: '2026-12-02T13:00:00Z',
    series: [{ key: 'err_0123456789abcdef', total: 155, counts: [2, 0, 153] }],
  };

  it('has a bar per bucket from since', () => {
    expect(bars(counts).map((b) => [b.start.toISOString(), b.count])).toEqual([
      ['2026-12-02T10:00:00.000Z', 2],
      ['2026-12-02T11:00:00.000Z', 0],
      ['2026-12-02T12:00:00.000Z', 153],
    ]);
    expect(bars({ ...counts, bucket: 'day', series: [{ key: 'k', total: 1, counts: [0, 1] }] })[1]?.start.toISOString()).toBe(
      '2026-12-03T10:00:00.000Z',
    );
    expect(bars({ ...counts, series: [] })).toEqual([]);
  });

  it('draws the non-empty buckets, the highest full height, and says it in words', () => {
    const { container } = render(<Bars counts={counts} />);
    const rects = container.querySelectorAll('rect');
    expect(rects).toHaveLength(2);
    expect(Number(rects[1]?.getAttribute('height'))).toBeCloseTo(38);
    expect(Number(rects[0]?.getAttribute('height'))).toBeCloseTo((2 / 153) * 38);
    const img = within(container).getByRole('img');
    expect(img.getAttribute('aria-label')).toMatch(/^155 occurrences from .* by hour; at most 153 in one hour\.$/);
  });
});
