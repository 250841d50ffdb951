// TriageProblem: every failure of a call, as RFC 9457 problem details with
// Triage's members (code, retryable, retry_after, errors).

import type { Code, ProblemDocument } from './types.js';

/** One invalid field of a request (the problem's `errors` member). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * The error every method of TriageClient rejects with (but an abort, which
 * rejects with the signal's reason): the service's problem document, or,
 * for a failure with none, the same members made up the way the Go client
 * makes them (see fromStatus and transport).
 */
export class TriageProblem extends Error {
  /** The code: one of Triage's (Code), or another a newer service sends. */
  readonly code: Code | (string & {});
  /** The response's HTTP status; 0 when there was no response (a network failure). */
  readonly status: number;
  /** The problem type's short summary ("Rate Limited"). */
  readonly title: string;
  /** What went wrong, safe to show end users. */
  readonly detail: string;
  /** The problem type URI. */
  readonly type: string;
  /** The problem's instance, when the service sent one. */
  readonly instance: string | undefined;
  /** Whether repeating the request may succeed. */
  readonly retryable: boolean;
  /** Seconds to wait before retrying, when the service said (retry_after, or the Retry-After header). */
  readonly retryAfter: number | undefined;
  /** The invalid fields of the request (INVALID_REQUEST). Empty when none. */
  readonly fields: readonly FieldError[];
  /** Safe structured metadata: every dynamic value of detail, by name. Empty when none. */
  readonly details: Readonly<Record<string, unknown>>;
  /** The problem document as the service sent it; undefined when there was none. */
  readonly problem: Partial<ProblemDocument> | undefined;

