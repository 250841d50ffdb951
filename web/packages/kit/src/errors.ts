// Reading Triage's failures as a browser sees them: the RUN_ERROR event
// that ends a failed AG-UI run, the problem+json document (RFC 9457) of a
// request refused before its stream started, and the errors
// @ag-ui/client's HttpAgent reports through onRunFailed. Each becomes an
// AGUIErrorData whose facets default to the code table (codes.ts, generated
// from the Go table) and are overridden by what the server sent.
//
// The rules follow the Go readers (wire/agui (*RunError).Fault and
// wire/problem (*Problem).Fault), so a Go client and this kit read the
// same event the same way.

import { AGUIError, type RunErrorEvent } from '@ag-ui/core';

import {
  AGUIErrorCode,
  CODES,
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  MAX_RETRY_AFTER_SECONDS,
  type CodeSpec,
  type ErrorCategory,
  type ErrorDomain,
} from './codes.js';

/**
 * The code an error takes when the server sent none, or one this version of
 * the table does not know (a newer server's): AGENT_EXECUTION_ERROR, "nothing
 * more specific describes it". Its defaults are the ones Triage gives an
 * unknown code (a Go test in internal/tsgen/render checks that they agree).
 */
export const GENERIC_CODE = AGUIErrorCode.AGENT_EXECUTION_ERROR;

/**
 * The code @ag-ui/client 1.0.0 puts on the RUN_ERROR it makes up itself when
 * the application aborts a run (HttpAgent.abortRun). It is read as
 * CANCELLED: the run ended because the caller chose to end it.
 */
export const ABORT_CODE = 'abort';

/** Where an AGUIErrorData was read from. */
export type ErrorOrigin =
  /** a RUN_ERROR event (parseRunError) */
  | 'run_error'
  /** a problem+json document or a failed HTTP response (parseProblem, readProblem) */
  | 'problem'
  /** an exception with neither: a network failure, an abort, a protocol violation (parseError) */
  | 'exception';

/** One invalid field of a request (the `errors` member Triage writes for INVALID_REQUEST). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A failure, read from the wire: the code with every facet the frontend
 * needs. Facets the server did not send are the code's defaults from CODES.
 */
export interface AGUIErrorData {
  /** The code, or GENERIC_CODE when the server sent none or one this table does not know (CANCELLED for an abort). */
  code: AGUIErrorCode;
  /** The code exactly as the server (or the client library) sent it; "" when there was none. */
  rawCode: string;
  /**
   * A message safe to show end users: the server's own when its code is one
   * the table knows (Triage writes only safe messages), and otherwise the
   * code's default, since a foreign text may carry anything.
   */
  message: string;
  /** The text the peer sent, unfiltered: for logs and developer tools, never for end users. */
  rawMessage: string;
  /** The code's short title ("Rate Limited"). */
  title: string;
  /** The HTTP status of the failure (400 to 599). */
  httpStatus: number;
  /** Whether repeating the request may succeed. */
  retryable: boolean;
  /**
   * How long to wait before retrying, in seconds, when the server said so
   * (metadata.retry_after, the problem's retry_after, or the Retry-After
   * header); capped at MAX_RETRY_AFTER_SECONDS. Undefined when no delay is
   * known. Triage writes whole seconds; a Retry-After-Ms header may make it
   * fractional.
   */
  retryAfter?: number;
  /** Whether the session survives the failure; when false, start a new one before retrying. */
  sessionValid: boolean;
  category: ErrorCategory;
  domain: ErrorDomain;
  /** Structured, sanitized details (Triage strips credentials before sending them). Empty when none. */
  details: Record<string, unknown>;
  /** The request fields that were invalid (INVALID_REQUEST). Empty when none. */
  fieldErrors: FieldError[];
  /** The component that failed ("gateway", a tool's name), when the server named it. */
  source?: string;
  origin: ErrorOrigin;
}

/** The members of a RUN_ERROR event parseRunError reads; every RunErrorEvent is one. */
export type RunErrorLike = Partial<Pick<RunErrorEvent, 'message' | 'code' | 'metadata'>>;

/** Reports whether code is a value of AGUIErrorCode (a code this table knows). */
export function isKnownCode(code: unknown): code is AGUIErrorCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(CODES, code);
}

