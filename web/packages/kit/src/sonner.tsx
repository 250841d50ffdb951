// @triage/kit/sonner: useAGUIErrorHandler's state shown as sonner toasts,
// with a retry countdown when the server says when to retry. The one part
// of the kit that needs sonner (an optional peer dependency).

import { useEffect, useId, useRef } from 'react';
import { toast } from 'sonner';

import type { UserErrorNotice } from './notice.js';
import { defaultCountdown, defaultReady, defaultRetry, present, type ErrorViewText } from './present.js';
import { useAGUIErrorHandler, type AGUIErrorHandler, type UseAGUIErrorHandlerOptions } from './useAGUIErrorHandler.js';

/** Configures useAGUIErrorToasts: useAGUIErrorHandler's options, and the toasts'. */
export interface UseAGUIErrorToastsOptions extends UseAGUIErrorHandlerOptions, ErrorViewText {
  /** How long, in milliseconds, a toast without a Retry action stays. Defaults to 8000. */
  duration?: number;
  /**
   * Called with each user_error notice of a run. Return false to show no
   * toast for it; by default each is a toast (a warning when retryable,
   * else an info) that does not change lastError.
   */
  onNotice?: (notice: UserErrorNotice) => boolean | void;
}

/**
 * useAGUIErrorHandler, with each failure shown as a sonner toast (render
 * sonner's `<Toaster />`, which this module re-exports, once in the app):
 *
 * - The toast's title is the code's user message from the code table, and
 *   its description the server's own message when it says more.
 * - Transient failures (retryable, or with a retryAfter) are warnings;
 *   permanent ones are errors (sonner's toast.warning and toast.error).
 * - A countdown ("Retry in 5s") runs while the handler counts down, and
 *   the Retry button (only with options.onRetry) is disabled until it
 *   ends. "@triage/kit/styles.css" makes a disabled Retry look disabled.
 * - A toast with a Retry action stays until it is used or dismissed; others
 *   close after options.duration. Closing a toast dismisses the error.
 * - Each user_error notice is a toast of its own.
 *
 * The toast is dismissed when the component unmounts. It returns the
 * handler, as useAGUIErrorHandler does.
 */
export function useAGUIErrorToasts(options: UseAGUIErrorToastsOptions = {}): AGUIErrorHandler {
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const baseId = `triage-notice-${useId()}`;
  const notices = useRef(0);
  const handler = useAGUIErrorHandler({
    ...options,
    onNotice: (notice) => {
      const o = optionsRef.current;
      if (o.onNotice?.(notice) === false) return false;
      notices.current += 1;
      const show = notice.retryable ? toast.warning : toast.info;
      show(notice.message, {
        id: `${baseId}-${notice.id ?? notices.current}`,
        description: notice.retryAfter ? `Trying again in ${notice.retryAfter}s may help.` : undefined,
        duration: o.duration ?? 8000,
      });
      return undefined;
    },
  });
  const { lastError, errorId, countingDown, secondsLeft, canRetry, retry, dismiss } = handler;

  // The toast shown now, and dismiss as of the last render, for the
  // toast's callbacks and the cleanups.
  const toastRef = useRef<string | null>(null);
  const dismissRef = useRef(dismiss);
  dismissRef.current = dismiss;

  // The toast, shown again (sonner updates a toast with the same id in
  // place) as the countdown runs; the previous one dismissed when the
  // error changes or goes.
  useEffect(() => {
    if (toastRef.current !== null && toastRef.current !== errorId) toast.dismiss(toastRef.current);
    toastRef.current = errorId;
    if (!lastError || errorId === null) return;
    const o = optionsRef.current;
    const { title, detail, tone } = present(lastError);
    const withRetry = tone === 'warning' && o.onRetry !== undefined;
    const description = (
      <span data-triage-error={lastError.code}>
        {detail !== undefined && <span>{detail} </span>}
        {countingDown && secondsLeft > 0 && (
          // Each second's text is not announced (aria-live off inside
          // sonner's polite region); the ready text that replaces it is.
          <span role="timer" aria-live="off">
            {(o.countdownText ?? defaultCountdown)(secondsLeft)}
          </span>
        )}
        {countingDown && secondsLeft === 0 && <span>{o.readyText ?? defaultReady}</span>}
      </span>
    );
    const action = withRetry ? (
      <button type="button" className="triage-retry" data-button data-action disabled={!canRetry} onClick={retry}>
        {o.retryLabel ?? defaultRetry}
      </button>
    ) : undefined;
    const show = tone === 'warning' ? toast.warning : toast.error;
    const closed = (t: { id: string | number }) => {
      if (toastRef.current === t.id) dismissRef.current();
    };
    show(title, {
      id: errorId,
      description,
      action,
      duration: withRetry ? Number.POSITIVE_INFINITY : (o.duration ?? 8000),
      onDismiss: closed,
      onAutoClose: closed,
    });
  }, [lastError, errorId, countingDown, secondsLeft, canRetry, retry]);

  useEffect(
    () => () => {
      if (toastRef.current !== null) toast.dismiss(toastRef.current);
    },
    [],
  );

  return handler;
}

// The toaster the toasts appear in: render it once in the app. It is
// sonner's, re-exported so that the app and the kit share one copy.
export { Toaster } from 'sonner';
