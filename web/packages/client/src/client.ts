// TriageClient: report errors to a Triage service and read its records,
// over fetch (Node 20 and later, and browsers), with the Go client's
// idempotency and retry rules.

import { protocolProblem, readProblem, transportProblem, TriageProblem } from './problem.js';
import type { ErrorQuery, ErrorRecord, Feedback, Page, ReportInput } from './types.js';

/** How the client retries; every member has a default (the Go client's, resilience.Config). */
export interface RetryOptions {
  /** Attempts in all, the first included. Defaults to 3; 1 turns retries off. */
  maxAttempts?: number;
  /** The backoff before the first retry, in milliseconds; each later one doubles it. Defaults to 500. */
  baseDelayMs?: number;
  /** The longest backoff, in milliseconds (a Retry-After may be longer, and wins). Defaults to 30000. */
  maxDelayMs?: number;
  /**
   * The longest Retry-After the client waits for, in milliseconds: a
   * problem that asks for more is thrown at once, so that a call is not
   * parked for hours. Defaults to 120000 (2 minutes).
   */
  maxRetryAfterMs?: number;
  /** The fraction of each backoff randomised downwards (never below a Retry-After). Defaults to 0.2; 0 for none. */
  jitter?: number;
}

/** Configures a TriageClient. */
export interface ClientOptions {
  /** The service's URL: "http://127.0.0.1:8080", or with a path prefix behind a proxy. Required. */
  baseUrl: string | URL;
  /** Sent as "Authorization: Bearer KEY" (triage serve's API keys). Defaults to none. */
  apiKey?: string;
  /** More headers for every request. Defaults to none. */
  headers?: Record<string, string>;
  /** The fetch to call. Defaults to globalThis.fetch. */
  fetch?: typeof fetch;
  /** How failed calls are retried. */
  retry?: RetryOptions;
  /**
   * How the client waits between attempts: a promise that resolves after
   * ms, or rejects when signal aborts. Defaults to a timer; tests pass their
   * own to record the waits.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, its attempts and its waits: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of one report. */
export interface ReportOptions extends CallOptions {
  /**
   * Sent as the Idempotency-Key instead of a new random one: set it when
   * you retry a report yourself (after a restart, from a queue), so that
   * every try is the same request to the service, recorded once. 1 to 255
   * printable ASCII characters without spaces, quotes or backslashes.
   * Defaults to newIdempotencyKey().
   */
  idempotencyKey?: string;
}

/** A new random Idempotency-Key: a version 4 UUID, from the platform's crypto. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

const validKey = /^[!#-[\]-~]{1,255}$/; // printable ASCII but space, " and \

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A client of a Triage service's error API: report (POST /v1/errors), get
 * (GET /v1/errors/{error_id}) and list (GET /v1/errors).
 *
 * Every call is retried, up to retry.maxAttempts, when it fails in a way a
 * repeat may fix: no response (a network failure), or a problem that is
 * retryable (RATE_LIMITED, SERVICE_UNAVAILABLE, TIMEOUT, SESSION_BUSY, …).
 * It waits the longer of an exponential backoff (500ms, 1s, 2s, … up to
 * 30s, with jitter) and the service's Retry-After (the header, or the
 * problem's retry_after); a Retry-After longer than retry.maxRetryAfterMs
 * is not waited for: the problem is thrown at once. A report is safe to
 * repeat: each attempt carries the same Idempotency-Key, so the service
 * records it once and answers a repeat with the first answer.
 *
 * Every failure rejects with a TriageProblem, but an abort, which rejects
 * with the signal's reason.
 *
 *     const triage = new TriageClient({ baseUrl: 'http://127.0.0.1:8080' });
 *     const feedback = await triage.report({ agent_id: 'planner', data: { query_id: 'q1', message: 'upstream 503' } });
 *     const record = await triage.get(feedback.error_id);
 */
export class TriageClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #retry: Required<RetryOptions>;

