// One error: GET /v1/errors/{error_id}: the latest report, the feedback
// (the user's message, the root cause with its evidence, the recovery
// suggestions and the automated actions), the occurrences with their
// attempts and the actions' outcomes (older ones a page at a time from
// /occurrences), and the jobs with their state (River's), next attempt and
// attempts. Made again when the feed says this error occurred again, and
// every few seconds while a job has not finished.

import { useEffect, useState, type ReactNode } from 'react';

import { ApiError, getJSON, isAuthError } from './api';
import { useAuth } from './auth';
import { useFeed } from './feed';
import { Ago, Badge, Failure, JSONBlock, duration, formatTime } from './format';
import { jobFinished, type ErrorRecord, type Feedback, type Job, type JobAttempt, type Occurrence, type OccurrencePage, type Outcome } from './types';
import { useJSON } from './useJSON';
import { ScrollBox, usePageTitle } from './page';

/** How often the page is read again while a job has not finished, in ms. */
const JOB_POLL = 3000;

export function ErrorPage({ id }: { id: string }) {
  const path = `/v1/errors/${encodeURIComponent(id)}`;
  const rec = useJSON<ErrorRecord>(path);
  const reload = rec.reload;
  useFeed((e) => {
    if (e.type === 'open' || e.type === 'truncated') reload();
    if (e.type !== 'feedback') return;
    try {
      if ((JSON.parse(e.data) as { error_id?: unknown }).error_id === id) reload();
    } catch {
      // not JSON: not this error's
    }
  });
  const pending = rec.data?.jobs?.some((j) => !jobFinished(j.state)) ?? false;
  useEffect(() => {
    if (!pending) return;
    const t = setInterval(reload, JOB_POLL);
    return () => clearInterval(t);
  }, [pending, reload]);

  const r = rec.data;
  usePageTitle(r?.title || id);
  return (
    <section aria-labelledby="error-title" className="error-page">
      <p>
        <a href="#/">← All errors</a>
      </p>
      <h1 id="error-title" tabIndex={-1}>
        {id}
      </h1>
      {rec.error && <Failure error={rec.error} />}
      {!r && !rec.error && <p className="muted">Loading…</p>}
      {r && (
        <>
          <dl className="facts">
            <Fact name="Type">{r.error_type.replace(/_/g, ' ')}</Fact>
            <Fact name="Severity">
              <Badge kind="severity" value={r.severity} />
            </Fact>
            <Fact name="Next action">
              <Badge kind="action" value={r.next_action} />
            </Fact>
            <Fact name="Occurrences">
              <span data-testid="count">{r.occurrence_count}</span>
            </Fact>
            <Fact name="Agent">{r.agent_id}</Fact>
            <Fact name="Query">{r.query_id}</Fact>
            <Fact name="First seen">
              <Ago time={r.first_seen} />
            </Fact>
            <Fact name="Last seen">
              <Ago time={r.last_seen} />
            </Fact>
          </dl>
          {r.report && (
            <section aria-labelledby="report-title">
              <h2 id="report-title">Report</h2>
              <p className="message">{r.report.data.message}</p>
              <dl className="facts">
                <Fact name="Code">{r.report.data.error_code ?? '—'}</Fact>
                <Fact name="Status">{r.report.status}</Fact>
                <Fact name="Reported">{formatTime(r.report.timestamp)}</Fact>
              </dl>
              {r.report.data.context && (
                <details>
                  <summary>Context</summary>
                  <JSONBlock value={r.report.data.context} label="Context" />
                </details>
              )}
            </section>
          )}
          {r.feedback && <FeedbackView fb={r.feedback} />}
          <Occurrences id={id} first={r.occurrences ?? []} next={r.occurrences_next_cursor} />
          <Jobs jobs={r.jobs ?? []} more={r.more_jobs ?? false} />
        </>
      )}
    </section>
  );
}

