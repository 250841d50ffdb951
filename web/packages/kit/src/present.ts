// What the kit's two views (AGUIErrorAlert, the sonner toasts) show of an
// error: the same words in both. Internal: not exported by the package.

import { CODES } from './codes.js';
import { isRetryableError, type AGUIErrorData } from './errors.js';

/** The words a view may change; each has a default. */
export interface ErrorViewText {
  /** The Retry button's label. Defaults to "Retry". */
  retryLabel?: string;
  /** The countdown's text for n seconds. Defaults to `Retry in ${n}s`. */
  countdownText?: (seconds: number) => string;
  /** What replaces the countdown when it reaches zero. Defaults to "You can retry now." */
  readyText?: string;
}

/** An error as a view shows it. */
export interface Presented {
  /** The code's user message from the code table. */
  title: string;
  /** The server's own message, when it says more than the title. */
  detail?: string;
  /** A warning (retryable: trying again may help) or an error. */
  tone: 'warning' | 'error';
}

export function present(error: AGUIErrorData): Presented {
  const title = CODES[error.code].message;
  const p: Presented = { title, tone: isRetryableError(error) ? 'warning' : 'error' };
  if (error.message !== title) p.detail = error.message;
  return p;
}

export const defaultCountdown = (n: number) => `Retry in ${n}s`;
export const defaultReady = 'You can retry now.';
export const defaultRetry = 'Retry';
