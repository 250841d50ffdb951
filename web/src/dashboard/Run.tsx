// One run: GET /v1/runs/{run_id}, its agent, thread, outcome and times,
// its events as the service keeps them (started; finished, failed with
// its fault, disconnected or stopped by a shutdown; recorded as an
// occurrence of a record, linked), read again when the feed says it
// ended, and for a while after a failure until its record is linked.

import { useEffect, useState } from 'react';

import { isAuthError } from './api';
import { Cut, runDuration } from './cut';
import { useFeed } from './feed';
import { Ago, Badge, Failure, JSONBlock, formatTime } from './format';
import { errorHash, runsHash } from './route';
import type { Run } from './types';
import { usePageTitle } from './page';
import { useJSON } from './useJSON';
// Runs.css is in the page's stylesheet (LazyRuns.tsx).

/** How often a failed run is read again until its record is linked, in ms, and how many times. */
const LINK_POLL = 2000;
const LINK_POLLS = 15;

export function RunPage({ id }: { id: string }) {
  const res = useJSON<Run>(`/v1/runs/${encodeURIComponent(id)}`);
  const run = res.data;
  const reload = res.reload;

  useFeed((e) => {
    if (e.type === 'open' || e.type === 'truncated') {
      reload();
      return;
    }
    if (e.type === 'run') {
      try {
        if ((JSON.parse(e.data) as { run_id?: unknown }).run_id === id) reload();
      } catch {
        // not JSON: not this run's
      }
      return;
    }
    // A failure recorded: it may be this run's.
    if (e.type === 'feedback' && run?.outcome === 'failed' && !run.error_id) reload();
  });

  // A failed run's recording is a job after its end: read it again a few
  // times until the run names its record.
  const [polls, setPolls] = useState(0);
  const waiting = run?.outcome === 'failed' && !run.error_id && polls < LINK_POLLS;
  useEffect(() => {
    if (!waiting) return;
    const t = setTimeout(() => {
      setPolls((n) => n + 1);
      reload();
    }, LINK_POLL);
    return () => clearTimeout(t);
  }, [waiting, reload, run]);

  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (run?.outcome !== 'running') return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [run?.outcome]);

  usePageTitle(`Run ${id}`);
  return (
    <section aria-labelledby="run-title">
      <p className="small">
        <a href={runsHash({ agent_id: '', outcome: '', code: '', since: '' })}>← Runs</a>
      </p>
      <h1 id="run-title" tabIndex={-1}>
        Run <code>{id}</code>
      </h1>
      {res.error && !isAuthError(res.error) && <Failure error={res.error} />}
      {!run && res.loading && <p className="muted">Loading…</p>}
      {run && (
        <>
          <dl className="facts">
            <div>
              <dt>Agent</dt>
              <dd>
                <a href={runsHash({ agent_id: run.agent_id, outcome: '', code: '', since: '' })} title={`The runs of ${run.agent_id}`}>
                  <Cut text={run.agent_id} />
                </a>
              </dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd>
                <Badge kind="run-outcome" value={run.outcome} />
              </dd>
            </div>
            <div>
              <dt>Thread</dt>
              <dd>{run.thread_id ? <Cut text={run.thread_id} focusable /> : <span className="muted">—</span>}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>
                <Ago time={run.started_at} />
              </dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>
                {runDuration(run.started_at, run.finished_at, now)}
                {run.outcome === 'running' && <span className="muted"> so far</span>}
              </dd>
            </div>
            <div>
              <dt>Record</dt>
              <dd data-testid="run-record">
                {run.error_id ? (
                  <a href={errorHash(run.error_id)}>
                    <Cut text={run.error_id} />
                  </a>
                ) : run.outcome === 'failed' ? (
                  <span className="muted">{waiting ? 'being recorded…' : 'not recorded'}</span>
                ) : (
                  <span className="muted">—</span>
                )}
              </dd>
            </div>
          </dl>
          <h2>Events</h2>
          <RunEvents run={run} now={now} />
          {run.fault && (
            <>
              <h2>Fault</h2>
              <dl className="facts">
                <div>
                  <dt>Code</dt>
                  <dd>
                    <code>{run.fault.code}</code>
                  </dd>
                </div>
                <div>
                  <dt>HTTP status</dt>
                  <dd>{run.fault.http_status}</dd>
                </div>
                <div>
                  <dt>Retryable</dt>
                  <dd>
                    {run.fault.retryable ? 'yes' : 'no'}
                    {run.fault.retry_after !== undefined && `, after ${run.fault.retry_after} s`}
                  </dd>
                </div>
                <div>
                  <dt>Category</dt>
                  <dd>{run.fault.category}</dd>
                </div>
                <div>
                  <dt>Domain</dt>
                  <dd>{run.fault.domain}</dd>
                </div>
                <div>
                  <dt>Session valid</dt>
                  <dd>{run.fault.session_valid ? 'yes' : 'no'}</dd>
                </div>
              </dl>
              {Object.keys(run.fault.details).length > 0 && (
                <details>
                  <summary>Details</summary>
                  <JSONBlock value={run.fault.details} />
                </details>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}

/** How many of a long stream's first events a run keeps (store.MaxRunEvents / 2): those omitted come after them. */
const KEPT_FIRST = 100;

/**
 * The run's events: the outline of its AG-UI stream the service keeps with
 * its end (each event's type, time, step, tool or custom name and ids,
 * never its content), then the record its failure became an occurrence
 * of. A run with no outline (still running, streamed as CAP, or ended
 * before the service kept them) shows what its record says: when it
 * started, and how it ended.
 */
function RunEvents({ run, now }: { run: Run; now: number }) {
  const events = run.events ?? [];
  const omitted = run.events_omitted ?? 0;
  if (events.length === 0) return <Lifecycle run={run} now={now} />;
  const start = Date.parse(run.started_at);
  const items = events.map((e, i) => <TimelineEvent key={i} event={e} start={start} run={run} />);
  if (omitted > 0) {
    items.splice(
      Math.min(KEPT_FIRST, items.length),
      0,
      <li key="omitted" className="omitted" data-testid="events-omitted">
        <span className="muted">
          {omitted.toLocaleString()} {omitted === 1 ? 'event' : 'events'} not kept (a run keeps its first and last {KEPT_FIRST})
        </span>
      </li>,
    );
  }
  return (
    <>
      <p className="muted small">
        {events.length.toLocaleString()} {events.length === 1 ? 'entry' : 'entries'} of the run&apos;s AG-UI stream, its
        outline only: the service keeps no message text, tool arguments or results.
      </p>
      <ol className="run-events run-timeline" aria-label="The run's events, oldest first" data-testid="run-timeline">
        {items}
        {run.outcome === 'disconnected' && run.finished_at && (
          <li>
            <span className="event-name">disconnected</span> <time dateTime={run.finished_at}>{formatTime(run.finished_at)}</time>
            <div className="muted small">the stream failed: the client went away or stopped reading</div>
          </li>
        )}
        <Recorded run={run} />
      </ol>
    </>
  );
}

type RunEvent = NonNullable<Run['events']>[number];

/** One event of the outline: its type, when (and how long after the start), and what it names. */
function TimelineEvent({ event: e, start, run }: { event: RunEvent; start: number; run: Run }) {
  const offset = Date.parse(e.at) - start;
  const facts: [string, string][] = [];
  if (e.step_name) facts.push(['step', e.step_name]);
  if (e.tool_call_name) facts.push(['tool', e.tool_call_name]);
  if (e.name) facts.push(['name', e.name]);
  if (e.code) facts.push(['code', e.code]);
  if (e.role) facts.push(['role', e.role]);
  if (e.message_id) facts.push(['message', e.message_id]);
  if (e.tool_call_id) facts.push(['call', e.tool_call_id]);
  return (
    <li data-type={e.type}>
      <span className="event-name">{e.type}</span>
      {e.count > 1 && <span className="event-count"> ×{e.count.toLocaleString()}</span>}{' '}
      <time dateTime={e.at} title={formatTime(e.at)}>
        {Number.isFinite(offset) && offset >= 0 ? `+${formatOffset(offset)}` : formatTime(e.at)}
      </time>
      {e.type === 'RUN_STARTED' && (
        <div className="muted small">
          {run.agent_id} started{run.thread_id ? ` on thread ${run.thread_id}` : ''}
        </div>
      )}
      {e.type === 'RUN_FINISHED' && run.outcome === 'finished' && (
        <div className="muted small">answered {run.answer_bytes.toLocaleString()} bytes</div>
      )}
      {facts.length > 0 && (
        <div className="small event-facts">
          {facts.map(([k, v]) => (
            <span key={k}>
              <span className="muted">{k}</span> <span className="event-value">{v}</span>
            </span>
          ))}
        </div>
      )}
    </li>
  );
}

/** An offset from the run's start in words: 850 ms, 1.25 s, 2 min 5 s. */
function formatOffset(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The record a failed run's failure became an occurrence of, as the last event. */
function Recorded({ run }: { run: Run }) {
  if (!run.error_id) return null;
  return (
    <li>
      <span className="event-name">recorded</span>{' '}
      <span>
        as an occurrence of record{' '}
        <a href={errorHash(run.error_id)} data-testid="run-record-event">
          <Cut text={run.error_id} />
        </a>
      </span>
    </li>
  );
}

/**
 * The run's events as its record's lifecycle says them, for a run with no
 * outline: when it started, then how it ended, and its record.
 */
function Lifecycle({ run, now }: { run: Run; now: number }) {
  const end = run.finished_at;
  return (
    <ol className="run-events" aria-label="The run's events, oldest first">
      <li>
        <span className="event-name">RUN_STARTED</span>{' '}
        <time dateTime={run.started_at}>{formatTime(run.started_at)}</time>
        <div className="muted small">
          {run.agent_id} started{run.thread_id ? ` on thread ${run.thread_id}` : ''}
        </div>
      </li>
      {run.outcome === 'running' && (
        <li>
          <span className="event-name">running</span>{' '}
          <span className="muted">for {runDuration(run.started_at, undefined, now)}: it ends with a RUN_FINISHED or a RUN_ERROR</span>
        </li>
      )}
      {run.outcome === 'finished' && end && (
        <li>
          <span className="event-name">RUN_FINISHED</span>{' '}
          <time dateTime={end}>{formatTime(end)}</time>
          <div className="muted small">answered {run.answer_bytes.toLocaleString()} bytes</div>
        </li>
      )}
      {run.outcome === 'failed' && end && (
        <li>
          <span className="event-name">RUN_ERROR</span>{' '}
          <time dateTime={end}>{formatTime(end)}</time>
          <div>
            <code>{run.fault?.code}</code> {run.fault?.message}
          </div>
        </li>
      )}
      {run.outcome === 'disconnected' && end && (
        <li>
          <span className="event-name">disconnected</span>{' '}
          <time dateTime={end}>{formatTime(end)}</time>
          <div className="muted small">the stream failed: the client went away or stopped reading</div>
        </li>
      )}
      {run.outcome === 'shutdown' && end && (
        <li>
          <span className="event-name">RUN_ERROR</span>{' '}
          <time dateTime={end}>{formatTime(end)}</time>
          <div className="muted small">
            <code>SERVICE_UNAVAILABLE</code>: the service shut down; the client was told to retry
          </div>
        </li>
      )}
      <Recorded run={run} />
    </ol>
  );
}