/** Returns the table row of code, or GENERIC_CODE's for a code the table does not know. */
export function specOf(code: string): CodeSpec {
  return isKnownCode(code) ? CODES[code] : CODES[GENERIC_CODE];
}

/** The facets a Triage peer may override. */
interface Facets {
  httpStatus?: number;
  category?: ErrorCategory;
  domain?: ErrorDomain;
  retryable?: boolean;
  sessionValid?: boolean;
  retryAfter?: number;
  source?: string;
  details?: Record<string, unknown>;
  fieldErrors?: FieldError[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isErrorStatus(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599;
}

function isCategory(v: unknown): v is ErrorCategory {
  return typeof v === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(v);
}

function isDomain(v: unknown): v is ErrorDomain {
  return typeof v === 'string' && (ERROR_DOMAINS as readonly string[]).includes(v);
}

function capSeconds(s: number): number {
  return Math.min(s, MAX_RETRY_AFTER_SECONDS);
}

function isFieldErrorList(v: unknown): v is FieldError[] {
  return (
    Array.isArray(v) &&
    v.every((e) => isObject(e) && ['field', 'message'].every((k) => e[k] === undefined || typeof e[k] === 'string'))
  );
}

function fieldErrors(v: FieldError[]): FieldError[] {
  return v.map((e) => ({ field: e.field ?? '', message: e.message ?? '' }));
}

/**
 * Reads the metadata Triage writes on RUN_ERROR (wire/agui RunErrorFrom).
 * Like the Go reader, it takes metadata of that shape whole or not at all:
 * when a facet has the wrong type or an impossible value (another producer's
 * metadata), it returns undefined and the code's defaults stand. Members it
 * does not know are ignored; null is the same as absent.
 */
function metadataFacets(md: unknown): Facets | undefined {
  if (!isObject(md)) return undefined;
  const f: Facets = {};
  const has = (k: string) => md[k] !== undefined && md[k] !== null;
  const status = md.http_status;
  if (has('http_status')) {
    if (typeof status !== 'number' || !Number.isInteger(status)) return undefined;
    if (status !== 0) {
      if (!isErrorStatus(status)) return undefined;
      f.httpStatus = status;
    }
  }
  for (const [key, valid, set] of [
    ['category', isCategory, (v: string) => (f.category = v as ErrorCategory)],
    ['domain', isDomain, (v: string) => (f.domain = v as ErrorDomain)],
  ] as const) {
    const v = md[key];
    if (!has(key) || v === '') continue;
    if (!valid(v)) return undefined;
    set(v);
  }
  for (const [key, set] of [
    ['retryable', (v: boolean) => (f.retryable = v)],
    ['session_valid', (v: boolean) => (f.sessionValid = v)],
  ] as const) {
    const v = md[key];
    if (!has(key)) continue;
    if (typeof v !== 'boolean') return undefined;
    set(v);
  }
  const after = md.retry_after;
  if (has('retry_after')) {
    if (typeof after !== 'number' || !Number.isFinite(after) || after < 0) return undefined;
    if (after > 0) f.retryAfter = capSeconds(after);
  }
  const source = md.source;
  if (has('source')) {
    if (typeof source !== 'string') return undefined;
    if (source !== '') f.source = source;
  }
  const details = md.details;
  if (has('details')) {
    if (!isObject(details)) return undefined;
    f.details = details;
  }
  const errors = md.errors;
  if (has('errors')) {
    if (!isFieldErrorList(errors)) return undefined;
    f.fieldErrors = fieldErrors(errors);
  }
  if (has('debug') && !isObject(md.debug)) return undefined;
  return f;
}

/** Builds the AGUIErrorData of code with facets over its defaults. */
function build(
  code: AGUIErrorCode,
  rawCode: string,
  safeMessage: string,
  rawMessage: string,
  facets: Facets,
  origin: ErrorOrigin,
): AGUIErrorData {
  const spec = CODES[code];
  const data: AGUIErrorData = {
    code,
    rawCode,
    message: safeMessage.trim() !== '' ? safeMessage : spec.message,
    rawMessage,
    title: spec.title,
    httpStatus: facets.httpStatus ?? spec.httpStatus,
    retryable: facets.retryable ?? spec.retryable,
    sessionValid: facets.sessionValid ?? spec.sessionValid,
    category: facets.category ?? spec.category,
    domain: facets.domain ?? spec.domain,
    details: { ...(facets.details ?? {}) },
    fieldErrors: facets.fieldErrors ?? [],
    origin,
  };
  if (facets.retryAfter !== undefined && facets.retryAfter > 0) data.retryAfter = facets.retryAfter;
  if (facets.source !== undefined) data.source = facets.source;
  return data;
}

/**
 * Reads a RUN_ERROR event, as onRunErrorEvent receives it or as decoded from
 * an SSE frame. Triage writes `message` (safe for end users), `code`, and
 * the other facets in `metadata`: http_status, retryable, retry_after (whole
 * seconds), session_valid, category, domain, details, and source and errors
 * when it has them.
 *
 * - A code the table knows keeps the event's message (the code's default
 *   when it is empty) and takes the metadata's facets over the code's
 *   defaults.
 * - A code it does not know, or none, is GENERIC_CODE with the generic
 *   message; the event's text is kept in rawMessage only. Metadata of
 *   Triage's shape still applies, as a newer Triage would send it.
 * - "abort", which @ag-ui/client sends when the application aborts the run,
 *   is CANCELLED.
 *
 * Metadata that is not of Triage's shape (a facet of the wrong type) is
 * ignored as a whole. parseRunError never throws.
 */
export function parseRunError(event: RunErrorLike | null | undefined): AGUIErrorData {
  const rawCode = typeof event?.code === 'string' ? event.code : '';
  const rawMessage = typeof event?.message === 'string' ? event.message : '';
  const facets = metadataFacets(event?.metadata) ?? {};
  if (rawCode === ABORT_CODE) {
    return build(AGUIErrorCode.CANCELLED, rawCode, '', rawMessage, facets, 'run_error');
  }
  if (isKnownCode(rawCode)) {
    return build(rawCode, rawCode, rawMessage, rawMessage, facets, 'run_error');
  }
  return build(GENERIC_CODE, rawCode, '', rawMessage, facets, 'run_error');
}

/** Headers as parseProblem accepts them: a Headers object, or a plain record (any case). */
export type HeadersLike = Headers | Record<string, string | undefined>;

function header(h: HeadersLike | undefined, name: string): string | undefined {
  if (h === undefined) return undefined;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(h as Record<string, string | undefined>)) {
    if (k.toLowerCase() === lower) return v;
  }
  return undefined;
}

/**
 * Reads the delay a response asks for from its headers, in seconds, as
 * fault.ParseRetryAfter does: Retry-After-Ms (milliseconds, as OpenAI and
 * Anthropic send it), then Retry-After as delay-seconds or as an HTTP-date
 * measured from now (milliseconds since the epoch). A date in the past is a
 * zero delay; delays are capped at MAX_RETRY_AFTER_SECONDS. Returns
 * undefined when no header gives a usable delay.
 */
export function parseRetryAfter(headers: HeadersLike | undefined, now: number = Date.now()): number | undefined {
  const ms = header(headers, 'Retry-After-Ms')?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) {
    return capSeconds(Number(ms) / 1000);
  }
  const v = header(headers, 'Retry-After')?.trim();
  if (v === undefined || v === '') return undefined;
  if (/^\d+$/.test(v)) return capSeconds(Number(v));
  // Every HTTP-date form (RFC 9110 §5.6.7) starts with a day name; "1.5",
  // "-1" or "30s" is neither delay-seconds nor a date (Date.parse would
  // take "-1" for a year).
  if (!/^[A-Za-z]{3}/.test(v)) return undefined;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return capSeconds(Math.max(0, Math.ceil((date - now) / 1000)));
}

