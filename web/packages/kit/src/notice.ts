// Seed 001's user_error: a non-fatal notice that a part of the work failed
// while the agent carries on. Triage sends it on an AG-UI run as a CUSTOM
// event named "user_error" whose value is the seed-001 event:
//
//   {id, timestamp, type: "user_error",
//    data: {message, code, domain, retryable, retry_after?}}

/** A user_error notice, read from a CUSTOM event. */
export interface UserErrorNotice {
  /** The event's id (a UUID), when it has one. */
  id?: string;
  /** What to show the user. */
  message: string;
  /** A semantic HTTP-like status (429, 503), or null. */
  code: number | null;
  /** Where it came from: one of fault's domains ("client", "tool", "system", …). */
  domain: string;
  /** Whether trying again may help. */
  retryable: boolean;
  /** Seconds to wait before trying again, when the server knows. */
  retryAfter?: number;
}

/** The name of the CUSTOM event that carries a notice. */
export const USER_ERROR_EVENT = 'user_error';

/** The longest retry delay read, as the Go reader caps it (a day). */
const MAX_RETRY_AFTER = 86_400;

/**
 * Reads a notice from an AG-UI CUSTOM event: null for any other event, or
 * for a user_error whose payload is not seed 001's (no message, a code out
 * of 100–599), so that a frontend never shows a half-read notice.
 */
export function parseUserErrorEvent(event: { name?: unknown; value?: unknown } | null | undefined): UserErrorNotice | null {
  if (!event || event.name !== USER_ERROR_EVENT) return null;
  const value = event.value;
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.type !== USER_ERROR_EVENT || typeof v.data !== 'object' || v.data === null) return null;
  const d = v.data as Record<string, unknown>;
  if (typeof d.message !== 'string' || d.message.trim() === '') return null;
  let code: number | null = null;
  if (d.code !== undefined && d.code !== null) {
    if (typeof d.code !== 'number' || !Number.isInteger(d.code) || d.code < 100 || d.code > 599) return null;
    code = d.code;
  }
  const notice: UserErrorNotice = {
    message: d.message,
    code,
    domain: typeof d.domain === 'string' && d.domain !== '' ? d.domain : 'system',
    retryable: d.retryable === true,
  };
  if (typeof v.id === 'string') notice.id = v.id;
  if (typeof d.retry_after === 'number' && Number.isFinite(d.retry_after) && d.retry_after > 0) {
    notice.retryAfter = Math.min(Math.ceil(d.retry_after), MAX_RETRY_AFTER);
  }
  return notice;
}
