import { AGUIError } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';

import { problemResponse, runError } from '../../../src/test/golden';
import { AGUIErrorCode, CODE_ORDER, CODES, MAX_RETRY_AFTER_SECONDS } from './codes.js';
import {
  GENERIC_CODE,
  isRetryableError,
  parseError,
  parseProblem,
  parseRetryAfter,
  parseRunError,
  readProblem,
  retryDelay,
} from './errors.js';

describe('parseRunError on the RUN_ERROR events Triage writes (wire/agui/testdata)', () => {
  it('reads a rate limit: code, message and every metadata facet', () => {
    const e = parseRunError(runError('run_error_rate_limited.golden'));
    expect(e).toEqual({
      code: AGUIErrorCode.RATE_LIMITED,
      rawCode: 'RATE_LIMITED',
      message: 'Request rate limit exceeded. Please wait before retrying.',
      rawMessage: 'Request rate limit exceeded. Please wait before retrying.',
      title: 'Rate Limited',
      httpStatus: 429,
      retryable: true,
      retryAfter: 60,
      sessionValid: true,
      category: 'UPSTREAM',
      domain: 'client',
      details: { limit: 'requests_per_minute' },
      fieldErrors: [],
      source: 'gateway',
      origin: 'run_error',
    });
    expect(isRetryableError(e)).toBe(true);
    expect(retryDelay(e)).toBe(60_000);
  });

  it('reads the same RUN_ERROR at the end of a stream that failed mid-answer', () => {
    const e = parseRunError(runError('error_mid_stream.golden'));
    expect(e.code).toBe(AGUIErrorCode.RATE_LIMITED);
    expect(e.retryAfter).toBe(60);
  });

  it('reads a generic failure: not retryable, no delay', () => {
    const e = parseRunError(runError('run_error.golden'));
    expect(e.code).toBe(AGUIErrorCode.AGENT_EXECUTION_ERROR);
    expect(e.message).toBe('An error occurred processing your request.');
    expect(e.httpStatus).toBe(500);
    expect(e.retryable).toBe(false);
    expect(e.retryAfter).toBeUndefined();
    expect(e.category).toBe('INTERNAL');
    expect(e.domain).toBe('system');
    expect(e.details).toEqual({});
    expect(e.source).toBeUndefined();
    expect(isRetryableError(e)).toBe(false);
    expect(retryDelay(e)).toBeUndefined();
  });

  it('keeps debug details (error_type) from a server in debug mode', () => {
    const e = parseRunError(runError('run_error_debug.golden'));
    expect(e.details).toEqual({ error_type: '*errors.errorString' });
    expect(e.code).toBe(AGUIErrorCode.AGENT_EXECUTION_ERROR);
  });

  it('falls back to the code table when the event has no metadata', () => {
    // events.golden ends with a bare RUN_ERROR: code and message only.
    const event = runError('events.golden');
    expect(event.metadata).toBeUndefined();
    const e = parseRunError(event);
    expect(e.code).toBe(AGUIErrorCode.TIMEOUT);
    expect(e.httpStatus).toBe(504);
    expect(e.retryable).toBe(true);
    expect(e.sessionValid).toBe(true);
    expect(e.category).toBe('TIMEOUT');
    expect(e.domain).toBe('system');
    expect(e.retryAfter).toBeUndefined();
    expect(retryDelay(e)).toBe(500);
  });
});

