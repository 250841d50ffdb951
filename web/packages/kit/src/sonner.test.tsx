import { HttpAgent, type AgentSubscriber } from '@ag-ui/client';
import type { RunErrorEvent } from '@ag-ui/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { toast, Toaster } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { problemResponse, repoFile, runError } from '../../../src/test/golden';
import { AGUIErrorCode } from './codes.js';
import type { AGUIErrorData } from './errors.js';
import { useAGUIErrorToasts, type UseAGUIErrorToastsOptions } from './sonner.js';
import type { AGUIErrorHandler } from './useAGUIErrorHandler.js';

/** The handler of the last render, for driving the subscriber from tests. */
let handler: AGUIErrorHandler;

function Probe({ options }: { options: UseAGUIErrorToastsOptions }) {
  handler = useAGUIErrorToasts(options);
  return (
    <output data-testid="state">
      {JSON.stringify({ code: handler.lastError?.code ?? null, secondsLeft: handler.secondsLeft, canRetry: handler.canRetry })}
    </output>
  );
}

/** An app: sonner's toaster, and the component using the hook, which a button unmounts. */
function App({ options }: { options: UseAGUIErrorToastsOptions }) {
  const [on, setOn] = useState(true);
  return (
    <>
      <Toaster />
      {on && <Probe options={options} />}
      <button type="button" onClick={() => setOn(false)}>
        unmount
      </button>
    </>
  );
}

function state(): { code: string | null; secondsLeft: number; canRetry: boolean } {
  return JSON.parse(screen.getByTestId('state').textContent ?? '');
}

/** The sonner toast whose title is text. */
function toastWith(text: string): HTMLElement {
  const el = screen.getByText(text).closest<HTMLElement>('[data-sonner-toast]');
  if (!el) throw new Error(`${text} is not in a toast`);
  return el;
}

function retryButton(): HTMLButtonElement {
  return screen.getByRole('button', { name: 'Retry' });
}

/** Calls a subscriber callback as HttpAgent would (the kit's callbacks need only these members). */
function runErrorEvent(event: Record<string, unknown>) {
  const params = { event: event as unknown as RunErrorEvent } as Parameters<NonNullable<AgentSubscriber['onRunErrorEvent']>>[0];
  return handler.subscriber.onRunErrorEvent?.(params);
}

function runFailed(error: Error) {
  const params = { error } as Parameters<NonNullable<AgentSubscriber['onRunFailed']>>[0];
  return handler.subscriber.onRunFailed?.(params);
}

/**
 * Lets fake time pass, in steps of at most 50ms, each in an act of its own,
 * so that what a timer sets off (a render, then sonner's zero-delay
 * timeout that shows the toast, its exit animation) happens on the way,
 * as it would in real time.
 */
function advance(ms: number) {
  for (let left = ms; left > 0; left -= 50) {
    act(() => {
      vi.advanceTimersByTime(Math.min(50, left));
    });
  }
  act(() => {
    vi.advanceTimersByTime(0);
  });
}

/** The countdown of the toast on screen (not of one leaving it). */
function timer(): HTMLElement | null {
  const live = screen
    .queryAllByRole('timer')
    .filter((t) => t.closest<HTMLElement>('[data-sonner-toast]')?.dataset.removed !== 'true');
  if (live.length > 1) throw new Error(`${live.length} countdowns on screen`);
  return live[0] ?? null;
}

afterEach(() => {
  act(() => {
    toast.dismiss();
  });
  vi.useRealTimers();
});

