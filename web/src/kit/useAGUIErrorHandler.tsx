// useAGUIErrorHandler: a failed AG-UI run, shown to the user as a toast
// (sonner), with a retry countdown when the server says when to retry.

import type { AgentSubscriber } from '@ag-ui/client';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';

import { AGUIErrorCode, CODES } from './codes';
import { isRetryableError, parseError, parseRunError, retryDelay, type AGUIErrorData } from './errors';
import { parseUserErrorEvent, type UserErrorNotice } from './notice';

/** Configures useAGUIErrorHandler. Every member may change between renders. */
export interface UseAGUIErrorHandlerOptions {
  /**
   * Repeats what failed, typically `() => agent.runAgent(params, subscriber)`.
   * Without it, toasts have no Retry action (retry() still clears the
   * error). A promise it returns that rejects with an error the subscriber
   * has not reported already (onRunFailed reports HttpAgent's) is reported.
   */
  onRetry?: (error: AGUIErrorData) => unknown;
  /**
   * Errors for which nothing is shown and no state changes. Defaults to
   * CANCELLED ones: a run the application aborted (HttpAgent.abortRun) ended
   * because the user chose to end it.
   */
  ignore?: (error: AGUIErrorData) => boolean;
  /** How long, in milliseconds, a toast without a Retry action stays. Defaults to 8000. */
  duration?: number;
  /** The Retry button's label. Defaults to "Retry". */
  retryLabel?: string;
  /** The countdown's text for n seconds. Defaults to `Retry in ${n}s`. */
  countdownText?: (seconds: number) => string;
  /** What replaces the countdown when it reaches zero. Defaults to "You can retry now." */
  readyText?: string;
  /**
   * Called with each user_error notice of a run (seed 001: a part failed,
   * the run goes on). Return false to show no toast for it; by default
   * each is a toast (a warning when retryable, else an info) that does not
   * change lastError.
   */
  onNotice?: (notice: UserErrorNotice) => boolean | void;
}

/** What useAGUIErrorHandler returns. */
export interface AGUIErrorHandler {
  /**
   * The AgentSubscriber that reports a run's failures: pass it to
   * `agent.runAgent(params, subscriber)` or `agent.subscribe(subscriber)`.
   * It is the same object for the life of the component. It reports
   * RUN_ERROR events (onRunErrorEvent) and failures before or outside the
   * event stream (onRunFailed: a problem+json answer, a network error),
   * shows seed 001's user_error notices (onCustomEvent; see onNotice),
   * dismisses a shown error when a new run starts, and resets the backoff
   * when a run finishes. It never changes the run's messages or state.
   */
  subscriber: AgentSubscriber;
  /** Shows an error read elsewhere (readProblem of a fetch, say), as the subscriber would. */
  report: (error: AGUIErrorData) => void;
  /** The error shown now; null when none is. */
  lastError: AGUIErrorData | null;
  /** Seconds until a retry is allowed; 0 when there is no countdown or it has ended. */
  secondsLeft: number;
  /** Whether retrying is allowed now: the error is retryable and its countdown, if any, has ended. */
  canRetry: boolean;
  /** Dismisses the error and calls onRetry with it. Does nothing unless canRetry. */
  retry: () => void;
  /** Dismisses the error and its toast, and stops its countdown. */
  dismiss: () => void;
}

const defaultIgnore = (e: AGUIErrorData) => e.code === AGUIErrorCode.CANCELLED;

/** The error shown, and when its countdown ends (ms since the epoch), if it has one. */
interface Shown {
  error: AGUIErrorData;
  toastId: string;
  deadline?: number;
}

/**
 * Reports the failures of AG-UI runs to the user, one toast at a time,
 * through sonner (render sonner's `<Toaster />`, which the kit re-exports,
 * once in the app):
 *
 * - The toast's title is the code's user message from the code table, and
 *   its description the server's own message when it says more.
 * - Transient failures (retryable, or with a retryAfter) are warnings;
 *   permanent ones are errors (sonner's toast.warning and toast.error).
 * - RATE_LIMITED, and any error with a retryAfter, shows a live countdown
 *   ("Retry in 5s") for retryDelay(error, attempt): the server's
 *   retryAfter, or Triage's backoff, which grows with each consecutive
 *   retry that fails again. Its Retry button is disabled until the
 *   countdown reaches zero. Other retryable errors can be retried at once.
 *   Retry calls options.onRetry; toasts have no Retry without it.
 * - A toast with a Retry action stays until it is used or dismissed; others
 *   close after options.duration.
 *
 * Timers are cleared, and the toast dismissed, when the component unmounts.
 *
 *     const errors = useAGUIErrorHandler({ onRetry: () => agent.runAgent({}, errors.subscriber) });
 *     await agent.runAgent({}, errors.subscriber);
 */
