import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { Jobs } from './ErrorPage';
import { formatTime } from './format';
import { JOB_STATES, jobFinished, type Job } from './types';

const RUN_AT = '2025-08-08T12:30:00Z';

function job(over: Partial<Job>): Job {
  return {
    id: 1,
    tenant: 'acme',
    kind: 'retry',
    error_id: 'err_0123456789abcdef',
    payload: {},
    state: 'scheduled',
    run_at: RUN_AT,
    attempt: 0,
    max_attempts: 5,
    ...over,
  };
}

/** The cells of job's row: job, state, attempts, next attempt, history. */
function row(j: Job): HTMLElement[] {
  const { container } = render(<Jobs jobs={[j]} />);
  const tr = container.querySelector(`tr[data-job-state="${j.state}"]`);
  expect(tr).not.toBeNull();
  return within(tr as HTMLElement).getAllByRole('cell');
}

describe('job states', () => {
  it('are River’s, and three of them finished', () => {
    expect(JOB_STATES.filter(jobFinished)).toEqual(['completed', 'cancelled', 'discarded']);
  });

  it('each have a badge of their own', () => {
    for (const state of JOB_STATES) {
      const [, badge] = row(job({ state }));
      expect(badge?.querySelector('.badge')?.className).toBe(`badge job-${state}`);
    }
  });
});

describe('the jobs table', () => {
  it('shows run_at as the next attempt of a scheduled or retryable job, and none once finished', () => {
    for (const state of ['scheduled', 'retryable', 'available'] as const) {
      const next = row(job({ state }))[3];
      expect(next?.textContent).toBe(formatTime(RUN_AT));
      expect(next?.querySelector('time')?.getAttribute('datetime')).toBe(RUN_AT);
    }
    expect(row(job({ state: 'running', attempt: 1 }))[3]?.textContent).toBe('now');
    for (const state of ['completed', 'cancelled', 'discarded'] as const) {
      expect(row(job({ state, attempt: 1 }))[3]?.textContent).toBe('none');
    }
  });

  it('lists failed attempts without a duration, and the successful one with its own', () => {
    const cells = row(
      job({
        state: 'completed',
        attempt: 2,
        attempts: [
          { attempt: 1, at: '2025-08-08T12:30:01Z', error: 'HTTP 503 from the callback' },
          { attempt: 2, at: '2025-08-08T12:30:06Z', duration_ns: 42_000_000 },
        ],
      }),
    );
    expect(cells[2]?.textContent).toBe('2 of 5');
    const items = within(cells[4] as HTMLElement).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      `${formatTime('2025-08-08T12:30:01Z')}: HTTP 503 from the callback`,
      `${formatTime('2025-08-08T12:30:06Z')}, 42 ms: succeeded`,
    ]);
    expect(items.map((li) => (li as HTMLLIElement).value)).toEqual([1, 2]);
    expect(items[0]?.querySelector('.problem-text')).not.toBeNull();
  });

  it('shows a cancelled job’s reason', () => {
    const cells = row(
      job({
        state: 'cancelled',
        attempt: 1,
        attempts: [{ attempt: 1, at: '2025-08-08T12:30:01Z', error: 'agent "query_engine" has no callback URL' }],
      }),
    );
    expect(screen.getByText('cancelled')).toBeTruthy();
    expect(cells[4]?.textContent).toMatch(/has no callback URL$/);
    expect(cells[4]?.textContent).not.toMatch(/succeeded/);
  });

  it('shows the attempt in progress, a job not run yet, and one whose earlier attempts were not kept', () => {
    const running = row(
      job({ state: 'running', attempt: 2, attempts: [{ attempt: 1, at: '2025-08-08T12:30:01Z', error: 'timeout' }] }),
    )[4] as HTMLElement;
    expect(within(running).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      `${formatTime('2025-08-08T12:30:01Z')}: timeout`,
      'running',
    ]);
    expect(row(job({ state: 'scheduled' }))[4]?.textContent).toBe('not run yet');
    expect(row(job({ state: 'available', attempt: 2 }))[4]?.textContent).toBe('2 earlier attempts, not recorded');
  });

  it('says when there are none', () => {
    render(<Jobs jobs={[]} />);
    expect(screen.getByText('No jobs: nothing was scheduled for this error.')).toBeTruthy();
    expect(screen.queryByText(/Older jobs are not shown/)).toBeNull();
  });
});
