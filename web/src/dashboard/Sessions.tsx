// The MCP sessions: GET /v1/sessions, a page of the sessions opened at
// /mcp (the latest opened first) with their client, outcome, tool calls,
// failed calls, opening and duration; filters (outcome, since) and
// pagination by cursor, all in the URL. And one session's page: its facts
// and the records its failed calls became (GET /v1/errors?session_id=),
// each linked.

import { useEffect, useState } from 'react';

import { isAuthError } from './api';
import { Choice, SINCE_OPTIONS, named } from './Choice';
import { Cut, runDuration } from './cut';
import { useFeed } from './feed';
import { Ago, Badge, Failure, formatTime } from './format';
import { ListPage, useNow, usePaging, type Column } from './ListPage';
import { NO_FILTERS, SESSION_OUTCOMES, errorHash, errorsHash, sessionHash, sessionsHash, sessionsQuery, type SessionFilters } from './route';
import type { MCPSession, MCPSessionPage, Page } from './types';
import { usePageTitle } from './page';
import { useJSON } from './useJSON';
// Sessions.css is in the page's stylesheet (LazySessions.tsx).

/** The sessions a page shows. */
export const SESSIONS_PAGE_SIZE = 25;

/** The records a session's page shows. */
export const SESSION_RECORDS = 50;

function go(hash: string) {
  window.location.hash = hash;
}

/** A session's client: its name and version, or a dash. */
function client(s: MCPSession): string {
  return [s.client_name, s.client_version].filter((v) => v).join(' ') || '—';
}

export function SessionsPage({ filters, cursor }: { filters: SessionFilters; cursor: string }) {
  const paging = usePaging(filters);
  const list = useJSON<MCPSessionPage>(`/v1/sessions?${sessionsQuery(filters, cursor, SESSIONS_PAGE_SIZE, paging.asOf)}`);
  // A session's failure recorded, or the feed back: read the page again.
  const reload = list.reload;
  useFeed((e) => {
    if (e.type === 'open' || e.type === 'truncated') reload();
  });
  const now = useNow(30_000);
  const filtered = Object.values(filters).some((v) => v !== '');
  const columns: Column<MCPSession>[] = [
    {
      label: 'Session',
      col: 'col-id',
      className: 'id session',
      cell: (s) => (
        <a href={sessionHash(s.session_id)} aria-label={`Session ${s.session_id}`}>
          <Cut text={s.session_id} />
        </a>
      ),
    },
    { label: 'Client', cell: (s) => <Cut text={client(s)} /> },
    { label: 'Outcome', col: 'col-outcome', cell: (s) => <Badge kind="session-outcome" value={s.outcome} /> },
    { label: 'Calls', col: 'col-calls', num: true, cell: (s) => s.calls },
    {
      label: 'Failed',
      col: 'col-calls',
      num: true,
      cell: (s) =>
        s.failed_calls > 0 ? (
          <a href={errorsHash({ ...NO_FILTERS, session_id: s.session_id })} aria-label={`${s.failed_calls} failed: the records of session ${s.session_id}`}>
            {s.failed_calls}
          </a>
        ) : (
          s.failed_calls
        ),
    },
    { label: 'Opened', col: 'col-started', cell: (s) => <Ago time={s.opened_at} now={now} /> },
    { label: 'Duration', col: 'col-duration', num: true, cell: (s) => runDuration(s.opened_at, s.ended_at, now) },
  ];

  usePageTitle('Sessions');
  return (
    <ListPage
      name="sessions"
      title="MCP sessions"
      titleId="sessions-title"
      list={list}
      filters={
        <form className="filters" role="search" aria-label="Filter the sessions" onSubmit={(e) => e.preventDefault()}>
          <Choice
            label="Outcome"
            name="outcome"
            value={filters.outcome}
            any="any outcome"
            options={named(SESSION_OUTCOMES)}
            onChange={(v) => go(sessionsHash({ ...filters, outcome: v }))}
          />
          <Choice label="Opened" name="since" value={filters.since} any="any time" options={SINCE_OPTIONS} onChange={(v) => go(sessionsHash({ ...filters, since: v }))} />
          {filtered && (
            <a className="clear" href={sessionsHash()}>
              Clear
            </a>
          )}
        </form>
      }
      empty={
        filtered || cursor
          ? 'No sessions match these filters.'
          : 'No MCP sessions yet. Each session a client opens at /mcp (an initialize) appears here, kept 7 days.'
      }
      caption="The latest opened first"
      columns={columns}
      rows={list.data?.sessions ?? []}
      rowKey={(s) => s.session_id}
      rowData={(s) => ({ 'data-session-id': s.session_id, 'data-outcome': s.outcome })}
      paging={paging}
      cursor={cursor}
      next={list.data?.next_cursor}
      go={(c) => go(sessionsHash(filters, c))}
    />
  );
}