  constructor(init: {
    code: string;
    status: number;
    title: string;
    detail: string;
    type?: string;
    instance?: string;
    retryable: boolean;
    retryAfter?: number;
    fields?: readonly FieldError[];
    details?: Record<string, unknown>;
    problem?: Partial<ProblemDocument>;
    cause?: unknown;
  }) {
    super(`${init.code}: ${init.detail || init.title}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TriageProblem';
    this.code = init.code;
    this.status = init.status;
    this.title = init.title;
    this.detail = init.detail;
    this.type = init.type ?? 'about:blank';
    this.instance = init.instance;
    this.retryable = init.retryable;
    this.retryAfter = init.retryAfter;
    this.fields = init.fields ?? [];
    this.details = init.details ?? {};
    this.problem = init.problem;
  }
}

/** Reports whether err is a TriageProblem (an instanceof that also holds across copies of the package). */
export function isTriageProblem(err: unknown): err is TriageProblem {
  return err instanceof TriageProblem || (err instanceof Error && err.name === 'TriageProblem' && 'code' in err && 'status' in err);
}

/** The longest delay read from a response, in seconds (a day, as fault.MaxRetryAfter). */
const MAX_RETRY_AFTER = 86_400;

/**
 * Reads a response's Retry-After header, as delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3), in seconds from now; undefined when it has none or
 * it is neither.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v), MAX_RETRY_AFTER);
  if (!/^[A-Za-z]{3}/.test(v)) return undefined;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, Math.ceil((date - now) / 1000)), MAX_RETRY_AFTER);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The code a response without a problem document is read as, by its
 * status, as the Go client reads one (a proxy's answer): 401
 * TENANT_REQUIRED, 403 TENANT_UNAUTHORIZED, 404 NOT_FOUND, 400 and 422
 * INVALID_REQUEST, 409 SESSION_BUSY, 408 TIMEOUT, 413 PAYLOAD_TOO_LARGE,
 * 429 RATE_LIMITED, 503 SERVICE_UNAVAILABLE, 504 TIMEOUT, any other 5xx
 * UPSTREAM_ERROR; the transient ones retryable.
 */
function fromStatus(status: number): { code: Code; retryable: boolean } {
  switch (status) {
    case 400:
    case 422:
      return { code: 'INVALID_REQUEST', retryable: false };
    case 401:
      return { code: 'TENANT_REQUIRED', retryable: false };
    case 403:
      return { code: 'TENANT_UNAUTHORIZED', retryable: false };
    case 404:
      return { code: 'NOT_FOUND', retryable: false };
    case 408:
    case 504:
      return { code: 'TIMEOUT', retryable: true };
    case 409:
      return { code: 'SESSION_BUSY', retryable: true };
    case 413:
      return { code: 'PAYLOAD_TOO_LARGE', retryable: false };
    case 429:
      return { code: 'RATE_LIMITED', retryable: true };
    case 503:
      return { code: 'SERVICE_UNAVAILABLE', retryable: true };
  }
  return { code: 'UPSTREAM_ERROR', retryable: status >= 500 };
}

/**
 * Reads a failed response: its problem document when its body is one (a
 * JSON object with a string code), else its status. The retry delay is
 * the longer of the document's retry_after and the Retry-After header.
 * SESSION_BUSY is retryable (the same Idempotency-Key is in flight: once
 * it ends, a retry gets its outcome), as the Go client reads it.
 */
export async function readProblem(response: Response, now: number = Date.now()): Promise<TriageProblem> {
  let doc: unknown;
  try {
    doc = JSON.parse(await response.text());
  } catch {
    doc = undefined;
  }
  const headerAfter = parseRetryAfter(response.headers.get('Retry-After'), now);
  if (isObject(doc) && typeof doc.code === 'string' && doc.code !== '') {
    const p = doc as Partial<ProblemDocument> & Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const bodyAfter =
      typeof p.retry_after === 'number' && Number.isFinite(p.retry_after) && p.retry_after > 0
        ? Math.min(p.retry_after, MAX_RETRY_AFTER)
        : undefined;
    const after = Math.max(bodyAfter ?? 0, headerAfter ?? 0);
    const fields = Array.isArray(p.errors)
      ? p.errors.filter(isObject).map((e) => ({ field: str(e.field), message: str(e.message) }))
      : [];
    const init: ConstructorParameters<typeof TriageProblem>[0] = {
      code: p.code as string,
      status: typeof p.status === 'number' && p.status >= 400 && p.status <= 599 ? p.status : response.status,
      title: str(p.title),
      detail: str(p.detail),
      retryable: p.code === 'SESSION_BUSY' || p.retryable === true || after > 0,
      fields,
      details: isObject(p.details) ? p.details : {},
      problem: p,
    };
    if (str(p.type) !== '') init.type = str(p.type);
    if (str(p.instance) !== '') init.instance = str(p.instance);
    if (after > 0) init.retryAfter = after;
    return new TriageProblem(init);
  }
  const s = fromStatus(response.status);
  const init: ConstructorParameters<typeof TriageProblem>[0] = {
    code: s.code,
    status: response.status,
    title: response.statusText || `HTTP ${response.status}`,
    detail: `The Error Handler service answered ${response.status} without a problem document.`,
    retryable: s.retryable || (headerAfter ?? 0) > 0,
  };
  if (headerAfter !== undefined && headerAfter > 0) init.retryAfter = headerAfter;
  return new TriageProblem(init);
}

/** The problem of a request that got no response (fetch rejected): TRANSPORT_ERROR, retryable. */
export function transportProblem(cause: unknown): TriageProblem {
  return new TriageProblem({
    code: 'TRANSPORT_ERROR',
    status: 0,
    title: 'Transport Error',
    detail: 'Could not reach the Error Handler service.',
    retryable: true,
    cause,
  });
}

/** The problem of an answer that breaks the API's contract (not retried: it would be the same). */
export function protocolProblem(status: number, why: string): TriageProblem {
  return new TriageProblem({
    code: 'PROTOCOL_ERROR',
    status,
    title: 'Protocol Error',
    detail: `The Error Handler service returned an invalid response: ${why}.`,
    retryable: false,
  });
}
