// useAGUIErrorHandler: the state of a failed AG-UI run (the error, its
// retry countdown, whether Retry is allowed now), for any UI to show. It
// shows nothing itself: AGUIErrorAlert (./alert) renders it inline, and
// useAGUIErrorToasts (@triage/kit/sonner) as sonner toasts.

import type { AgentSubscriber } from '@ag-ui/client';
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';

import { AGUIErrorCode } from './codes.js';
import { isRetryableError, parseError, parseRunError, retryDelay, type AGUIErrorData } from './errors.js';
import { parseUserErrorEvent, type UserErrorNotice } from './notice.js';

/** Configures useAGUIErrorHandler. Every member may change between renders. */
export interface UseAGUIErrorHandlerOptions {
  /**
   * Repeats what failed, typically `() => agent.runAgent(params, subscriber)`.
   * retry() calls it (without it, retry() only clears the error). A promise
   * it returns that rejects with an error the subscriber has not reported
   * already (onRunFailed reports HttpAgent's) is reported.
   */
  onRetry?: (error: AGUIErrorData) => unknown;
  /**
   * Errors for which no state changes. Defaults to CANCELLED ones: a run
   * the application aborted (HttpAgent.abortRun) ended because the user
   * chose to end it.
   */
  ignore?: (error: AGUIErrorData) => boolean;
  /**
   * Called with each user_error notice of a run (seed 001: a part failed,
   * the run goes on). Return false to keep it out of lastNotice. A notice
   * never changes lastError.
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
   * keeps seed 001's user_error notices (onCustomEvent; see onNotice),
   * clears the error and the notice when a new run starts, and resets the
   * backoff when a run finishes. It never changes the run's messages or
   * state.
   */
  subscriber: AgentSubscriber;
  /** Shows an error read elsewhere (readProblem of a fetch, say), as the subscriber would. */
  report: (error: AGUIErrorData) => void;
  /** The error shown now; null when none is. */
  lastError: AGUIErrorData | null;
  /**
   * An id for this showing of lastError, new with each report (a toast's
   * id, a React key); null when no error is shown.
   */
  errorId: string | null;
  /** Whether lastError has a countdown (a retryAfter, or a rate limit's backoff). */
  countingDown: boolean;
  /** Seconds until a retry is allowed; 0 when there is no countdown or it has ended. */
  secondsLeft: number;
  /** Whether retrying is allowed now: the error is retryable and its countdown, if any, has ended. */
  canRetry: boolean;
  /** Dismisses the error and calls onRetry with it. Does nothing unless canRetry. */
  retry: () => void;
  /** Dismisses the error and stops its countdown. */
  dismiss: () => void;
  /** The last user_error notice of the run; null when none, or after a new run starts. */
  lastNotice: UserErrorNotice | null;
}

const defaultIgnore = (e: AGUIErrorData) => e.code === AGUIErrorCode.CANCELLED;

/** The error shown, and when its countdown ends (ms since the epoch), if it has one. */
interface Shown {
  error: AGUIErrorData;
  id: string;
  deadline?: number;
}

/**
 * Keeps the failures of AG-UI runs, one at a time, for the UI to show:
 *
 * - lastError is the failure, its facets read from the wire (parseRunError,
 *   parseError); a new failure replaces it.
 * - RATE_LIMITED, and any error with a retryAfter, counts down
 *   (secondsLeft) for retryDelay(error, attempt): the server's retryAfter,
 *   or Triage's backoff, which grows with each consecutive retry that
 *   fails again. canRetry is false until it reaches zero. Other retryable
 *   errors can be retried at once; permanent ones never.
 * - retry() calls options.onRetry.
 *
 * Its timer is cleared when the component unmounts. It renders nothing:
 * pass it to <AGUIErrorAlert>, or use useAGUIErrorToasts from
 * "@triage/kit/sonner" for toasts.
 *
 *     const errors = useAGUIErrorHandler({ onRetry: () => agent.runAgent({}, errors.subscriber) });
 *     await agent.runAgent({}, errors.subscriber);
 *     return <AGUIErrorAlert handler={errors} />;
 */
export function useAGUIErrorHandler(options: UseAGUIErrorHandlerOptions = {}): AGUIErrorHandler {
  const optionsRef = useRef(options);
  optionsRef.current = options;
  const baseId = `triage-error-${useId()}`;

  const [shown, setShown] = useState<Shown | null>(null);
  const [secondsLeft, setSecondsLeft] = useState(0);
  const [lastNotice, setLastNotice] = useState<UserErrorNotice | null>(null);
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

  const report = useCallback(
    (error: AGUIErrorData) => {
      if (!mounted.current) return;
      if ((optionsRef.current.ignore ?? defaultIgnore)(error)) return;
      const counts = error.code === AGUIErrorCode.RATE_LIMITED || (error.retryAfter ?? 0) > 0;
      const delay = counts ? retryDelay(error, retries.current + 1) : undefined;
      sequence.current += 1;
      const next: Shown = { error, id: `${baseId}-${sequence.current}` };
      if (delay !== undefined) next.deadline = Date.now() + delay;
      shownRef.current = next;
      setShown(next);
      setSecondsLeft(delay !== undefined ? Math.ceil(delay / 1000) : 0);
    },
    [baseId],
  );

  const dismiss = useCallback(() => {
    if (!shownRef.current) return;
    shownRef.current = null;
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

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const subscriber = useMemo<AgentSubscriber>(
    () => ({
      onRunInitialized: () => {
        dismiss();
        if (mounted.current) setLastNotice(null);
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
        setLastNotice(notice);
      },
      onRunFailed: ({ error }) => {
        if (typeof error === 'object' && error !== null) reported.current.add(error);
        report(parseError(error));
      },
    }),
    [dismiss, report],
  );

  return {
    subscriber,
    report,
    lastError: shown?.error ?? null,
    errorId: shown?.id ?? null,
    countingDown: shown?.deadline !== undefined,
    secondsLeft,
    canRetry,
    retry,
    dismiss,
    lastNotice,
  };
}