describe('parseRunError on other producers and edge cases', () => {
  it('reads an unknown code as the generic code and keeps its text out of message', () => {
    const e = parseRunError({
      code: 'FROM_A_NEWER_PEER',
      message: 'db password=hunter2 rejected',
      metadata: { http_status: 503, retryable: true, retry_after: 3, category: 'TRANSPORT' },
    });
    expect(e.code).toBe(GENERIC_CODE);
    expect(e.rawCode).toBe('FROM_A_NEWER_PEER');
    expect(e.message).toBe(CODES[GENERIC_CODE].message);
    expect(e.rawMessage).toBe('db password=hunter2 rejected');
    // Triage-shaped metadata still applies, as a newer Triage sends it.
    expect(e.httpStatus).toBe(503);
    expect(e.retryable).toBe(true);
    expect(e.retryAfter).toBe(3);
    expect(e.category).toBe('TRANSPORT');
  });

  it('reads an event without a code as the generic code', () => {
    const e = parseRunError({ message: 'boom' });
    expect(e.code).toBe(AGUIErrorCode.AGENT_EXECUTION_ERROR);
    expect(e.rawCode).toBe('');
    expect(e.message).toBe('An error occurred processing your request.');
  });

  it("reads @ag-ui/client's own abort event as CANCELLED", () => {
    const e = parseRunError({ code: 'abort', message: 'This operation was aborted' });
    expect(e.code).toBe(AGUIErrorCode.CANCELLED);
    expect(e.message).toBe('The request was cancelled.');
    expect(e.retryable).toBe(false);
  });

  it("uses the code's default message when the event's is empty", () => {
    expect(parseRunError({ code: 'SESSION_NOT_FOUND', message: '  ' }).message).toBe(
      'Session expired or not found. Please start a new session.',
    );
  });

  it('ignores metadata that is not of Triage shape as a whole', () => {
    for (const metadata of [
      { http_status: '503', retryable: true },
      { http_status: 200, retryable: true },
      { category: 'NETWORK', retryable: true },
      { domain: 'user', retryable: true },
      { retry_after: -1, retryable: true },
      { retry_after: '30', retryable: true },
      { retryable: 'yes' },
      { details: ['a'], retryable: true },
      { errors: [{ field: 1 }], retryable: true },
      { source: 42, retryable: true },
      { debug: 'x', retryable: true },
    ]) {
      const e = parseRunError({ code: 'UPSTREAM_ERROR', message: 'Upstream failed', metadata });
      expect(e.retryable, JSON.stringify(metadata)).toBe(false);
      expect(e.httpStatus, JSON.stringify(metadata)).toBe(502);
      expect(e.retryAfter, JSON.stringify(metadata)).toBeUndefined();
    }
  });

  it('accepts nulls and unknown members, and caps retry_after', () => {
    const e = parseRunError({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Service temporarily unavailable. Please try again later.',
      metadata: { http_status: null, details: null, retry_after: 1e9, tenant: 'acme', 'ag-ui': {} },
    });
    expect(e.httpStatus).toBe(503);
    expect(e.retryAfter).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(e.details).toEqual({});
  });

  it('keeps fractional delays and field errors', () => {
    const e = parseRunError({
      code: 'INVALID_REQUEST',
      message: 'The run request has 1 invalid field.',
      metadata: { retry_after: 1.5, errors: [{ field: 'messages', message: 'is required' }] },
    });
    expect(e.retryAfter).toBe(1.5);
    expect(e.fieldErrors).toEqual([{ field: 'messages', message: 'is required' }]);
    // A delay makes even INVALID_REQUEST retryable: the server said when.
    expect(isRetryableError(e)).toBe(true);
  });

  it('never throws on garbage', () => {
    for (const event of [null, undefined, {}, { code: 7, message: {} }, { metadata: 'x' }]) {
      const e = parseRunError(event as never);
      expect(e.code).toBe(GENERIC_CODE);
    }
  });

  it("gives every code of the table its row's facets", () => {
    for (const code of CODE_ORDER) {
      const spec = CODES[code];
      const e = parseRunError({ code, message: '' });
      expect(e.code).toBe(code);
      expect(e.message).toBe(spec.message);
      expect(e.title).toBe(spec.title);
      expect(e.httpStatus).toBe(spec.httpStatus);
      expect(e.retryable).toBe(spec.retryable);
      expect(e.sessionValid).toBe(spec.sessionValid);
      expect(e.category).toBe(spec.category);
      expect(e.domain).toBe(spec.domain);
      expect(isRetryableError(code)).toBe(spec.retryable);
    }
  });
});

