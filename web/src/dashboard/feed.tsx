// The live feed: one GET /v1/events stream for the whole page, followed
// with the API key (sse.ts), resumed with Last-Event-ID after a
// reconnection. Pages listen for its events: "feedback" (a report was
// handled: its feedback as data), "truncated" (more was missed than the
// service replays), and "open" (the stream is (re)connected: anything may
// have happened since the last read).

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

import { authHeaders } from './api';
import { useAuth } from './auth';
import { followEvents, type SSEEvent, type StreamState } from './sse';

type Listener = (e: SSEEvent) => void;

interface Feed {
  state: StreamState;
  listen: (l: Listener) => () => void;
}

const FeedContext = createContext<Feed | null>(null);

export function FeedProvider({ children }: { children: ReactNode }) {
  const { key, version, refuse } = useAuth();
  const [state, setState] = useState<StreamState>('connecting');
  const listeners = useRef(new Set<Listener>());
  const listen = useCallback((l: Listener) => {
    listeners.current.add(l);
    return () => {
      listeners.current.delete(l);
    };
  }, []);
  useEffect(() => {
    const emit = (e: SSEEvent) => {
      for (const l of [...listeners.current]) l(e);
    };
    const ctl = new AbortController();
    // A new key (or the same one given again) starts the stream afresh:
    // it may be another tenant's.
    void followEvents({
      url: '/v1/events',
      headers: () => authHeaders(key),
      signal: ctl.signal,
      onState: setState,
      onOpen: () => emit({ type: 'open', data: '', lastEventId: '' }),
      onEvent: emit,
      onRefused: (e) => refuse(e.problem),
    });
    return () => ctl.abort();
  }, [key, version, refuse]);
  const feed = useMemo(() => ({ state, listen }), [state, listen]);
  return <FeedContext.Provider value={feed}>{children}</FeedContext.Provider>;
}

/**
 * Calls onEvent for each event of the feed while the component is mounted
 * (the latest onEvent; it need not be stable).
 */
export function useFeed(onEvent?: Listener): StreamState {
  const feed = useContext(FeedContext);
  if (!feed) throw new Error('useFeed outside FeedProvider');
  const ref = useRef(onEvent);
  ref.current = onEvent;
  const { listen } = feed;
  useEffect(() => listen((e) => ref.current?.(e)), [listen]);
  return feed.state;
}

/** Says how the feed is: a dot and a word, in the header. */
export function FeedStatus() {
  const state = useFeed();
  const text: Record<StreamState, string> = {
    connecting: 'Connecting…',
    open: 'Live',
    reconnecting: 'Reconnecting…',
    refused: 'Paused: API key needed',
    closed: 'Stopped',
  };
  return (
    <span className="feed" data-state={state} title="GET /v1/events">
      {text[state]}
    </span>
  );
}
