import { describe, expect, it, vi } from 'vitest';

import { SSEParser, followEvents, type SSEEvent, type StreamState } from './sse';

function parse(chunks: string[], lastEventId = ''): { events: SSEEvent[]; parser: SSEParser } {
  const events: SSEEvent[] = [];
  const parser = new SSEParser((e) => events.push(e), lastEventId);
  for (const c of chunks) parser.push(c);
  return { events, parser };
}

describe('SSEParser', () => {
  it('reads events with their types, ids and data', () => {
    const { events, parser } = parse([
      ': triage events\n\n',
      'event: feedback\nid: 7\ndata: {"error_id":"err_1"}\n\n',
      'data: plain\n\n',
    ]);
    expect(events).toEqual([
      { type: 'feedback', data: '{"error_id":"err_1"}', lastEventId: '7' },
      // The last event id stays until another id: field.
      { type: 'message', data: 'plain', lastEventId: '7' },
    ]);
    expect(parser.lastEventId).toBe('7');
  });

  it('takes CRLF, CR and LF line ends, split anywhere between chunks', () => {
    const stream = 'event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\rdata: 3\n\n';
    for (let i = 0; i <= stream.length; i++) {
      const { events } = parse([stream.slice(0, i), stream.slice(i)]);
      expect(events.map((e) => `${e.type}:${e.data}`), `split at ${i}`).toEqual(['a:1', 'b:2', 'message:3']);
    }
    const oneByOne = parse([...stream]).events;
    expect(oneByOne.map((e) => e.data)).toEqual(['1', '2', '3']);
  });

  it('joins data lines, keeps the value after one space, and follows the field rules', () => {
    const { events, parser } = parse([
      'data:first\ndata:  second\ndata\n\n',
      'event: nothing\n\n', // no data: not dispatched, and the type does not carry over
      'data: x\n\n',
      'id: bad\0id\ndata: y\n\n', // an id with a NUL is ignored
      'retry: 2500\nretry: soon\nunknown: field\ndata: z\n\n',
      'data: unfinished',
    ]);
    expect(events).toEqual([
      { type: 'message', data: 'first\n second\n', lastEventId: '' },
      { type: 'message', data: 'x', lastEventId: '' },
      { type: 'message', data: 'y', lastEventId: '' },
      { type: 'message', data: 'z', lastEventId: '' },
    ]);
    expect(parser.retry).toBe(2500);
    parser.end();
    expect(events).toHaveLength(4); // an event the stream did not end is dropped
  });

  it('starts from a given last event id', () => {
    const { events } = parse(['data: a\n\n'], '41');
    expect(events[0]?.lastEventId).toBe('41');
  });
});

/** A response streaming chunks, then ending. */
function stream(chunks: string[], status = 200, headers: Record<string, string> = {}): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(new TextEncoder().encode(s));
      c.close();
    },
  });
  return new Response(body, { status, headers: { 'Content-Type': 'text/event-stream', ...headers } });
}

function problem(status: number, code: string, detail: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type: '/errors/x', title: code, status, detail, code }), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });
}

describe('followEvents', () => {
  it('reconnects with Last-Event-ID, and stops when the key is refused', async () => {
    const responses = [
      stream([': hi\n\n', 'event: feedback\nid: 3\ndata: {"n":1}\n\n']),
      // The service is busy: a problem with Retry-After (0s, for the test).
      problem(503, 'SERVICE_UNAVAILABLE', 'busy', { 'Retry-After': '0' }),
      stream(['event: feedback\nid: 4\ndata: {"n":2}\n\n', 'event: shutdown\ndata: {}\n\n']),
      problem(403, 'TENANT_UNAUTHORIZED', 'The API key is not valid.'),
    ];
    const requests: Headers[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        requests.push(new Headers(init.headers));
        const next = responses.shift();
        if (!next) throw new Error('no more responses');
        return next;
      }),
    );
    const events: string[] = [];
    const states: StreamState[] = [];
    let opened = 0;
    let refused = '';
    await followEvents({
      url: '/v1/events',
      headers: () => ({ 'X-API-Key': 'k1' }),
      signal: new AbortController().signal,
      minDelay: 1,
      onEvent: (e) => events.push(`${e.type}:${e.data}:${e.lastEventId}`),
      onOpen: () => opened++,
      onState: (s) => states.push(s),
      onRefused: (e) => (refused = `${e.status} ${e.problem.code} ${e.problem.message}`),
    });
    vi.unstubAllGlobals();
    expect(events).toEqual(['feedback:{"n":1}:3', 'feedback:{"n":2}:4', 'shutdown:{}:4']);
    expect(requests.map((h) => h.get('Last-Event-ID'))).toEqual([null, '3', '3', '4']);
    expect(requests.every((h) => h.get('X-API-Key') === 'k1' && h.get('Accept') === 'text/event-stream')).toBe(true);
    expect(opened).toBe(2);
    expect(refused).toBe('403 TENANT_UNAUTHORIZED The API key is not valid.');
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'reconnecting', 'open', 'reconnecting', 'refused']);
  });

  it('stops when its signal aborts, even while waiting to reconnect', async () => {
    const ctl = new AbortController();
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls++;
        throw new TypeError('Failed to fetch');
      }),
    );
    const states: StreamState[] = [];
    const done = followEvents({ url: '/v1/events', signal: ctl.signal, minDelay: 60_000, onEvent: () => undefined, onState: (s) => states.push(s) });
    await vi.waitFor(() => expect(calls).toBe(1));
    ctl.abort();
    await done;
    vi.unstubAllGlobals();
    expect(calls).toBe(1);
    expect(states).toEqual(['connecting', 'reconnecting', 'closed']);
  });
});