/**
 * The code a response with no Triage code is read as, by its status, as
 * fault.FromStatus reads an upstream's: 429 RATE_LIMITED, 503 and 529
 * SERVICE_UNAVAILABLE, 408 TIMEOUT, 402 QUOTA_EXHAUSTED, 413
 * PAYLOAD_TOO_LARGE, any other 4xx UPSTREAM_ERROR and any 5xx a retryable
 * UPSTREAM_ERROR. One difference: 401 and 403 are TENANT_REQUIRED and
 * TENANT_UNAUTHORIZED, since for a browser they are its own credentials
 * that were refused (an auth proxy's answer), not a provider's.
 */
function statusCode(status: number): { code: AGUIErrorCode; retryable: boolean; category?: ErrorCategory } {
  switch (status) {
    case 429:
      return { code: AGUIErrorCode.RATE_LIMITED, retryable: true };
    case 503:
    case 529:
      return { code: AGUIErrorCode.SERVICE_UNAVAILABLE, retryable: true, category: 'UPSTREAM' };
    case 408:
      return { code: AGUIErrorCode.TIMEOUT, retryable: true };
    case 401:
      return { code: AGUIErrorCode.TENANT_REQUIRED, retryable: false };
    case 403:
      return { code: AGUIErrorCode.TENANT_UNAUTHORIZED, retryable: false };
    case 402:
      return { code: AGUIErrorCode.QUOTA_EXHAUSTED, retryable: false };
    case 413:
      return { code: AGUIErrorCode.PAYLOAD_TOO_LARGE, retryable: false };
  }
  return { code: AGUIErrorCode.UPSTREAM_ERROR, retryable: status >= 500 };
}