describe('parseProblem on the problem responses Triage writes (wire/problem/testdata)', () => {
  it('reads a rate limit with its Retry-After header', () => {
    const r = problemResponse('rate_limited.golden');
    expect(r.headers['Retry-After']).toBe('30');
    const e = parseProblem(r.body, { status: r.status, headers: r.headers });
    expect(e).toEqual({
      code: AGUIErrorCode.RATE_LIMITED,
      rawCode: 'RATE_LIMITED',
      message: 'Request rate limit exceeded. Please wait before retrying.',
      rawMessage: 'Rate Limited: Request rate limit exceeded. Please wait before retrying.',
      title: 'Rate Limited',
      httpStatus: 429,
      retryable: true,
      retryAfter: 30,
      sessionValid: true,
      category: 'UPSTREAM',
      domain: 'client',
      details: { limit: 60, window: '1m' },
      fieldErrors: [],
      origin: 'problem',
    });
    expect(retryDelay(e)).toBe(30_000);
  });

  it('reads an invalid request with its fields', () => {
    const r = problemResponse('invalid_request_with_errors.golden');
    const e = parseProblem(r.body, { status: r.status, headers: r.headers });
    expect(e.code).toBe(AGUIErrorCode.INVALID_REQUEST);
    expect(e.message).toBe('The run request has 2 invalid fields.');
    expect(e.httpStatus).toBe(400);
    expect(e.retryable).toBe(false);
    expect(e.fieldErrors).toEqual([
      { field: 'agent_id', message: 'is required' },
      { field: 'input.messages[0].role', message: 'must be user or assistant' },
    ]);
    expect(retryDelay(e)).toBeUndefined();
  });

  it("reads an unknown code without trusting the peer's text", () => {
    const r = problemResponse('unknown_code.golden');
    const e = parseProblem(JSON.parse(r.body), { status: r.status });
    expect(e.code).toBe(GENERIC_CODE);
    expect(e.rawCode).toBe('FROM_A_NEWER_PEER');
    expect(e.message).toBe('An error occurred processing your request.');
    expect(e.rawMessage).toBe('Service Unavailable: Something new went wrong.');
    expect(e.httpStatus).toBe(503);
  });

  it('reads a generic failure, with or without debug output', () => {
    for (const name of ['agent_execution_nodebug.golden', 'agent_execution_debug.golden']) {
      const r = problemResponse(name);
      const e = parseProblem(r.body, { status: r.status, headers: r.headers });
      expect(e.code).toBe(AGUIErrorCode.AGENT_EXECUTION_ERROR);
      expect(e.httpStatus).toBe(500);
      expect(e.retryable).toBe(false);
      expect(e.sessionValid).toBe(true);
    }
  });
});