describe('useAGUIErrorToasts', () => {
  it("shows a permanent failure as an error, with the code's user message and the server's", async () => {
    const onRetry = vi.fn();
    render(<App options={{ onRetry }} />);
    // The RUN_ERROR triage serve sends for the default agent's "fail"
    // (cmd/triage/testdata/agui-client/failures.test.js).
    act(() => {
      runErrorEvent({
        type: 'RUN_ERROR',
        message: 'Agent echo failed',
        code: 'UPSTREAM_ERROR',
        metadata: { category: 'UPSTREAM', details: { node: 'echo' }, domain: 'tool', http_status: 502, retryable: false, session_valid: true },
      });
    });
    await screen.findByText('External service error.');
    const t = toastWith('External service error.');
    expect(t.dataset.type).toBe('error');
    expect(t.textContent).toContain('Agent echo failed');
    // Not retryable: no Retry, no countdown.
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(timer()).toBeNull();
    expect(state()).toEqual({ code: 'UPSTREAM_ERROR', secondsLeft: 0, canRetry: false });
    expect(handler.lastError?.details).toEqual({ node: 'echo' });
  });

  it('shows a transient failure as a warning that can be retried at once', async () => {
    const onRetry = vi.fn();
    render(<App options={{ onRetry }} />);
    act(() => {
      runErrorEvent(runError('events.golden')); // a bare TIMEOUT
    });
    await screen.findByText('Request timed out. Please try again.');
    expect(toastWith('Request timed out. Please try again.').dataset.type).toBe('warning');
    expect(timer()).toBeNull();
    expect(retryButton().disabled).toBe(false);
    expect(state()).toEqual({ code: 'TIMEOUT', secondsLeft: 0, canRetry: true });

    act(() => {
      fireEvent.click(retryButton());
    });
    expect(onRetry).toHaveBeenCalledTimes(1);
    const retried = onRetry.mock.calls[0]?.[0] as AGUIErrorData;
    expect(retried.code).toBe(AGUIErrorCode.TIMEOUT);
    expect(state()).toEqual({ code: null, secondsLeft: 0, canRetry: false });
  });

  it('counts down a rate limit and enables Retry at zero', async () => {
    vi.useFakeTimers();
    const onRetry = vi.fn();
    render(<App options={{ onRetry }} />);
    act(() => {
      runErrorEvent(runError('run_error_rate_limited.golden')); // retry_after 60
    });
    advance(0);
    const t = toastWith('Request rate limit exceeded. Please wait before retrying.');
    expect(t.dataset.type).toBe('warning');
    expect(timer()?.textContent).toBe('Retry in 60s');
    expect(retryButton().disabled).toBe(true);
    expect(state()).toEqual({ code: 'RATE_LIMITED', secondsLeft: 60, canRetry: false });

    // Retry does nothing before the countdown ends, by button or by call.
    fireEvent.click(retryButton());
    act(() => handler.retry());
    expect(onRetry).not.toHaveBeenCalled();

    advance(1000);
    expect(timer()?.textContent).toBe('Retry in 59s');
    advance(54_000);
    expect(timer()?.textContent).toBe('Retry in 5s');
    expect(state().secondsLeft).toBe(5);
    advance(4999);
    expect(timer()?.textContent).toBe('Retry in 1s');
    expect(retryButton().disabled).toBe(true);
    advance(1);
    expect(timer()).toBeNull();
    expect(screen.getByText('You can retry now.')).toBeTruthy();
    expect(retryButton().disabled).toBe(false);
    expect(state()).toEqual({ code: 'RATE_LIMITED', secondsLeft: 0, canRetry: true });
    // The toast stays until it is used.
    advance(60_000);
    expect(retryButton().disabled).toBe(false);

    fireEvent.click(retryButton());
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect((onRetry.mock.calls[0]?.[0] as AGUIErrorData).retryAfter).toBe(60);
    advance(1000);
    expect(screen.queryByText('Request rate limit exceeded. Please wait before retrying.')).toBeNull();
    expect(state().code).toBeNull();
  });

  it('counts down any error with a retry_after, and backs off a rate limit without one', () => {
    vi.useFakeTimers();
    render(<App options={{ onRetry: () => undefined }} />);
    act(() => {
      runErrorEvent({
        type: 'RUN_ERROR',
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service is busy. Please retry shortly.',
        metadata: { http_status: 503, retryable: true, retry_after: 3 },
      });
    });
    advance(0);
    expect(timer()?.textContent).toBe('Retry in 3s');
    expect(screen.getByText('The service is busy. Please retry shortly.')).toBeTruthy();

    // A new error replaces the shown one. RATE_LIMITED without a delay
    // counts down Triage's first backoff, 500ms: one second.
    act(() => {
      runErrorEvent({ type: 'RUN_ERROR', code: 'RATE_LIMITED', message: 'Too many requests. Please retry later.' });
    });
    advance(50);
    // The replaced toast is on its way out (sonner's exit animation).
    expect(toastWith('The service is busy. Please retry shortly.').dataset.removed).toBe('true');
    expect(timer()?.textContent).toBe('Retry in 1s');
    expect(state()).toEqual({ code: 'RATE_LIMITED', secondsLeft: 1, canRetry: false });
    advance(450);
    expect(state().canRetry).toBe(true);

    // A retry that fails again waits twice as long.
    act(() => handler.retry());
    act(() => {
      runErrorEvent({ type: 'RUN_ERROR', code: 'RATE_LIMITED', message: '' });
    });
    advance(999);
    expect(state().canRetry).toBe(false);
    advance(1);
    expect(state().canRetry).toBe(true);
    // A run that finishes resets the backoff.
    act(() => {
      handler.retry();
      handler.subscriber.onRunFinishedEvent?.({} as never);
      runErrorEvent({ type: 'RUN_ERROR', code: 'RATE_LIMITED', message: '' });
    });
    advance(499);
    expect(state().canRetry).toBe(false);
    advance(1);
    expect(state().canRetry).toBe(true);
  });

  it('stops its timers and dismisses its toast when unmounted', () => {
    vi.useFakeTimers();
    render(<App options={{ onRetry: () => undefined }} />);
    act(() => {
      runErrorEvent(runError('run_error_rate_limited.golden'));
    });
    advance(2000);
    expect(timer()?.textContent).toBe('Retry in 58s');
    fireEvent.click(screen.getByRole('button', { name: 'unmount' }));
    advance(1000); // sonner's exit animation
    expect(screen.queryByText('Request rate limit exceeded. Please wait before retrying.')).toBeNull();
    // Nothing is left ticking: a countdown that outlived its component
    // would still be rescheduling itself.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('shows nothing for a run the application aborted', () => {
    vi.useFakeTimers();
    render(<App options={{}} />);
    act(() => {
      runErrorEvent({ type: 'RUN_ERROR', code: 'abort', message: 'This operation was aborted' });
      runFailed(new DOMException('This operation was aborted', 'AbortError'));
    });
    advance(100);
    expect(screen.queryByRole('listitem')).toBeNull();
    expect(state().code).toBeNull();
  });

  it('has no Retry action without onRetry, and closes such toasts after a while', () => {
    vi.useFakeTimers();
    render(<App options={{ duration: 3000 }} />);
    act(() => {
      runErrorEvent(runError('events.golden'));
    });
    advance(0);
    expect(toastWith('Request timed out. Please try again.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(state().canRetry).toBe(true);
    advance(5000);
    expect(screen.queryByText('Request timed out. Please try again.')).toBeNull();
    expect(state().code).toBeNull();
  });

  it('dismisses a shown error when a new run starts, and on dismiss()', () => {
    vi.useFakeTimers();
    render(<App options={{ onRetry: () => undefined }} />);
    act(() => {
      runErrorEvent(runError('run_error.golden'));
    });
    advance(0);
    expect(toastWith('An error occurred processing your request.').dataset.type).toBe('error');
    act(() => {
      handler.subscriber.onRunInitialized?.({} as never);
    });
    advance(1000);
    expect(screen.queryByText('An error occurred processing your request.')).toBeNull();
    expect(state().code).toBeNull();

    act(() => {
      runErrorEvent(runError('run_error_rate_limited.golden'));
    });
    advance(0);
    act(() => handler.dismiss());
    advance(1000);
    expect(timer()).toBeNull();
    expect(state()).toEqual({ code: null, secondsLeft: 0, canRetry: false });
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** A fetch that answers each request with the next of responses. */
function fetchOf(...responses: (() => Response)[]) {
  return vi.fn(async () => {
    const next = responses.shift();
    if (!next) throw new Error('unexpected request');
    return next();
  });
}

function sse(golden: string): () => Response {
  return () => new Response(repoFile(`wire/agui/testdata/${golden}`), { headers: { 'Content-Type': 'text/event-stream' } });
}

function problem(golden: string): () => Response {
  const r = problemResponse(golden);
  return () => new Response(r.body, { status: r.status, headers: r.headers });
}

describe('useAGUIErrorToasts with @ag-ui/client HttpAgent', () => {
  it("reports a run's RUN_ERROR through runAgent's subscriber", async () => {
    const agent = new HttpAgent({ url: 'http://triage.test/v1/agents/echo/runs', fetch: fetchOf(sse('error_sequence.golden')) });
    render(<App options={{ onRetry: () => undefined }} />);
    // A RUN_ERROR is not a rejection: runAgent resolves.
    await act(async () => {
      await agent.runAgent({}, handler.subscriber);
    });
    await screen.findByText('Request rate limit exceeded. Please wait before retrying.');
    expect(timer()?.textContent).toBe('Retry in 60s');
    expect(handler.lastError).toMatchObject({ code: 'RATE_LIMITED', source: 'gateway', retryAfter: 60, origin: 'run_error' });
  });

  it('reports a refused run (problem+json) through onRunFailed once, and retries it with onRetry', async () => {
    vi.useFakeTimers();
    const fetch = fetchOf(problem('rate_limited.golden'), problem('rate_limited.golden'));
    const agent = new HttpAgent({ url: 'http://triage.test/v1/agents/echo/runs', fetch });
    const shown = vi.spyOn(toast, 'warning');
    const toastIds = () => new Set(shown.mock.calls.map((c) => c[1]?.id));
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // HttpAgent's "Agent execution failed"
    // ignore is asked once about each error reported.
    const ignore = vi.fn((_: AGUIErrorData) => false);
    render(<App options={{ onRetry: () => agent.runAgent(), ignore }} />);
    const subscription = agent.subscribe(handler.subscriber);
    await act(async () => {
      await expect(agent.runAgent()).rejects.toMatchObject({ status: 429 });
    });
    advance(0);
    toastWith('Request rate limit exceeded. Please wait before retrying.');
    expect(handler.lastError).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 30, origin: 'problem', details: { limit: 60, window: '1m' } });
    expect(timer()?.textContent).toBe('Retry in 30s');
    expect(toastIds().size).toBe(1);
    expect(ignore).toHaveBeenCalledTimes(1);

    // When the countdown ends, Retry runs the agent again. It is refused
    // again, and runAgent rejects with the error onRunFailed has already
    // reported: one more toast, not two.
    advance(30_000);
    fireEvent.click(retryButton());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10);
    });
    advance(50);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(timer()?.textContent).toBe('Retry in 30s');
    expect(toastIds().size).toBe(2);
    expect(ignore).toHaveBeenCalledTimes(2);
    subscription.unsubscribe();
  });

  it('reports a network failure as a transient TRANSPORT_ERROR', async () => {
    const agent = new HttpAgent({
      url: 'http://triage.test/v1/agents/echo/runs',
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    render(<App options={{ onRetry: () => undefined }} />);
    await act(async () => {
      await agent.runAgent({}, handler.subscriber).catch(() => undefined);
    });
    await screen.findByText('Could not reach a required service. Please try again.');
    expect(toastWith('Could not reach a required service. Please try again.').dataset.type).toBe('warning');
    expect(handler.lastError?.code).toBe(AGUIErrorCode.TRANSPORT_ERROR);
    expect(retryButton().disabled).toBe(false);
  });
});