/** What parseProblem knows besides the body. */
export interface ProblemInit {
  /** The response's HTTP status; the document's status member wins when it has a valid one. */
  status?: number;
  /** The response's headers, for Retry-After and Retry-After-Ms. */
  headers?: HeadersLike;
  /** The time HTTP-dates are measured from, in milliseconds since the epoch; defaults to Date.now(). */
  now?: number;
}

/**
 * Reads a problem+json document (RFC 9457), as Triage writes it for a
 * request it refuses (wire/problem): type, title, status, detail, instance,
 * and Triage's members code, category, domain, retryable, retry_after
 * (whole seconds), session_valid, details and errors. body is the document,
 * as text or already parsed; anything that is not a JSON object reads as a
 * document without members.
 *
 * As in the Go reader, a member of the wrong type is ignored, and:
 *
 * - a code the table knows gives the code, detail the message (the code's
 *   default when empty), status (400 to 599) the HTTP status;
 * - a code it does not know is GENERIC_CODE with the generic message, and
 *   title and detail go to rawMessage only;
 * - with no code, the status decides (see statusCode: 429 is RATE_LIMITED,
 *   503 SERVICE_UNAVAILABLE, …), and with no usable status either it is an
 *   UPSTREAM_ERROR.
 *
 * retryAfter is the longer of the document's retry_after and the
 * Retry-After-Ms or Retry-After header (seconds or an HTTP-date); Triage
 * writes the same number in both. parseProblem never throws.
 */
export function parseProblem(body: unknown, init: ProblemInit = {}): AGUIErrorData {
  let doc: unknown = body;
  if (typeof body === 'string') {
    try {
      doc = JSON.parse(body);
    } catch {
      doc = undefined;
    }
  }
  const p = isObject(doc) ? doc : {};
  const str = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : '');
  const status = isErrorStatus(p.status) ? p.status : isErrorStatus(init.status) ? init.status : undefined;
  const rawCode = str('code');
  const rawMessage = [str('title'), str('detail')].filter((s) => s !== '').join(': ');
  const facets: Facets = {};
  let code: AGUIErrorCode;
  let safe = '';
  if (rawCode !== '') {
    code = isKnownCode(rawCode) ? rawCode : GENERIC_CODE;
    if (isKnownCode(rawCode)) safe = str('detail');
    if (status !== undefined) facets.httpStatus = status;
  } else if (status !== undefined) {
    const s = statusCode(status);
    code = s.code;
    facets.httpStatus = status;
    facets.retryable = s.retryable;
    if (s.category !== undefined) facets.category = s.category;
  } else {
    code = AGUIErrorCode.UPSTREAM_ERROR;
  }
  if (isCategory(p.category)) facets.category = p.category;
  if (isDomain(p.domain)) facets.domain = p.domain;
  if (typeof p.retryable === 'boolean') facets.retryable = p.retryable;
  if (typeof p.session_valid === 'boolean') facets.sessionValid = p.session_valid;
  if (isObject(p.details)) facets.details = p.details;
  if (isFieldErrorList(p.errors)) facets.fieldErrors = fieldErrors(p.errors);
  const bodyAfter =
    typeof p.retry_after === 'number' && Number.isFinite(p.retry_after) && p.retry_after > 0
      ? capSeconds(p.retry_after)
      : 0;
  const headerAfter = parseRetryAfter(init.headers, init.now) ?? 0;
  if (Math.max(bodyAfter, headerAfter) > 0) facets.retryAfter = Math.max(bodyAfter, headerAfter);
  return build(code, rawCode, safe, rawMessage, facets, 'problem');
}

