import type { AgentSubscriber } from '@ag-ui/client';
import type { RunErrorEvent } from '@ag-ui/core';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { runError } from '../../../src/test/golden';
import { AGUIErrorAlert } from './alert.js';
import { parseProblem } from './errors.js';
import { useAGUIErrorHandler, type AGUIErrorHandler, type UseAGUIErrorHandlerOptions } from './useAGUIErrorHandler.js';

// The hook alone keeps state and shows nothing; AGUIErrorAlert shows it in
// the page. (Its toasts, through sonner, are sonner.test.tsx's.)

let handler: AGUIErrorHandler;

/** Reads a file of this package, by its path from src/. */
const here = dirname(fileURLToPath(import.meta.url));
const own = (path: string) => readFileSync(join(here, path), 'utf8');

function Page({ options }: { options: UseAGUIErrorHandlerOptions }) {
  handler = useAGUIErrorHandler(options);
  return <AGUIErrorAlert handler={handler} />;
}

function runErrorEvent(event: Record<string, unknown>) {
  const params = { event: event as unknown as RunErrorEvent } as Parameters<NonNullable<AgentSubscriber['onRunErrorEvent']>>[0];
  return handler.subscriber.onRunErrorEvent?.(params);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('useAGUIErrorHandler state', () => {
  it('keeps a failure, renders nothing by itself, and needs no toast library', () => {
    function Bare() {
      handler = useAGUIErrorHandler();
      return null;
    }
    const { container } = render(<Bare />);
    act(() => {
      runErrorEvent(runError('run_error.golden'));
    });
    expect(handler.lastError?.code).toBe('AGENT_EXECUTION_ERROR');
    expect(handler.errorId).toMatch(/^triage-error-/);
    expect(handler.countingDown).toBe(false);
    expect(handler.canRetry).toBe(false);
    expect(container.innerHTML).toBe('');
    // The hook's module imports no toast library.
    const source = own('useAGUIErrorHandler.tsx');
    expect(source).not.toMatch(/from 'sonner'/);
  });

  it('gives each report a new errorId, and clears it on dismiss', () => {
    render(<Page options={{}} />);
    act(() => handler.report(parseProblem({ code: 'TIMEOUT', status: 504 })));
    const first = handler.errorId;
    act(() => handler.report(parseProblem({ code: 'TIMEOUT', status: 504 })));
    expect(handler.errorId).not.toBe(first);
    act(() => handler.dismiss());
    expect(handler.errorId).toBeNull();
    expect(handler.lastError).toBeNull();
  });
});

describe('AGUIErrorAlert', () => {
  it('shows a permanent failure as an error alert, without Retry', () => {
    render(<Page options={{ onRetry: () => undefined }} />);
    act(() => {
      runErrorEvent({
        type: 'RUN_ERROR',
        message: 'Agent echo failed',
        code: 'UPSTREAM_ERROR',
        metadata: { http_status: 502, retryable: false },
      });
    });
    const alert = screen.getByRole('alert');
    expect(alert.dataset.tone).toBe('error');
    expect(alert.dataset.triageError).toBe('UPSTREAM_ERROR');
    expect(alert.textContent).toContain('External service error.');
    expect(alert.textContent).toContain('Agent echo failed');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('counts a rate limit down with Retry disabled, then retries', () => {
    vi.useFakeTimers();
    const onRetry = vi.fn();
    render(<Page options={{ onRetry }} />);
    act(() => {
      runErrorEvent(runError('run_error_rate_limited.golden'));
    });
    const alert = screen.getByRole('alert');
    expect(alert.dataset.tone).toBe('warning');
    const seconds = handler.secondsLeft;
    expect(seconds).toBeGreaterThan(0);
    expect(screen.getByRole('timer').textContent).toBe(`Retry in ${seconds}s`);
    const retry = screen.getByRole<HTMLButtonElement>('button', { name: 'Retry' });
    expect(retry.disabled).toBe(true);
    expect(retry.className).toBe('triage-retry');
    fireEvent.click(retry);
    expect(onRetry).not.toHaveBeenCalled();
    act(() => {
      vi.advanceTimersByTime(seconds * 1000);
    });
    expect(screen.queryByRole('timer')).toBeNull();
    expect(alert.textContent).toContain('You can retry now.');
    expect(retry.disabled).toBe(false);
    fireEvent.click(retry);
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("ships CSS that makes a disabled Retry look disabled, in the alert and in sonner's toasts", () => {
    const css = own('../styles.css');
    const rule = /([^{}]+)\{([^}]*)\}/g;
    const disabled = [...css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(rule)].filter(([, selector]) =>
      selector?.includes('.triage-retry:disabled'),
    );
    expect(disabled.length).toBe(1);
    const [, selector = '', body = ''] = disabled[0] ?? [];
    expect(selector).toContain('[data-sonner-toast] [data-button].triage-retry:disabled');
    expect(body).toMatch(/opacity:\s*0\.5/);
    expect(body).toMatch(/cursor:\s*not-allowed/);
  });
});