export function SessionPage({ id }: { id: string }) {
  const res = useJSON<MCPSession>(`/v1/sessions/${encodeURIComponent(id)}`);
  const records = useJSON<Page>(`/v1/errors?session_id=${encodeURIComponent(id)}&limit=${SESSION_RECORDS}`);
  const s = res.data;
  const reloadSession = res.reload;
  const reloadRecords = records.reload;
  // A failure of the session recorded (a feedback), or the feed back: read again.
  useFeed((e) => {
    if (e.type === 'open' || e.type === 'truncated' || (e.type === 'feedback' && s?.outcome === 'open')) {
      reloadSession();
      reloadRecords();
    }
  });
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (s?.outcome !== 'open') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [s?.outcome]);

  const list = records.data?.records ?? [];
  usePageTitle(`Session ${id}`);
  return (
    <section aria-labelledby="session-title">
      <p className="small">
        <a href={sessionsHash()}>← Sessions</a>
      </p>
      <h1 id="session-title" tabIndex={-1}>
        MCP session <code className="cut-anywhere">{id}</code>
      </h1>
      {res.error && !isAuthError(res.error) && <Failure error={res.error} />}
      {!s && res.loading && <p className="muted">Loading…</p>}
      {s && (
        <dl className="facts">
          <div>
            <dt>Client</dt>
            <dd>
              <Cut text={client(s)} focusable />
            </dd>
          </div>
          <div>
            <dt>Protocol</dt>
            <dd>{s.protocol_version || '—'}</dd>
          </div>
          <div>
            <dt>Outcome</dt>
            <dd>
              <Badge kind="session-outcome" value={s.outcome} />
            </dd>
          </div>
          <div>
            <dt>Opened</dt>
            <dd>
              <Ago time={s.opened_at} now={now} /> <span className="muted small">({formatTime(s.opened_at)})</span>
            </dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd>
              {runDuration(s.opened_at, s.ended_at, now)}
              {s.outcome === 'open' && <span className="muted"> so far</span>}
            </dd>
          </div>
          <div>
            <dt>Tool calls</dt>
            <dd data-testid="session-calls">
              {s.calls}, {s.failed_calls} failed
            </dd>
          </div>
        </dl>
      )}
      <h2>Records of its failed calls</h2>
      {records.error && !isAuthError(records.error) && <Failure error={records.error} />}
      {records.data && list.length === 0 && (
        <p className="empty">None: no failure of this session was recorded while it was open (or within two hours of its end).</p>
      )}
      {list.length > 0 && (
        <ul className="session-records" data-testid="session-records">
          {list.map((r) => (
            <li key={r.error_id}>
              <a href={errorHash(r.error_id)}>
                <Cut text={r.title || r.error_id} />
              </a>
              <span className="muted small">
                {' '}
                {r.agent_id} · {r.occurrence_count} {r.occurrence_count === 1 ? 'occurrence' : 'occurrences'} · last seen <Ago time={r.last_seen} now={now} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {records.data && (records.data.next_cursor || records.data.total > list.length) && (
        <p className="small">
          <a href={errorsHash({ ...NO_FILTERS, session_id: id })}>All {records.data.total.toLocaleString('en')} in the errors list</a>
        </p>
      )}
    </section>
  );
}
