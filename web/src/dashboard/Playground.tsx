// The playground: pick an agent of the registry (GET /v1/agents) and chat
// with it through @ag-ui/client's HttpAgent over POST
// /v1/agents/{agent_id}/runs, the answer streamed as it comes. Failures
// are the kit's: useAGUIErrorHandler's toast, with the countdown a
// RATE_LIMITED run's retry_after sets, and a Retry that runs the agent
// again on the conversation as it stands (the user's last message, with
// whatever a failed run streamed of an answer dropped).

import { HttpAgent, randomUUID, type AgentSubscriber, type Message } from '@ag-ui/client';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';

import { parseError } from '@triage/kit';
import { useAGUIErrorToasts as useAGUIErrorHandler } from '@triage/kit/sonner';
import { authHeaders } from './api';
import { useAuth } from './auth';
import { Failure } from './format';
import { playgroundHash } from './route';
import type { AgentInfo } from './types';
import { useJSON } from './useJSON';
import { usePageTitle } from './page';

export function Playground({ agentId }: { agentId: string }) {
  const agents = useJSON<{ agents: AgentInfo[] }>('/v1/agents');
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

  useEffect(() => {
    const sub = http.subscribe({ onMessagesChanged: ({ messages: m }) => setMessages([...m]) });
    return () => {
      sub.unsubscribe();
      http.abortRun();
    };
  }, [http]);

  const retryRef = useRef<() => Promise<void>>(() => Promise.resolve());
  const errors = useAGUIErrorHandler({ onRetry: () => retryRef.current() });
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
    setRunning(true);
    try {
      await http.runAgent({}, subscriber);
    } catch {
      // reported by the subscriber (onRunFailed)
    } finally {
      setRunning(false);
    }
  }, [http, subscriber]);

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
  return (
    <div className="chat">
      <ol className="messages" aria-live="polite" aria-label="Conversation">
        {shown.length === 0 && (
          <li className="muted hint">
            Say something. The default agent, echo, answers “You said: …”; send “fail with RATE_LIMITED after 3s” to see a failure
            and its countdown.
          </li>
        )}
        {shown.map((m) => (
          <li key={m.id} className={`message ${m.role}`} data-role={m.role}>
            <span className="who">{m.role === 'user' ? 'You' : agent.id}</span>
            <span className="text">{text(m)}</span>
          </li>
        ))}
      </ol>
      {errors.lastError && (
        <p className="run-failed" data-code={errors.lastError.code}>
          The last run failed: {errors.lastError.title}
          {waiting ? ` (retry in ${errors.secondsLeft}s)` : errors.canRetry ? ' (you can retry now)' : ''}.
        </p>
      )}
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
