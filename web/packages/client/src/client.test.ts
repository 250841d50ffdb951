// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';

import { problemResponse } from '../../../src/test/golden';
import { newIdempotencyKey, TriageClient, type ClientOptions } from './client.js';
import { isTriageProblem, parseRetryAfter, TriageProblem } from './problem.js';

/** A recorded problem response of wire/problem/testdata, as fetch returns it. */
function golden(name: string): () => Response {
  const r = problemResponse(name);
  return () => new Response(r.body, { status: r.status, headers: r.headers });
}

function json(status: number, body: unknown): () => Response {
  return () => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

const feedback = { error_id: 'err_1', duplicate: false };

/** A client whose fetch answers with responses in turn, recording each request, and whose waits are recorded, not slept. */
function setup(responses: (() => Response | Promise<Response>)[], options: Partial<ClientOptions> = {}) {
  const requests: { url: string; method: string; headers: Headers; body: string | undefined }[] = [];
  const waits: number[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : undefined,
    });
    const next = responses.shift();
    if (!next) throw new Error('unexpected request');
    return next();
  });
  const client = new TriageClient({
    baseUrl: 'http://triage.test',
    fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { client, fetch, requests, waits };
}

const report = { agent_id: 'planner', data: { query_id: 'q-1', message: 'upstream returned 503' } };

describe('TriageClient.report', () => {
  it('posts the report with a new Idempotency-Key, a timestamp and status, and returns the feedback', async () => {
    const { client, requests } = setup([json(201, feedback)], { apiKey: 'k-123' });
    await expect(client.report(report)).resolves.toEqual(feedback);
    const [r] = requests;
    expect(r?.method).toBe('POST');
    expect(r?.url).toBe('http://triage.test/v1/errors');
    expect(r?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r?.headers.get('Authorization')).toBe('Bearer k-123');
    expect(r?.headers.get('Content-Type')).toBe('application/json');
    const body = JSON.parse(r?.body ?? '');
    expect(body).toMatchObject({ ...report, status: 'error' });
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  });

  it('keeps the base URL path and the caller’s key', async () => {
    const { client, requests } = setup([json(200, { ...feedback, duplicate: true })], { baseUrl: 'https://example.test/triage' });
    await expect(client.report(report, { idempotencyKey: 'order-42' })).resolves.toMatchObject({ duplicate: true });
    expect(requests[0]?.url).toBe('https://example.test/triage/v1/errors');
    expect(requests[0]?.headers.get('Idempotency-Key')).toBe('order-42');
  });

  it('refuses an Idempotency-Key the service could not read, sending nothing', async () => {
    const { client, fetch } = setup([]);
    for (const key of ['', 'has space', 'quo"te', 'back\\slash', 'x'.repeat(256), 'é']) {
      const err = await client.report(report, { idempotencyKey: key }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TriageProblem);
      expect(err).toMatchObject({ code: 'INVALID_REQUEST', fields: [expect.objectContaining({ field: 'Idempotency-Key' })] });
    }
    expect(fetch).not.toHaveBeenCalled();
  });

  it("retries a rate limit after the service's Retry-After, with the same Idempotency-Key", async () => {
    const { client, requests, waits } = setup([golden('rate_limited.golden'), json(201, feedback)]);
    await expect(client.report(report)).resolves.toEqual(feedback);
    expect(requests.length).toBe(2);
    expect(waits).toEqual([30_000]);
    const keys = requests.map((r) => r.headers.get('Idempotency-Key'));
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    expect(requests[1]?.body).toBe(requests[0]?.body);
  });

  it('backs off exponentially, bounded, without a Retry-After, and gives up after maxAttempts', async () => {
    const busy = () => new Response('overloaded', { status: 503 });
    const { client, requests, waits } = setup([busy, busy, busy, busy, busy], {
      retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300, jitter: 0 },
    });
    const err = await client.report(report).catch((e: unknown) => e);
    expect(requests.length).toBe(5);
    expect(waits).toEqual([100, 200, 300, 300]);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryable: true });
  });

  it('jitters the backoff downwards, never below a Retry-After', async () => {
    const busy = () => new Response('', { status: 503, headers: { 'Retry-After': '1' } });
    const { client, waits } = setup([busy, busy, json(201, feedback)], { retry: { baseDelayMs: 2000, jitter: 1 } });
    await client.report(report);
    expect(waits.length).toBe(2);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000);
    expect(waits[1]).toBeLessThanOrEqual(4000);
  });

  it('does not wait for a Retry-After past maxRetryAfterMs', async () => {
    const later = () => new Response('', { status: 429, headers: { 'Retry-After': '3600' } });
    const { client, requests, waits } = setup([later]);
    const err = await client.report(report).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 3600 });
    expect(requests.length).toBe(1);
    expect(waits).toEqual([]);
  });

  it('retries a network failure, and reports it as TRANSPORT_ERROR with no status when it persists', async () => {
    const down = () => Promise.reject(new TypeError('fetch failed'));
    const { client, requests } = setup([down, down, down]);
    const err = await client.report(report).catch((e: unknown) => e);
    expect(requests.length).toBe(3);
    expect(err).toBeInstanceOf(TriageProblem);
    expect(err).toMatchObject({ code: 'TRANSPORT_ERROR', status: 0, retryable: true });
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  });

  it('throws a problem it must not retry at once, with its fields, details and document', async () => {
    const { client, requests } = setup([golden('invalid_request_with_errors.golden')]);
    const err = await client.report(report).catch((e: unknown) => e);
    expect(requests.length).toBe(1);
    expect(isTriageProblem(err)).toBe(true);
    const p = err as TriageProblem;
    const recorded = JSON.parse(problemResponse('invalid_request_with_errors.golden').body);
    expect(p.code).toBe('INVALID_REQUEST');
    expect(p.status).toBe(400);
    expect(p.title).toBe(recorded.title);
    expect(p.detail).toBe(recorded.detail);
    expect(p.fields).toEqual(recorded.errors);
    expect(p.fields.length).toBeGreaterThan(0);
    expect(p.retryable).toBe(false);
    expect(p.problem).toEqual(recorded);
    expect(p.message).toBe(`INVALID_REQUEST: ${recorded.detail}`);
  });

  it('retries SESSION_BUSY (the same key in flight), as the Go client does', async () => {
    const busy = json(409, { type: '/errors/session-busy', title: 'Session Busy', status: 409, detail: 'busy', code: 'SESSION_BUSY', retryable: false });
    const { client, waits } = setup([busy, json(200, { ...feedback, duplicate: true })], { retry: { jitter: 0 } });
    await expect(client.report(report)).resolves.toMatchObject({ duplicate: true });
    expect(waits).toEqual([500]);
  });

  it('reads an answer without a problem document by its status, and a broken answer as PROTOCOL_ERROR', async () => {
    const { client } = setup([() => new Response('<html>no</html>', { status: 404 }), json(201, { nope: true })]);
    await expect(client.get('err_x')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, retryable: false });
    await expect(client.report(report)).rejects.toMatchObject({ code: 'PROTOCOL_ERROR', retryable: false });
  });

  it('stops when the signal aborts, in a wait, with its reason', async () => {
    const controller = new AbortController();
    const { client, requests } = setup([golden('rate_limited.golden'), json(201, feedback)], {
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('shutting down'));
        }),
    });
    await expect(client.report(report, { signal: controller.signal })).rejects.toThrow('shutting down');
    expect(requests.length).toBe(1);
  });
});