/**
 * Reads a failed fetch Response: its body as a problem document (whatever
 * its content type; a body that is not JSON reads as no document), its
 * status and its Retry-After headers. See parseProblem.
 */
export async function readProblem(response: Response, now?: number): Promise<AGUIErrorData> {
  let text = '';
  try {
    text = await response.text();
  } catch {
    // A body that cannot be read says nothing: the status still does.
  }
  const init: ProblemInit = { status: response.status, headers: response.headers };
  if (now !== undefined) init.now = now;
  return parseProblem(text, init);
}

/**
 * Reads whatever a run failed with: the error onRunFailed receives, or the
 * rejection of HttpAgent.runAgent.
 *
 * - HttpAgent's error for a response that is not ok (Error("HTTP 503: …")
 *   with status and payload, the body, parsed when its content type is
 *   application/json) is read with parseProblem. HttpAgent does not keep
 *   the response's headers; Triage writes the Retry-After header's delay in
 *   the document's retry_after too.
 * - An AbortError (the application aborted the run) is CANCELLED.
 * - An AGUIError (the client's own checks refused the event stream) is
 *   PROTOCOL_ERROR.
 * - A TypeError (fetch's network failure) is TRANSPORT_ERROR.
 * - Anything else is GENERIC_CODE.
 *
 * The error's text goes to rawMessage only. parseError never throws.
 */
export function parseError(error: unknown): AGUIErrorData {
  const e = isObject(error) || error instanceof Error ? (error as Record<string, unknown>) : {};
  const rawMessage = typeof e.message === 'string' ? e.message : error === undefined ? '' : String(error);
  if (typeof e.status === 'number') {
    const data = parseProblem(e.payload, { status: e.status });
    return { ...data, rawMessage: data.rawMessage || rawMessage };
  }
  let code: AGUIErrorCode = GENERIC_CODE;
  if (e.name === 'AbortError') code = AGUIErrorCode.CANCELLED;
  else if (error instanceof AGUIError || e.name === 'AGUIError') code = AGUIErrorCode.PROTOCOL_ERROR;
  else if (error instanceof TypeError) code = AGUIErrorCode.TRANSPORT_ERROR;
  return build(code, '', '', rawMessage, {}, 'exception');
}

/**
 * Reports whether retrying may succeed. For an error: its retryable facet,
 * or a retryAfter, since a server that says when to retry says that one
 * may. For a code: the table's default (false for a code it does not know).
 */
export function isRetryableError(error: AGUIErrorData | AGUIErrorCode | string): boolean {
  if (typeof error === 'string') return isKnownCode(error) && CODES[error].retryable;
  return error.retryable || (error.retryAfter ?? 0) > 0;
}

/** Tunes retryDelay's backoff; the defaults are the Go resilience package's. */
export interface BackoffOptions {
  /** The wait before the first retry, in milliseconds; each later one doubles it. Defaults to 500. */
  baseDelayMs?: number;
  /** The longest backoff, in milliseconds (a server's retryAfter may be longer, and wins). Defaults to 30000. */
  maxDelayMs?: number;
}

/**
 * Returns how long to wait, in milliseconds, before retry number attempt
 * (1 for the first) of what failed with error, or undefined when it should
 * not be retried (see isRetryableError). As in Triage's Go retry policy, it
 * is an exponential backoff (500ms, 1s, 2s, … up to 30s) that never ends
 * before the server's retryAfter; without the jitter, so that a countdown
 * can show it.
 */
export function retryDelay(
  error: AGUIErrorData | AGUIErrorCode | string,
  attempt = 1,
  opts: BackoffOptions = {},
): number | undefined {
  if (!isRetryableError(error)) return undefined;
  const base = opts.baseDelayMs ?? 500;
  const max = Math.max(opts.maxDelayMs ?? 30_000, base);
  const shift = Math.max(0, Math.floor(attempt) - 1);
  const backoff = shift < 30 ? Math.min(base * 2 ** shift, max) : max;
  const after = typeof error === 'string' ? 0 : (error.retryAfter ?? 0) * 1000;
  return Math.max(backoff, after);
}