export function useAGUIErrorHandler(options: UseAGUIErrorHandlerOptions = {}): AGUIErrorHandler {
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const baseId = `triage-error-${useId()}`;

  const [shown, setShown] = useState<Shown | null>(null);
  const [secondsLeft, setSecondsLeft] = useState(0);
  // The error shown, as report and dismiss last set it (the state lags
  // behind it until the next render).
  const shownRef = useRef<Shown | null>(null);
  const mounted = useRef(true);
  const sequence = useRef(0);
  // Consecutive retries that failed again: the backoff's attempt number is
  // one more. A run that finishes resets it.
  const retries = useRef(0);
  // Errors already reported through onRunFailed, so that runAgent's
  // rejection with the same error is not reported twice.
  const reported = useRef(new WeakSet<object>());
  // Notices shown, for the ids of those without one.
  const notices = useRef(0);

  const report = useCallback(
    (error: AGUIErrorData) => {
      if (!mounted.current) return;
      if ((optionsRef.current.ignore ?? defaultIgnore)(error)) return;
      const counts = error.code === AGUIErrorCode.RATE_LIMITED || (error.retryAfter ?? 0) > 0;
      const delay = counts ? retryDelay(error, retries.current + 1) : undefined;
      const previous = shownRef.current;
      if (previous) toast.dismiss(previous.toastId);
      sequence.current += 1;
      const next: Shown = { error, toastId: `${baseId}-${sequence.current}` };
      if (delay !== undefined) next.deadline = Date.now() + delay;
      shownRef.current = next;
      setShown(next);
      setSecondsLeft(delay !== undefined ? Math.ceil(delay / 1000) : 0);
    },
    [baseId],
  );

  const dismiss = useCallback(() => {
    const current = shownRef.current;
    if (!current) return;
    shownRef.current = null;
    toast.dismiss(current.toastId);
    if (!mounted.current) return;
    setShown(null);
    setSecondsLeft(0);
  }, []);

  const canRetry = shown !== null && isRetryableError(shown.error) && secondsLeft === 0;

  const retry = useCallback(() => {
    const current = shownRef.current;
    if (!current || !isRetryableError(current.error)) return;
    if (current.deadline !== undefined && current.deadline > Date.now()) return;
    dismiss();
    retries.current += 1;
    const onRetry = optionsRef.current.onRetry;
    if (!onRetry) return;
    let result: unknown;
    try {
      result = onRetry(current.error);
    } catch (e) {
      report(parseError(e));
      return;
    }
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
      Promise.resolve(result).catch((e: unknown) => {
        if (typeof e === 'object' && e !== null && reported.current.has(e)) return;
        report(parseError(e));
      });
    }
  }, [dismiss, report]);

  // The countdown: one tick at each whole second left, from the deadline,
  // so that it neither drifts nor skips.
  useEffect(() => {
    const deadline = shown?.deadline;
    if (deadline === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      const left = deadline - Date.now();
      setSecondsLeft(Math.max(0, Math.ceil(left / 1000)));
      if (left > 0) timer = setTimeout(tick, left % 1000 || 1000);
    };
    tick();
    return () => clearTimeout(timer);
  }, [shown]);

  // The toast, shown again (sonner updates a toast with the same id in
  // place) as the countdown runs.
  useEffect(() => {
    if (!shown) return;
    const o = optionsRef.current;
    const { error } = shown;
    const transient = isRetryableError(error);
    const title = CODES[error.code].message;
    const detail = error.message !== title ? error.message : undefined;
    const counting = shown.deadline !== undefined;
    const withRetry = transient && o.onRetry !== undefined;
    const description = (
      <span data-triage-error={error.code}>
        {detail !== undefined && <span>{detail} </span>}
        {counting && secondsLeft > 0 && (
          // Each second's text is not announced (aria-live off inside
          // sonner's polite region); the ready text that replaces it is.
          <span role="timer" aria-live="off">
            {(o.countdownText ?? ((n: number) => `Retry in ${n}s`))(secondsLeft)}
          </span>
        )}
        {counting && secondsLeft === 0 && <span>{o.readyText ?? 'You can retry now.'}</span>}
      </span>
    );
    const action = withRetry ? (
      <button type="button" data-button data-action disabled={!canRetry} onClick={retry}>
        {o.retryLabel ?? 'Retry'}
      </button>
    ) : undefined;
    const show = transient ? toast.warning : toast.error;
    show(title, {
      id: shown.toastId,
      description,
      action,
      duration: withRetry ? Number.POSITIVE_INFINITY : (o.duration ?? 8000),
      onDismiss: (t) => {
        if (shownRef.current?.toastId === t.id) dismiss();
      },
      onAutoClose: (t) => {
        if (shownRef.current?.toastId === t.id) dismiss();
      },
    });
  }, [shown, secondsLeft, canRetry, retry, dismiss]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      const current = shownRef.current;
      if (current) toast.dismiss(current.toastId);
    };
  }, []);

  const subscriber = useMemo<AgentSubscriber>(
    () => ({
      onRunInitialized: () => {
        dismiss();
      },
      onRunFinishedEvent: () => {
        retries.current = 0;
      },
      onRunErrorEvent: ({ event }) => {
        report(parseRunError(event));
      },
      onCustomEvent: ({ event }) => {
        const notice = parseUserErrorEvent(event);
        if (!notice || !mounted.current) return;
        if (optionsRef.current.onNotice?.(notice) === false) return;
        notices.current += 1;
        const show = notice.retryable ? toast.warning : toast.info;
        show(notice.message, {
          id: `${baseId}-notice-${notice.id ?? notices.current}`,
          description: notice.retryAfter ? `Trying again in ${notice.retryAfter}s may help.` : undefined,
          duration: optionsRef.current.duration ?? 8000,
        });
      },
      onRunFailed: ({ error }) => {
        if (typeof error === 'object' && error !== null) reported.current.add(error);
        report(parseError(error));
      },
    }),
    [dismiss, report, baseId],
  );

  return { subscriber, report, lastError: shown?.error ?? null, secondsLeft, canRetry, retry, dismiss };
}
