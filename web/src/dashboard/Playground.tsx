// The playground: pick an agent of the registry (GET /v1/agents) and chat
// with it through @ag-ui/client's HttpAgent over POST
// /v1/agents/{agent_id}/runs, the answer streamed as it comes.
//
// A failed run is marked in the thread, under the prompt that failed: the
// kit's reading of the failure (useAGUIErrorHandler, parseError), and for
// the latest failure, when it may be retried, a Retry that runs the agent
// again on the conversation as it stands (the user's last message, with
// whatever a failed run streamed of an answer dropped), disabled while the
// kit's retry-after countdown runs. The kit's toast says the same beside the
// thread on a wide window, and is hidden on a narrow one, where it would
// cover the thread (Playground.css). A notice (seed 001's user_error) is
// marked under its prompt too.
//
// The composer stays at the bottom of the window (sticky). When the live
// feed (re)connects, the service is up: an agent list that could not be
// read is read again, and the next prompt goes through.
//
// This module, and @ag-ui/client with it, is a chunk of its own, loaded
// when the playground is first shown (LazyPlayground.tsx).

import { HttpAgent, randomUUID, type AgentSubscriber, type Message } from '@ag-ui/client';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';

import { isRetryableError, parseError, type AGUIErrorData, type UserErrorNotice } from '@triage/kit';
import { useAGUIErrorToasts as useAGUIErrorHandler } from '@triage/kit/sonner';
import { authHeaders } from './api';
import { useAuth } from './auth';
import { useFeed } from './feed';
import { Failure } from './format';
import { playgroundHash } from './route';
import type { AgentInfo } from './types';
import { useJSON } from './useJSON';
import { usePageTitle } from './page';

export function Playground({ agentId }: { agentId: string }) {
  const agents = useJSON<{ agents: AgentInfo[] }>('/v1/agents');
  // The feed (re)connected: the service is up again. Read the agents
  // again if they could not be read (the service was down or restarting).
  const failed = agents.error !== null;
  useFeed((e) => {
    if (e.type === 'open' && failed) agents.reload();
  });
  const list = agents.data?.agents ?? [];
  const agent = list.find((a) => a.id === agentId) ?? list[0];
  usePageTitle('Playground');
  return (
    <section aria-labelledby="playground-title" className="playground">
      <h1 id="playground-title" tabIndex={-1}>
        Playground
      </h1>
      {agents.error && <Failure error={agents.error} />}
      {agents.data && list.length === 0 && <p className="empty">This service runs no agents.</p>}
      {agent && (
        <>
          <label className="agent-pick">
            Agent
            <select
              name="agent"
              value={agent.id}
              onChange={(e) => {
                window.location.hash = playgroundHash(e.target.value);
              }}
            >
              {list.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.id} ({a.kind})
                </option>
              ))}
            </select>
          </label>
          <p className="muted agent-about">
            {agent.description || 'No description.'}
            {agent.model && <> Model: {agent.model}.</>}
            {agent.members && <> Members: {agent.members.join(', ')}.</>}
          </p>
          <Chat key={agent.id} agent={agent} />
        </>
      )}
    </section>
  );
}

