// AGUIErrorAlert: the error of a useAGUIErrorHandler, shown in the page
// (no toast library), styled by @triage/kit/styles.css.

import type { AGUIErrorHandler } from './useAGUIErrorHandler.js';
import { isRetryableError } from './errors.js';
import { defaultCountdown, defaultReady, defaultRetry, present, type ErrorViewText } from './present.js';

/** The props of AGUIErrorAlert. */
export interface AGUIErrorAlertProps extends ErrorViewText {
  /** What useAGUIErrorHandler returned. */
  handler: AGUIErrorHandler;
  /** Whether a retryable error has a Retry button. Defaults to true. */
  showRetry?: boolean;
  /** The dismiss button's accessible name. Defaults to "Dismiss". */
  dismissLabel?: string;
  /** Added to the root element's class (triage-error). */
  className?: string;
}

/**
 * Renders handler.lastError, or nothing when there is none: the code's user
 * message, the server's own message when it says more, the countdown
 * ("Retry in 5s", then "You can retry now."), a Retry button (disabled
 * until handler.canRetry; only for retryable errors) and a dismiss button.
 * It is a role="alert" region, so that a screen reader announces the
 * failure; the countdown's each second is not announced (aria-live off),
 * the text that replaces it is.
 *
 * Import "@triage/kit/styles.css" once for its look; its elements carry
 * the classes triage-error, triage-error__title, triage-error__detail,
 * triage-error__actions, triage-retry and triage-dismiss, and
 * data-tone="warning" or "error", for an app's own CSS.
 */
export function AGUIErrorAlert({
  handler,
  showRetry = true,
  dismissLabel = 'Dismiss',
  className,
  retryLabel = defaultRetry,
  countdownText = defaultCountdown,
  readyText = defaultReady,
}: AGUIErrorAlertProps) {
  const error = handler.lastError;
  if (!error) return null;
  const { title, detail, tone } = present(error);
  const retryable = isRetryableError(error);
  return (
    <div
      role="alert"
      className={className ? `triage-error ${className}` : 'triage-error'}
      data-tone={tone}
      data-triage-error={error.code}
    >
      <p className="triage-error__title">{title}</p>
      {(detail !== undefined || handler.countingDown) && (
        <p className="triage-error__detail">
          {detail !== undefined && <span>{detail} </span>}
          {handler.countingDown && handler.secondsLeft > 0 && (
            <span role="timer" aria-live="off">
              {countdownText(handler.secondsLeft)}
            </span>
          )}
          {handler.countingDown && handler.secondsLeft === 0 && <span>{readyText}</span>}
        </p>
      )}
      <div className="triage-error__actions">
        {showRetry && retryable && (
          <button type="button" className="triage-retry" disabled={!handler.canRetry} onClick={handler.retry}>
            {retryLabel}
          </button>
        )}
        <button type="button" className="triage-dismiss" aria-label={dismissLabel} onClick={handler.dismiss}>
          ×
        </button>
      </div>
    </div>
  );
}