describe('parseProblem on other responses', () => {
  it('classifies a response without a code by its status', () => {
    const cases: [number, AGUIErrorCode, boolean][] = [
      [429, AGUIErrorCode.RATE_LIMITED, true],
      [503, AGUIErrorCode.SERVICE_UNAVAILABLE, true],
      [529, AGUIErrorCode.SERVICE_UNAVAILABLE, true],
      [408, AGUIErrorCode.TIMEOUT, true],
      [401, AGUIErrorCode.TENANT_REQUIRED, false],
      [403, AGUIErrorCode.TENANT_UNAUTHORIZED, false],
      [402, AGUIErrorCode.QUOTA_EXHAUSTED, false],
      [413, AGUIErrorCode.PAYLOAD_TOO_LARGE, false],
      [404, AGUIErrorCode.UPSTREAM_ERROR, false],
      [502, AGUIErrorCode.UPSTREAM_ERROR, true],
      [500, AGUIErrorCode.UPSTREAM_ERROR, true],
    ];
    for (const [status, code, retryable] of cases) {
      const e = parseProblem('<html>Bad Gateway</html>', { status });
      expect(e.code, String(status)).toBe(code);
      expect(e.retryable, String(status)).toBe(retryable);
      expect(e.httpStatus, String(status)).toBe(status);
      expect(e.message, String(status)).toBe(CODES[code].message);
    }
  });

  it('reads a document with neither code nor status as an UPSTREAM_ERROR', () => {
    const e = parseProblem({ title: 'Oops' });
    expect(e.code).toBe(AGUIErrorCode.UPSTREAM_ERROR);
    expect(e.httpStatus).toBe(502);
    expect(e.rawMessage).toBe('Oops');
  });

  it("prefers the document's status to the response's", () => {
    expect(parseProblem({ code: 'TIMEOUT', status: 504 }, { status: 500 }).httpStatus).toBe(504);
    expect(parseProblem({ code: 'TIMEOUT', status: 'x' }, { status: 500 }).httpStatus).toBe(500);
  });

  it('ignores members of the wrong type one by one', () => {
    const e = parseProblem({
      code: 'SERVICE_UNAVAILABLE',
      detail: 42,
      retryable: 'no',
      category: 'NOPE',
      session_valid: false,
      retry_after: '5',
    });
    expect(e.message).toBe(CODES[AGUIErrorCode.SERVICE_UNAVAILABLE].message);
    expect(e.retryable).toBe(true);
    expect(e.category).toBe('TRANSPORT');
    expect(e.sessionValid).toBe(false);
    expect(e.retryAfter).toBeUndefined();
  });

  it('reads Retry-After as an HTTP date, measured from now', () => {
    const now = Date.parse('2026-01-11T12:00:00Z');
    const e = parseProblem('', {
      status: 503,
      headers: new Headers({ 'Retry-After': 'Sun, 11 Jan 2026 12:02:00 GMT' }),
      now,
    });
    expect(e.code).toBe(AGUIErrorCode.SERVICE_UNAVAILABLE);
    expect(e.retryAfter).toBe(120);
    expect(retryDelay(e)).toBe(120_000);
  });

  it('takes the longer of the body and header delays', () => {
    expect(parseProblem({ code: 'RATE_LIMITED', retry_after: 5 }, { headers: { 'retry-after': '9' } }).retryAfter).toBe(9);
    expect(parseProblem({ code: 'RATE_LIMITED', retry_after: 12 }, { headers: { 'retry-after': '9' } }).retryAfter).toBe(12);
  });

  it('reads a fetch Response', async () => {
    const r = problemResponse('rate_limited.golden');
    const e = await readProblem(new Response(r.body, { status: r.status, headers: r.headers }));
    expect(e.code).toBe(AGUIErrorCode.RATE_LIMITED);
    expect(e.retryAfter).toBe(30);
    expect(e.details).toEqual({ limit: 60, window: '1m' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-11T12:00:00Z');
  it.each([
    [{ 'Retry-After': '30' }, 30],
    [{ 'Retry-After': ' 0 ' }, 0],
    [{ 'Retry-After': '999999999' }, MAX_RETRY_AFTER_SECONDS],
    [{ 'Retry-After-Ms': '1500', 'Retry-After': '30' }, 1.5],
    [{ 'Retry-After': 'Sun, 11 Jan 2026 11:00:00 GMT' }, 0],
    [{ 'Retry-After': 'Sun, 11 Jan 2026 12:00:00 GMT' }, 0],
    [{ 'Retry-After': 'Sun, 11 Jan 2026 12:00:01 GMT' }, 1],
  ])('%j is %d seconds', (headers, want) => {
    expect(parseRetryAfter(headers, now)).toBe(want);
  });
  it.each([[{}], [{ 'Retry-After': '' }], [{ 'Retry-After': '-1' }], [{ 'Retry-After': '1.5' }], [{ 'Retry-After': 'soon' }]])(
    '%j gives no delay',
    (headers) => {
      expect(parseRetryAfter(headers, now)).toBeUndefined();
    },
  );
});

describe('parseError on what onRunFailed receives', () => {
  it("reads HttpAgent's error for a problem response", () => {
    // What @ag-ui/client 1.0.0 throws for a response that is not ok: the
    // body as text (a problem+json type is not application/json), and the
    // status. The body is the one triage serve sends over its run bound
    // (server/tenancy.go).
    const body =
      '{"type":"/errors/service-unavailable","title":"Service Unavailable","status":503,"detail":"The service is busy. Please retry shortly.","instance":"/v1/agents/echo/runs","code":"SERVICE_UNAVAILABLE","category":"TRANSPORT","domain":"system","retryable":true,"retry_after":1,"session_valid":true}';
    const error = Object.assign(new Error(`HTTP 503: ${body}`), { status: 503, payload: body });
    const e = parseError(error);
    expect(e.code).toBe(AGUIErrorCode.SERVICE_UNAVAILABLE);
    expect(e.message).toBe('The service is busy. Please retry shortly.');
    expect(e.retryAfter).toBe(1);
    expect(e.origin).toBe('problem');
  });

  it('reads a parsed JSON payload too', () => {
    const error = Object.assign(new Error('HTTP 404: {…}'), {
      status: 404,
      payload: { code: 'CAPABILITY_NOT_FOUND', detail: 'Agent not found: nobody', status: 404 },
    });
    const e = parseError(error);
    expect(e.code).toBe(AGUIErrorCode.CAPABILITY_NOT_FOUND);
    expect(e.message).toBe('Agent not found: nobody');
  });

  it('reads aborts, network failures, protocol violations and the rest', () => {
    expect(parseError(new DOMException('This operation was aborted', 'AbortError')).code).toBe(AGUIErrorCode.CANCELLED);
    const network = parseError(new TypeError('fetch failed'));
    expect(network.code).toBe(AGUIErrorCode.TRANSPORT_ERROR);
    expect(network.retryable).toBe(true);
    expect(network.rawMessage).toBe('fetch failed');
    expect(parseError(new AGUIError('Cannot send event type TEXT_MESSAGE_CONTENT after RUN_ERROR')).code).toBe(
      AGUIErrorCode.PROTOCOL_ERROR,
    );
    const other = parseError(new Error('secret internals'));
    expect(other.code).toBe(GENERIC_CODE);
    expect(other.message).toBe('An error occurred processing your request.');
    expect(parseError('a string').rawMessage).toBe('a string');
    expect(parseError(undefined).code).toBe(GENERIC_CODE);
  });
});

describe('retryDelay', () => {
  it('backs off exponentially from 500ms to 30s', () => {
    expect([1, 2, 3, 4, 7, 8, 100].map((n) => retryDelay(AGUIErrorCode.TIMEOUT, n))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000, 30_000,
    ]);
  });

  it("never ends before the server's retryAfter", () => {
    const e = parseRunError({ code: 'RATE_LIMITED', message: '', metadata: { retry_after: 2 } });
    expect(retryDelay(e, 1)).toBe(2000);
    expect(retryDelay(e, 4)).toBe(4000);
  });

  it('takes other backoff bounds', () => {
    expect(retryDelay('SERVICE_UNAVAILABLE', 3, { baseDelayMs: 100, maxDelayMs: 250 })).toBe(250);
  });

  it('gives no delay for what must not be retried', () => {
    expect(retryDelay(AGUIErrorCode.INVALID_REQUEST)).toBeUndefined();
    expect(retryDelay('FROM_A_NEWER_PEER')).toBeUndefined();
    expect(isRetryableError('FROM_A_NEWER_PEER')).toBe(false);
  });
});