function Fact({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function FeedbackView({ fb }: { fb: Feedback }) {
  const rc = fb.root_cause;
  return (
    <>
      <section aria-labelledby="feedback-title">
        <h2 id="feedback-title">What the user is told</h2>
        <blockquote className="user-message">{fb.user_message}</blockquote>
        <dl className="facts">
          <Fact name="Code">
            <code>{fb.fault.code}</code> (HTTP {fb.fault.http_status})
          </Fact>
          <Fact name="Retryable">
            {fb.fault.retryable ? 'yes' : 'no'}
            {fb.fault.retry_after ? `, after ${fb.fault.retry_after}s` : ''}
          </Fact>
          <Fact name="Source">{fb.error_source}</Fact>
          <Fact name="Confidence">{pct(fb.confidence)}</Fact>
          <Fact name="Attempt">{fb.attempt}</Fact>
          <Fact name="Context preserved">{fb.context_preserved ? `yes${fb.context_ref ? ` (${fb.context_ref})` : ''}` : 'no'}</Fact>
        </dl>
      </section>
      <section aria-labelledby="cause-title">
        <h2 id="cause-title">Root cause</h2>
        <p>
          <strong className="cause">{rc.cause.replace(/_/g, ' ')}</strong>{' '}
          <span className="muted">({pct(rc.confidence)} confidence)</span>
        </p>
        {rc.evidence && rc.evidence.length > 0 && (
          <>
            <h3>Evidence</h3>
            <ul className="evidence">
              {rc.evidence.map((e, i) => (
                <li key={i}>{e}</li>
              ))}
            </ul>
          </>
        )}
      </section>
      <section aria-labelledby="recovery-title">
        <h2 id="recovery-title">Recovery</h2>
        <div className="columns">
          <div>
            <h3>Suggestions</h3>
            <List items={fb.recovery_suggestions} none="None." />
          </div>
          <div>
            <h3>Automated actions</h3>
            <List items={fb.automated_actions} none="None." code />
          </div>
        </div>
      </section>
    </>
  );
}

function List({ items, none, code }: { items: string[] | null; none: string; code?: boolean }) {
  if (!items || items.length === 0) return <p className="muted">{none}</p>;
  return (
    <ul>
      {items.map((s, i) => (
        <li key={i}>{code ? <code>{s}</code> : s}</li>
      ))}
    </ul>
  );
}

function pct(n: number): string {
  return `${Math.round(n * 100)}%`;
}

/** The occurrences, latest first: the record's first page, then older pages on demand. */
function Occurrences({ id, first, next }: { id: string; first: Occurrence[]; next: string | undefined }) {
  const { key, refuse } = useAuth();
  const [older, setOlder] = useState<Occurrence[]>([]);
  const [cursor, setCursor] = useState(next);
  const [error, setError] = useState<Error | null>(null);
  // A new first page (the record was read again) starts the list over.
  const [shown, setShown] = useState(first);
  if (shown !== first) {
    setShown(first);
    setOlder([]);
    setCursor(next);
  }
  const more = async () => {
    try {
      const q = new URLSearchParams({ cursor: cursor ?? '', limit: '20' });
      const page = await getJSON<OccurrencePage>(`/v1/errors/${encodeURIComponent(id)}/occurrences?${q}`, key);
      setOlder((o) => [...o, ...page.occurrences]);
      setCursor(page.next_cursor);
      setError(null);
    } catch (e) {
      if (isAuthError(e)) refuse((e as ApiError).problem);
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const all = [...first, ...older];
  return (
    <section aria-labelledby="occ-title">
      <h2 id="occ-title">Occurrences</h2>
      <ScrollBox label="Occurrences">
      <table className="occurrences">
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col" className="num">
              Attempt
            </th>
            <th scope="col">Next action</th>
            <th scope="col">Actions and outcomes</th>
          </tr>
        </thead>
        <tbody>
          {all.map((o, i) => (
            <tr key={`${o.received_at}-${i}`}>
              <td>
                <Ago time={o.received_at} />
                <div className="muted small">reported {formatTime(o.reported_at)}</div>
              </td>
              <td className="num">{o.attempt}</td>
              <td>
                <Badge kind="action" value={o.next_action} />
              </td>
              <td>
                <Outcomes actions={o.actions ?? []} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </ScrollBox>
      {error && <Failure error={error} />}
      {cursor && (
        <button type="button" onClick={() => void more()}>
          Older occurrences
        </button>
      )}
    </section>
  );
}

function Outcomes({ actions }: { actions: Outcome[] }) {
  if (actions.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="outcomes">
      {actions.map((a, i) => (
        <li key={i}>
          <code>{a.detail || a.action}</code> <Badge kind="outcome" value={a.status} />
          {a.note && <span> {a.note}</span>}
          {a.error && <span className="problem-text"> {a.error}</span>}
        </li>
      ))}
    </ul>
  );
}

/** The record's jobs, oldest first: state, attempts, next attempt and each attempt. */
export function Jobs({ jobs, more }: { jobs: Job[]; more: boolean }) {
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      {jobs.length === 0 ? (
        <p className="muted">No jobs: nothing was scheduled for this error.</p>
      ) : (
        <ScrollBox label="Jobs">
        <table className="jobs">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Next attempt</th>
              <th scope="col">History</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id} data-job-state={j.state}>
                <td>
                  #{j.id} {j.kind}
                </td>
                <td>
                  <Badge kind="job" value={j.state} />
                </td>
                <td>
                  {j.attempt} of {j.max_attempts}
                </td>
                <td>
                  <NextAttempt job={j} />
                </td>
                <td>
                  <History job={j} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </ScrollBox>
      )}
      {more && <p className="muted">Older jobs are not shown.</p>}
    </section>
  );
}

/**
 * When a job runs next: its run_at while it waits for it (scheduled, or
 * retryable after a failed attempt) or is due (available); nothing once
 * it runs or has finished.
 */
function NextAttempt({ job }: { job: Job }) {
  switch (job.state) {
    case 'scheduled':
    case 'retryable':
    case 'available':
      return <time dateTime={job.run_at}>{formatTime(job.run_at)}</time>;
    case 'running':
      return <span className="muted">now</span>;
    case 'pending':
      return <span className="muted">—</span>;
  }
  return <span className="muted">{jobFinished(job.state) ? 'none' : '—'}</span>;
}

/**
 * A job's attempts, by number: each failed one with when it failed and
 * why, then the successful one with when it began and how long it took
 * (River keeps no duration for a failed attempt), and the attempt in
 * progress while the job runs.
 */
function History({ job }: { job: Job }) {
  const attempts = job.attempts ?? [];
  const running = job.state === 'running' && job.attempt > 0;
  if (attempts.length === 0 && !running) {
    if (job.attempt === 0) return <span className="muted">not run yet</span>;
    // A job moved over from the service's earlier queue keeps only its count.
    return <span className="muted">{job.attempt === 1 ? '1 earlier attempt' : `${job.attempt} earlier attempts`}, not recorded</span>;
  }
  return (
    <ol className="attempts">
      {attempts.map((a) => (
        <li key={a.attempt} value={a.attempt}>
          <Attempt a={a} />
        </li>
      ))}
      {running && (
        <li key="running" value={job.attempt} className="muted">
          running
        </li>
      )}
    </ol>
  );
}

function Attempt({ a }: { a: JobAttempt }) {
  if (a.error !== undefined && a.error !== '') {
    return (
      <>
        {formatTime(a.at)}: <span className="problem-text">{a.error}</span>
      </>
    );
  }
  return (
    <>
      {formatTime(a.at)}
      {a.duration_ns !== undefined && `, ${duration(a.duration_ns)}`}: succeeded
    </>
  );
}