describe('TriageClient.get and list', () => {
  it('gets a record by its id, escaped', async () => {
    const record = { error_id: 'a/b', agent_id: 'planner' };
    const { client, requests } = setup([json(200, record)]);
    await expect(client.get('a/b')).resolves.toEqual(record);
    expect(requests[0]?.url).toBe('http://triage.test/v1/errors/a%2Fb');
    expect(requests[0]?.method).toBe('GET');
    expect(requests[0]?.headers.get('Idempotency-Key')).toBeNull();
  });

  it('lists with the query GET /v1/errors takes, leaving out what is unset', async () => {
    const page = { records: [], total: 0 };
    const { client, requests } = setup([json(200, page), json(200, page)]);
    await expect(client.list()).resolves.toEqual(page);
    await client.list({ agent_id: 'planner', status: 'unresolved', sort: 'count', window: '24h', limit: 10, q: 'db timeout', cursor: undefined });
    expect(requests[0]?.url).toBe('http://triage.test/v1/errors');
    const url = new URL(requests[1]?.url ?? '');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      agent_id: 'planner',
      status: 'unresolved',
      sort: 'count',
      window: '24h',
      limit: '10',
      q: 'db timeout',
    });
  });

  it('retries a GET that got no answer', async () => {
    const { client, requests } = setup([() => Promise.reject(new TypeError('reset')), json(200, { records: [], total: 0 })]);
    await client.list();
    expect(requests.length).toBe(2);
  });
});

describe('options and helpers', () => {
  it('refuses a base URL that is not http(s), and an API key that would break its header', () => {
    expect(() => new TriageClient({ baseUrl: 'ftp://x' })).toThrow(TypeError);
    expect(() => new TriageClient({ baseUrl: 'http://x', apiKey: 'a b' })).toThrow(TypeError);
  });

  it('makes a new key each time', () => {
    expect(newIdempotencyKey()).not.toBe(newIdempotencyKey());
  });

  it('reads Retry-After as seconds or an HTTP-date', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter('Tue, 01 Dec 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Tue, 01 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('999999999', now)).toBe(86_400);
  });
});
