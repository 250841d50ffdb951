// Server-Sent Events over fetch. The browser's EventSource cannot send an
// API key, so GET /v1/events is read with fetch and parsed here, by the
// rules of the HTML standard's event-stream format; a stream that ends or
// breaks is opened again after a pause, with the Last-Event-ID header of
// the last event that had an id, so that the service replays what was
// missed (server/events.go).

import { readProblem } from '@triage/kit';
import { ApiError } from './api';

/** One event of a stream. */
export interface SSEEvent {
  /** The event's type: its `event:` field, "message" without one. */
  type: string;
  data: string;
  /** The stream's last event id when the event was dispatched ("" for none). */
  lastEventId: string;
}

/**
 * Parses an event stream (text, in chunks of any size) into events: lines
 * end with CRLF, LF or CR; a blank line dispatches the event; `data:`
 * lines join with LF; `id:` sets the last event id (kept across events and
 * connections); `retry:` sets the reconnection delay; lines starting with
 * ':' are comments; a field without a colon has an empty value, and one
 * space after the colon is dropped.
 */
export class SSEParser {
  /** The last event id: the value of the last `id:` field without a NUL. */
  lastEventId = '';
  /** The reconnection delay the stream asked for (`retry:`), in milliseconds. */
  retry: number | undefined;
  private buf = '';
  private data: string[] = [];
  private type = '';
  private readonly onEvent: (e: SSEEvent) => void;

  constructor(onEvent: (e: SSEEvent) => void, lastEventId = '') {
    this.onEvent = onEvent;
    this.lastEventId = lastEventId;
  }

  /** Parses the next chunk of the stream. */
  push(text: string): void {
    this.buf += text;
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf[i];
      if (c !== '\n' && c !== '\r') continue;
      // A CR at the end of the chunk may be the first half of a CRLF.
      if (c === '\r' && i + 1 === this.buf.length) break;
      this.line(this.buf.slice(start, i));
      if (c === '\r' && this.buf[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
  }

  /** Ends the stream: a CR left at its end ends a line; an event not ended by a blank line is dropped. */
  end(): void {
    if (this.buf.endsWith('\r')) this.line(this.buf.slice(0, -1));
    this.buf = '';
    this.data = [];
    this.type = '';
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  private dispatch(): void {
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = '';
    if (data.length === 0) return;
    this.onEvent({ type: type || 'message', data: data.join('\n'), lastEventId: this.lastEventId });
  }
}

/** The state of a followed stream. */
export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'refused' | 'closed';

/** Configures followEvents. */
export interface FollowOptions {
  url: string;
  /** The request's headers (the API key), read at each connection. */
  headers?: () => Record<string, string>;
  onEvent: (e: SSEEvent) => void;
  /** Called at each successful connection: the first, and every reconnection. */
  onOpen?: () => void;
  onState?: (state: StreamState) => void;
  /** Called when the service refused the credentials (401, 403): the stream stops. */
  onRefused?: (e: ApiError) => void;
  /** Stops the stream. */
  signal: AbortSignal;
  /** The pause before the first reconnection, in ms, doubled up to maxDelay for each failure in a row. Defaults to 1000. */
  minDelay?: number;
  /** Defaults to 30000. */
  maxDelay?: number;
  /** Where to resume from (the Last-Event-ID of the first request). */
  lastEventId?: string;
}

/**
 * Follows an event stream until signal aborts or the service refuses the
 * credentials, reconnecting whenever it ends or fails: after the stream's
 * `retry:` delay or the backoff (minDelay, doubled up to maxDelay for each
 * failure in a row; a problem's Retry-After wins when longer), with the
 * Last-Event-ID header when an event had an id. Resolves when it stops.
 */
export async function followEvents(opts: FollowOptions): Promise<void> {
  const min = opts.minDelay ?? 1000;
  const max = opts.maxDelay ?? 30_000;
  const parser = new SSEParser(opts.onEvent, opts.lastEventId ?? '');
  let failures = 0;
  opts.onState?.('connecting');
  while (!opts.signal.aborted) {
    let wait = 0;
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream', ...(opts.headers?.() ?? {}) };
      if (parser.lastEventId !== '') headers['Last-Event-ID'] = parser.lastEventId;
      const res = await fetch(opts.url, { headers, signal: opts.signal, cache: 'no-store' });
      if (!res.ok) {
        const err = new ApiError(res.status, await readProblem(res));
        if (err.status === 401 || err.status === 403) {
          opts.onState?.('refused');
          opts.onRefused?.(err);
          return;
        }
        wait = (err.problem.retryAfter ?? 0) * 1000;
        throw err;
      }
      if (!res.body || !(res.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
        throw new Error(`not an event stream: ${res.headers.get('Content-Type')}`);
      }
      failures = 0;
      opts.onState?.('open');
      opts.onOpen?.();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
      }
      parser.end();
    } catch (e) {
      parser.end();
      if (opts.signal.aborted) break;
      failures++;
    }
    opts.onState?.('reconnecting');
    const backoff = Math.min(max, min * 2 ** Math.max(0, failures - 1));
    await sleep(Math.max(parser.retry ?? backoff, backoff, wait), opts.signal);
  }
  opts.onState?.('closed');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