  constructor(options: ClientOptions) {
    const base = new URL(String(options.baseUrl));
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`TriageClient: baseUrl must be an http or https URL, not ${base.protocol}`);
    }
    this.#base = base.href.endsWith('/') ? base.href : `${base.href}/`;
    this.#headers = { ...options.headers };
    if (options.apiKey !== undefined && options.apiKey !== '') {
      if (!/^[!-~]+$/.test(options.apiKey)) {
        throw new TypeError('TriageClient: apiKey must be printable ASCII without spaces');
      }
      this.#headers.Authorization = `Bearer ${options.apiKey}`;
    }
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('TriageClient: no fetch: pass options.fetch');
    // Called unbound, a browser's fetch throws "Illegal invocation".
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#sleep = options.sleep ?? defaultSleep;
    const r = options.retry ?? {};
    this.#retry = {
      maxAttempts: Math.max(1, Math.floor(r.maxAttempts ?? 3)),
      baseDelayMs: r.baseDelayMs ?? 500,
      maxDelayMs: r.maxDelayMs ?? 30_000,
      maxRetryAfterMs: r.maxRetryAfterMs ?? 120_000,
      jitter: Math.min(1, Math.max(0, r.jitter ?? 0.2)),
    };
  }

  /**
   * Reports an error (POST /v1/errors) and returns the service's feedback:
   * for a new error (201), or the feedback given before for a repeat of the
   * same Idempotency-Key (200, duplicate: true). timestamp defaults to now
   * and status to "error"; the service validates the rest (an invalid
   * report is an INVALID_REQUEST problem, its fields listing each field).
   */
  async report(report: ReportInput, options: ReportOptions = {}): Promise<Feedback> {
    const key = options.idempotencyKey ?? newIdempotencyKey();
    if (!validKey.test(key)) {
      throw new TriageProblem({
        code: 'INVALID_REQUEST',
        status: 0,
        title: 'Invalid Request',
        detail: 'The idempotency key is invalid.',
        retryable: false,
        fields: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters without spaces, quotes or backslashes' }],
      });
    }
    const body = JSON.stringify({ ...report, timestamp: report.timestamp ?? new Date().toISOString(), status: report.status ?? 'error' });
    const feedback = await this.#call<Feedback>('POST', 'v1/errors', options.signal, [200, 201], {
      body,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
    });
    if (typeof feedback.error_id !== 'string' || feedback.error_id === '') {
      throw protocolProblem(201, 'the feedback has no error_id');
    }
    return feedback;
  }

  /**
   * Returns the record of an error (GET /v1/errors/{error_id}): its latest
   * report and feedback, its latest occurrences and jobs. An id the service
   * does not know (or another tenant's) is a NOT_FOUND problem.
   */
  get(errorId: string, options: CallOptions = {}): Promise<ErrorRecord> {
    return this.#call<ErrorRecord>('GET', `v1/errors/${encodeURIComponent(errorId)}`, options.signal, [200]);
  }

  /**
   * Lists error records (GET /v1/errors): a page of summaries, filtered,
   * sorted and paged as query says (pass page.next_cursor as cursor for
   * the next page). An invalid filter is an INVALID_REQUEST problem.
   */
  list(query: ErrorQuery = {}, options: CallOptions = {}): Promise<Page> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    }
    const qs = params.toString();
    return this.#call<Page>('GET', qs === '' ? 'v1/errors' : `v1/errors?${qs}`, options.signal, [200]);
  }

  /** Makes a call, its attempts and waits; resolves to the JSON of an ok answer. */
  async #call<T>(
    method: string,
    path: string,
    signal: AbortSignal | undefined,
    ok: number[],
    extra: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const url = new URL(path, this.#base);
    const init: RequestInit = {
      method,
      headers: { Accept: 'application/json, application/problem+json', ...this.#headers, ...extra.headers },
    };
    if (extra.body !== undefined) init.body = extra.body;
    if (signal !== undefined) init.signal = signal;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      let problem: TriageProblem;
      let response: Response | undefined;
      try {
        response = await this.#fetch(url, init);
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        problem = transportProblem(e);
      }
      if (response !== undefined) {
        if (ok.includes(response.status)) {
          let text: string;
          try {
            text = await response.text();
          } catch (e) {
            if (signal?.aborted) throw signal.reason;
            // The answer was cut off; the call is idempotent: try again.
            problem = transportProblem(e);
            if (!(await this.#wait(problem, attempt, signal))) throw problem;
            continue;
          }
          try {
            return JSON.parse(text) as T;
          } catch {
            throw protocolProblem(response.status, 'its body is not JSON');
          }
        }
        problem =
          response.status >= 400 && response.status <= 599
            ? await readProblem(response)
            : protocolProblem(response.status, `unexpected status ${response.status}`);
      }
      if (!(await this.#wait(problem!, attempt, signal))) throw problem!;
    }
  }

  /** Waits before the next attempt and returns true, or returns false when problem is not to be retried. */
  async #wait(problem: TriageProblem, attempt: number, signal: AbortSignal | undefined): Promise<boolean> {
    const r = this.#retry;
    if (!problem.retryable || attempt >= r.maxAttempts) return false;
    const afterMs = (problem.retryAfter ?? 0) * 1000;
    if (afterMs > r.maxRetryAfterMs) return false;
    const shift = attempt - 1;
    const backoff = shift < 30 ? Math.min(r.baseDelayMs * 2 ** shift, r.maxDelayMs) : r.maxDelayMs;
    const jittered = backoff - backoff * r.jitter * Math.random();
    await this.#sleep(Math.max(jittered, afterMs), signal);
    return true;
  }
}