/** The text of a message, whatever its content's shape. */
function text(m: Message): string {
  const c = (m as { content?: unknown }).content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** What happened to one prompt (a user message, by its id) besides its answer. */
interface Turn {
  /** The run's failure, when its last run failed. */
  failure?: AGUIErrorData;
  /** The notices its runs sent. */
  notices: UserErrorNotice[];
}

/** The id of the last user message of messages; "" when there is none. */
function lastPrompt(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return messages[i]!.id;
  return '';
}

/** One conversation (a thread) with one agent. */
function Chat({ agent }: { agent: AgentInfo }) {
  const { key, refuse } = useAuth();
  const [http] = useState(() => new HttpAgent({ url: `/v1/agents/${encodeURIComponent(agent.id)}/runs`, agentId: agent.id }));
  useEffect(() => {
    http.headers = authHeaders(key);
  }, [http, key]);
  const [messages, setMessages] = useState<Message[]>([]);
  const [running, setRunning] = useState(false);
  const [draft, setDraft] = useState('');
  // Failures and notices by prompt, and the prompt of the run going on.
  const [turns, setTurns] = useState<Record<string, Turn>>({});
  const prompt = useRef('');

  useEffect(() => {
    const sub = http.subscribe({ onMessagesChanged: ({ messages: m }) => setMessages([...m]) });
    return () => {
      sub.unsubscribe();
      http.abortRun();
    };
  }, [http]);

  const noteTurn = useCallback((id: string, change: (t: Turn) => Turn) => {
    if (!id) return;
    setTurns((all) => ({ ...all, [id]: change(all[id] ?? { notices: [] }) }));
  }, []);

  const retryRef = useRef<() => Promise<void>>(() => Promise.resolve());
  const errors = useAGUIErrorHandler({
    onRetry: () => retryRef.current(),
    onNotice: (n) => {
      noteTurn(prompt.current, (t) => ({ ...t, notices: [...t.notices, n] }));
    },
  });
  // The failure the kit shows, marked under the prompt whose run failed.
  const { lastError } = errors;
  useEffect(() => {
    if (lastError) noteTurn(prompt.current, (t) => ({ ...t, failure: lastError }));
  }, [lastError, noteTurn]);

  // The kit's subscriber, and the page's key prompt when the run was
  // refused for its key (401, 403).
  const subscriber = useMemo<AgentSubscriber>(
    () => ({
      ...errors.subscriber,
      onRunFailed: (p) => {
        errors.subscriber.onRunFailed?.(p);
        const status = (p.error as { status?: unknown }).status;
        if (status === 401 || status === 403) refuse(parseError(p.error));
      },
    }),
    [errors.subscriber, refuse],
  );

  const run = useCallback(async () => {
    const id = lastPrompt(http.messages);
    prompt.current = id;
    // A new run of the prompt: its last failure is no longer the news.
    noteTurn(id, (t) => ({ notices: t.notices }));
    setRunning(true);
    try {
      await http.runAgent({}, subscriber);
    } catch {
      // reported by the subscriber (onRunFailed)
    } finally {
      setRunning(false);
    }
  }, [http, subscriber, noteTurn]);

  retryRef.current = () => {
    const all = http.messages;
    let last = all.length - 1;
    while (last >= 0 && all[last]?.role !== 'user') last--;
    if (last < all.length - 1) http.setMessages(all.slice(0, last + 1));
    return run();
  };

  const send = (e: FormEvent) => {
    e.preventDefault();
    const content = draft.trim();
    if (!content || running) return;
    http.addMessage({ id: randomUUID(), role: 'user', content });
    setDraft('');
    void run();
  };

  const shown = messages.filter((m) => m.role === 'user' || m.role === 'assistant');
  const waiting = errors.secondsLeft > 0;

  // The newest message is kept in view (above the composer) while the
  // reader is at the end of the page; one who scrolled up is left there.
  const end = useRef<HTMLLIElement>(null);
  const atEnd = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      const doc = document.documentElement;
      atEnd.current = window.innerHeight + window.scrollY >= doc.scrollHeight - 48;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const lastText = shown.length > 0 ? text(shown[shown.length - 1]!).length : 0;
  useLayoutEffect(() => {
    if (atEnd.current) end.current?.scrollIntoView?.({ block: 'end' });
  }, [shown.length, lastText, turns]);

  // The thread: each prompt, its notices, its answer, and the mark of its
  // failure after the last message of its turn.
  const items: ReactNode[] = [];
  const turnOf = (i: number) => {
    for (let j = i; j >= 0; j--) if (shown[j]?.role === 'user') return shown[j]!.id;
    return '';
  };
  shown.forEach((m, i) => {
    items.push(
      <li key={m.id} className={`message ${m.role}`} data-role={m.role}>
        <span className="who">{m.role === 'user' ? 'You' : agent.id}</span>
        <span className="text">{text(m)}</span>
      </li>,
    );
    const turn = turns[turnOf(i)];
    if (m.role === 'user') {
      turn?.notices.forEach((n, k) => {
        items.push(
          <li key={`${m.id}-notice-${k}`} className="run-notice" data-retryable={n.retryable}>
            <span className="who">Notice</span>
            <span className="text">
              {n.message}
              {n.retryAfter ? ` Trying again in ${n.retryAfter}s may help.` : ''}
            </span>
          </li>,
        );
      });
    }
    const endOfTurn = i === shown.length - 1 || shown[i + 1]?.role === 'user';
    if (endOfTurn && turn?.failure) {
      const latest = turn.failure === lastError;
      items.push(<FailureMark key={`${m.id}-failure`} error={turn.failure} latest={latest} errors={errors} running={running} />);
    }
  });

  return (
    <div className="chat">
      <ol className="messages" aria-live="polite" aria-label="Conversation">
        {shown.length === 0 && (
          <li className="muted hint">
            Say something. The default agent, echo, answers “You said: …”; send “fail with RATE_LIMITED after 3s” to see a failure
            and its countdown.
          </li>
        )}
        {items}
        <li ref={end} className="end" aria-hidden="true" />
      </ol>
      <form className="composer" onSubmit={send}>
        <input
          name="message"
          aria-label="Message"
          autoComplete="off"
          placeholder={`Message ${agent.id}`}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" disabled={running || waiting || draft.trim() === ''}>
          {running ? 'Running…' : 'Send'}
        </button>
      </form>
    </div>
  );
}

/**
 * The mark of a prompt whose run failed: the kit's title and message, and
 * for the latest failure, when it may be retried, Retry (disabled while
 * the countdown runs).
 */
function FailureMark({
  error,
  latest,
  errors,
  running,
}: {
  error: AGUIErrorData;
  latest: boolean;
  errors: ReturnType<typeof useAGUIErrorHandler>;
  running: boolean;
}) {
  const retryable = isRetryableError(error);
  return (
    <li className="run-failed" data-code={error.code} data-latest={latest}>
      <span className="who">Failed: {error.title}</span>
      <span className="text">{error.message}</span>
      {latest && retryable && (
        <span className="retry">
          <button type="button" disabled={!errors.canRetry || running} onClick={errors.retry}>
            Retry
          </button>
          {errors.secondsLeft > 0 ? (
            <span role="timer" aria-live="off">
              Retry in {errors.secondsLeft}s
            </span>
          ) : (
            <span>You can retry now.</span>
          )}
        </span>
      )}
      {!retryable && <span className="muted">Retrying would fail the same way: change the prompt or the agent.</span>}
    </li>
  );
}
