import type { AgentSubscriber } from '@ag-ui/client';
import { act, render, screen } from '@testing-library/react';
import { toast, Toaster } from 'sonner';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { parseUserErrorEvent } from './notice.js';
import { useAGUIErrorToasts, type UseAGUIErrorToastsOptions } from './sonner.js';
import { useAGUIErrorHandler, type AGUIErrorHandler } from './useAGUIErrorHandler.js';

// The CUSTOM event triage serve sends for the default agent's
// "warn with SERVICE_UNAVAILABLE after 5s" (cmd/triage/testdata/agui-client/notice.test.js).
const warned = {
  type: 'CUSTOM',
  name: 'user_error',
  value: {
    id: '5d0c1c52-5a8e-4f0f-9d55-0c1f3d5f6a10',
    timestamp: '2026-11-26T07:00:00.000Z',
    type: 'user_error',
    data: { message: 'Service temporarily unavailable. Please try again later.', code: 503, domain: 'system', retryable: true, retry_after: 5 },
  },
};

describe('parseUserErrorEvent', () => {
  it("reads seed 001's payload", () => {
    expect(parseUserErrorEvent(warned)).toEqual({
      id: warned.value.id,
      message: 'Service temporarily unavailable. Please try again later.',
      code: 503,
      domain: 'system',
      retryable: true,
      retryAfter: 5,
    });
    const bare = { name: 'user_error', value: { type: 'user_error', data: { message: 'A source was skipped.', code: null } } };
    expect(parseUserErrorEvent(bare)).toEqual({ message: 'A source was skipped.', code: null, domain: 'system', retryable: false });
  });

  it('refuses what is not a whole notice', () => {
    const withData = (data: unknown) => ({ name: 'user_error', value: { type: 'user_error', data } });
    expect(parseUserErrorEvent({ name: 'progress', value: warned.value })).toBeNull();
    expect(parseUserErrorEvent({ name: 'user_error', value: 'oops' })).toBeNull();
    expect(parseUserErrorEvent({ name: 'user_error', value: { ...warned.value, type: 'thought_trace' } })).toBeNull();
    expect(parseUserErrorEvent(withData({ message: '  ' }))).toBeNull();
    expect(parseUserErrorEvent(withData({ message: 'x', code: 42 }))).toBeNull();
    expect(parseUserErrorEvent(withData({ message: 'x', code: 503.5 }))).toBeNull();
    expect(parseUserErrorEvent(null)).toBeNull();
    // A retry delay past a day is read as a day, as the Go reader caps it.
    expect(parseUserErrorEvent(withData({ message: 'x', retry_after: 1e9 }))?.retryAfter).toBe(86_400);
  });
});

let handler: AGUIErrorHandler;

function Probe({ options }: { options: UseAGUIErrorToastsOptions }) {
  handler = useAGUIErrorToasts(options);
  return <output data-testid="state">{handler.lastError?.code ?? 'none'}</output>;
}

/** The hook alone, with no toasts: its notice is state. */
function Bare() {
  handler = useAGUIErrorHandler();
  return <output data-testid="notice">{handler.lastNotice?.message ?? 'none'}</output>;
}

function customEvent(event: Record<string, unknown>) {
  const params = { event } as unknown as Parameters<NonNullable<AgentSubscriber['onCustomEvent']>>[0];
  return handler.subscriber.onCustomEvent?.(params);
}

afterEach(() => {
  act(() => {
    toast.dismiss();
  });
});

describe('useAGUIErrorHandler notices', () => {
  it('keeps the last notice, apart from the error, until a new run starts', () => {
    render(<Bare />);
    act(() => {
      customEvent(warned);
    });
    expect(screen.getByTestId('notice').textContent).toBe('Service temporarily unavailable. Please try again later.');
    expect(handler.lastNotice).toMatchObject({ code: 503, retryable: true, retryAfter: 5 });
    expect(handler.lastError).toBeNull();
    expect(document.querySelectorAll('[data-sonner-toast]').length).toBe(0);
    act(() => {
      handler.subscriber.onRunInitialized?.({} as never);
    });
    expect(screen.getByTestId('notice').textContent).toBe('none');
  });
});

describe('useAGUIErrorToasts notices', () => {
  it('shows a notice as a toast without making it the error', async () => {
    render(
      <>
        <Toaster />
        <Probe options={{}} />
      </>,
    );
    act(() => {
      customEvent(warned);
    });
    const title = await screen.findByText('Service temporarily unavailable. Please try again later.');
    const t = title.closest<HTMLElement>('[data-sonner-toast]');
    expect(t?.dataset.type).toBe('warning');
    expect(t?.textContent).toContain('Trying again in 5s may help.');
    expect(screen.getByTestId('state').textContent).toBe('none');
    // Another CUSTOM event is not a notice.
    act(() => {
      customEvent({ type: 'CUSTOM', name: 'progress', value: { step: 2 } });
    });
    expect(document.querySelectorAll('[data-sonner-toast]').length).toBe(1);
  });

  it('gives onNotice each notice, and shows none it refuses', async () => {
    const onNotice = vi.fn(() => false);
    render(
      <>
        <Toaster />
        <Probe options={{ onNotice }} />
      </>,
    );
    act(() => {
      customEvent(warned);
    });
    expect(onNotice).toHaveBeenCalledTimes(1);
    expect(onNotice.mock.calls[0]).toEqual([expect.objectContaining({ code: 503, retryable: true })]);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 50));
    });
    expect(screen.queryByText('Service temporarily unavailable. Please try again later.')).toBeNull();
  });
});
