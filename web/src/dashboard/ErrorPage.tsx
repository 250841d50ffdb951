// One error: GET /v1/errors/{error_id}. Its title (code and message) is
// the heading, the id under it; its status with the actions that change it
// (PATCH) and its history; a chart of its occurrences over time
// (/counts) with its first and last release; what the user is told, with
// a word where the stored message contradicts the fault; the run or MCP
// session and the trace that produced it; its occurrences grouped when
// identical (older pages from /occurrences); its jobs, every one reachable
// (older pages from /jobs); the report, root cause and recovery. Made
// again when the feed says this error occurred again, and every few
// seconds while a job has not finished.

import { useCallback, useEffect, useId, useState, type ReactNode } from 'react';

import { readProblem } from '@triage/kit';
import { ApiError, authHeaders, getJSON, isAuthError } from './api';
import { useAuth } from './auth';
import { ChangeForm } from './ChangeForm';
import { useFeed } from './feed';
import { Ago, Badge, Failure, JSONBlock, duration, formatTime } from './format';
import {
  CHART_RANGES,
  attemptRange,
  bars,
  changeOf,
  contradiction,
  countsQuery,
  defaultRange,
  describeState,
  distinct,
  durationWords,
  groupOccurrences,
  originOf,
  type ChartRange,
  type Counts,
  type JobPage,
  type OccurrenceGroup,
  type StatusForm,
  type TransitionPage,
  type WorkflowState,
} from './record';
import { Fact } from './Fact';
import { OriginLine, OriginView } from './Origin';
import { jobFinished, type ErrorRecord, type Feedback, type Job, type JobAttempt, type Occurrence, type OccurrencePage, type Outcome } from './types';
import { useJSON } from './useJSON';
import { usePageTitle } from './page';

/** How often the page is read again while a job has not finished, in ms. */
const JOB_POLL = 3000;

export function ErrorPage({ id }: { id: string }) {
  const path = `/v1/errors/${encodeURIComponent(id)}`;
  const rec = useJSON<ErrorRecord>(path);
  const reload = rec.reload;
  // Bumped when the record changes (a new occurrence, a change of status):
  // the chart and the history are read again.
  const [changes, setChanges] = useState(0);
  const changed = useCallback(() => {
    reload();
    setChanges((n) => n + 1);
  }, [reload]);
  useFeed((e) => {
    if (e.type === 'open' || e.type === 'truncated') changed();
    if (e.type !== 'feedback') return;
    try {
      if ((JSON.parse(e.data) as { error_id?: unknown }).error_id === id) changed();
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
      <h1 id="error-title" className="record-title" tabIndex={-1}>
        {r ? r.title || r.error_type.replace(/_/g, ' ') : id}
      </h1>
      <RecordId id={id} />
      {rec.error && <Failure error={rec.error} />}
      {!r && !rec.error && <p className="muted">Loading…</p>}
      {r && (
        <>
          <StatusPanel key={`${r.status}-${r.assignee ?? ''}`} record={r} onChanged={changed} />
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
            <Fact name="Agent">
              <Cut text={r.agent_id} />
            </Fact>
            <Fact name="Query">
              <Cut text={r.query_id} />
            </Fact>
            <Fact name="First seen">
              <Ago time={r.first_seen} />
            </Fact>
            <Fact name="Last seen">
              <Ago time={r.last_seen} />
            </Fact>
            <Fact name="First release">{r.first_release ? <Cut text={r.first_release} /> : <span className="muted">none named</span>}</Fact>
            <Fact name="Last release">{r.last_release ? <Cut text={r.last_release} /> : <span className="muted">none named</span>}</Fact>
            {r.last_environment && (
              <Fact name="Environment">
                <Cut text={r.last_environment} />
              </Fact>
            )}
          </dl>
          <Chart id={id} firstSeen={r.first_seen} version={changes} />
          <OriginView origin={originOf(r.report)} />
          {r.feedback && <FeedbackView fb={r.feedback} />}
          <Occurrences id={id} first={r.occurrences ?? []} next={r.occurrences_next_cursor} total={r.occurrence_count} />
          <JobsSection id={id} jobs={r.jobs ?? []} next={r.jobs_next_cursor} />
          <HistoryView id={id} version={changes} />
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
          {r.feedback && <CauseView fb={r.feedback} />}
        </>
      )}
    </section>
  );
}

/** The record's id, small, with a button that copies it. */
function RecordId({ id }: { id: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const copy = () => {
    navigator.clipboard.writeText(id).then(
      () => setCopied('yes'),
      () => setCopied('no'),
    );
  };
  return (
    <p className="record-id small">
      <span className="muted">ID</span> <code data-testid="record-id">{id}</code>{' '}
      <button type="button" className="link" onClick={copy}>
        Copy ID
      </button>{' '}
      <span role="status" className="muted">
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Could not copy: select the ID instead.' : ''}
      </span>
    </p>
  );
}

/**
 * A text that may be long (an id, a query): it wraps anywhere, so that it
 * never widens the page, and its full text is also its title.
 */
export function Cut({ text }: { text: string }) {
  return (
    <span className="cut" title={text}>
      {text}
    </span>
  );
}

// ---- status, its actions and its history

/** A workflow's condition in words, without its status: "in 1.4.2", "until 12 more". */
function condition(w: WorkflowState): string {
  return describeState(w, formatTime).slice(w.status.length).trim();
}

/** The record's status, its assignee, and the form that changes them (PATCH). */
function StatusPanel({ record, onChanged }: { record: ErrorRecord; onChanged: () => void }) {
  const { key, refuse } = useAuth();
  const settled = record.status === 'resolved' || record.status === 'ignored';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);

  const submit = async (form: StatusForm) => {
    setBusy(true);
    try {
      const res = await fetch(`/v1/errors/${encodeURIComponent(record.error_id)}`, {
        method: 'PATCH',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json', ...authHeaders(key) },
        body: JSON.stringify(changeOf(form)),
        cache: 'no-store',
      });
      if (!res.ok) throw new ApiError(res.status, await readProblem(res));
      setError(null);
      onChanged();
    } catch (err) {
      if (isAuthError(err)) refuse(err.problem);
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="status-title" className="status-panel">
      <h2 id="status-title">Status</h2>
      <p className="status-line" role="status">
        <span className={`badge status-${record.status}`} data-testid="status">
          {record.status}
        </span>{' '}
        <span>{condition(record)}</span>
        {record.assignee ? (
          <span>
            {' '}
            · assigned to <strong className="cut">{record.assignee}</strong>
          </span>
        ) : (
          <span className="muted"> · unassigned</span>
        )}
        {record.status_changed_at && (
          <span className="muted">
            {' '}
            · changed <Ago time={record.status_changed_at} />
          </span>
        )}
      </p>
      <ChangeForm
        label="Change the status"
        initial={{
          action: settled ? 'unresolve' : 'resolve',
          release: record.last_release ?? '',
          seconds: 24 * 3600,
          count: 100,
          windowSeconds: 0,
          assignee: record.assignee ?? '',
          note: '',
        }}
        busy={busy}
        error={error}
        onSubmit={(f) => void submit(f)}
      />
    </section>
  );
}

/** The record's transitions, the latest first, a page at a time. */
function HistoryView({ id, version }: { id: string; version: number }) {
  const { key, refuse } = useAuth();
  const [pages, setPages] = useState<TransitionPage[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const load = useCallback(
    async (cursor: string) => {
      try {
        const q = new URLSearchParams({ limit: '20', ...(cursor ? { cursor } : {}) });
        const page = await getJSON<TransitionPage>(`/v1/errors/${encodeURIComponent(id)}/history?${q}`, key);
        setPages((p) => (cursor ? [...p, page] : [page]));
        setError(null);
      } catch (e) {
        if (isAuthError(e)) refuse(e.problem);
        setError(e instanceof Error ? e : new Error(String(e)));
      }
    },
    [id, key, refuse],
  );
  useEffect(() => {
    void load('');
  }, [load, version]);
  const all = pages.flatMap((p) => p.transitions);
  const next = pages.at(-1)?.next_cursor;
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {error && <Failure error={error} />}
      {pages.length > 0 && all.length === 0 && <p className="muted">No change yet: the record is as it was created.</p>}
      {all.length > 0 && (
        <ol className="history">
          {all.map((t, i) => (
            <li key={`${t.at}-${i}`}>
              <div>
                <strong className="cut">{t.by}</strong> <Ago time={t.at} />
                {t.release && <span className="muted"> (release {t.release})</span>}
              </div>
              <div>
                <span className={`badge status-${t.from.status}`}>{t.from.status}</span> →{' '}
                <span className={`badge status-${t.to.status}`}>{t.to.status}</span> <span>{condition(t.to)}</span>
                {(t.from.assignee ?? '') !== (t.to.assignee ?? '') && (
                  <span>
                    {' '}
                    · assignee {t.to.assignee ? <strong className="cut">{t.to.assignee}</strong> : 'none'}
                  </span>
                )}
              </div>
              {t.note && <blockquote className="note cut">{t.note}</blockquote>}
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Older changes
        </button>
      )}
    </section>
  );
}

// ---- the chart

/** The record's occurrences over time: bars by hour or by day, as SVG. */
function Chart({ id, firstSeen, version }: { id: string; firstSeen: string; version: number }) {
  const [range, setRange] = useState<ChartRange>(() => defaultRange(firstSeen));
  // The range ends now: its query is made again on each change of the record.
  const [query, setQuery] = useState(() => countsQuery(range));
  useEffect(() => setQuery(countsQuery(range)), [range, version]);
  const counts = useJSON<Counts>(`/v1/errors/${encodeURIComponent(id)}/counts?${query}`);
  return (
    <section aria-labelledby="chart-title" className="chart-section">
      <div className="title-row">
        <h2 id="chart-title">Occurrences over time</h2>
        <span className="range">
          <label className="small" htmlFor="chart-range">
            Range
          </label>{' '}
          <select id="chart-range" className="small" value={range} onChange={(e) => setRange(e.target.value as ChartRange)}>
            {Object.entries(CHART_RANGES).map(([k, v]) => (
              <option key={k} value={k}>
                {v.label}
              </option>
            ))}
          </select>
        </span>
      </div>
      {counts.error && <Failure error={counts.error} />}
      {counts.data && <Bars counts={counts.data} />}
    </section>
  );
}

/** Bars of a record's counts, with their total, peak and span in words. */
export function Bars({ counts }: { counts: Counts }) {
  const b = bars(counts);
  const total = b.reduce((s, x) => s + x.count, 0);
  const peak = Math.max(0, ...b.map((x) => x.count));
  const by = counts.bucket === 'day' ? 'day' : 'hour';
  const label = `${total} occurrence${total === 1 ? '' : 's'} from ${formatTime(counts.since)} to ${formatTime(counts.until)}, by ${by}; at most ${peak} in one ${by}.`;
  const w = 100 / Math.max(1, b.length);
  const h = (n: number) => (n / Math.max(1, peak)) * 38;
  return (
    <figure className="chart">
      <svg viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label={label} data-bucket={counts.bucket} data-total={total}>
        <line x1="0" y1="39.9" x2="100" y2="39.9" className="axis" />
        {b.map((x, i) =>
          x.count > 0 ? (
            <rect key={i} x={i * w + w * 0.1} width={w * 0.8} y={40 - h(x.count)} height={h(x.count)} className="bar">
              <title>{`${x.count} in the ${by} of ${x.start.toLocaleString(undefined, by === 'day' ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' })}`}</title>
            </rect>
          ) : null,
        )}
      </svg>
      <figcaption className="small muted">
        <span>{formatTime(counts.since)}</span>
        <span>
          {total} in all, by {by}; peak {peak}
        </span>
        <span>{formatTime(counts.until)}</span>
      </figcaption>
    </figure>
  );
}

// ---- what the user is told, the cause and the recovery

function FeedbackView({ fb }: { fb: Feedback }) {
  const contra = contradiction(fb);
  return (
    <section aria-labelledby="feedback-title">
      <h2 id="feedback-title">What the user is told</h2>
      <blockquote className="user-message">{fb.user_message}</blockquote>
      {contra && (
        <p className="contradiction" data-testid="contradiction">
          <strong>Contradiction:</strong> {contra.replace(/^Contradiction: /, '')}
        </p>
      )}
      <dl className="facts">
        <Fact name="Code">
          <code>{fb.fault.code}</code> (HTTP {fb.fault.http_status})
        </Fact>
        <Fact name="Retryable">
          {fb.fault.retryable ? 'yes' : 'no'}
          {fb.fault.retry_after ? `, after ${durationWords(fb.fault.retry_after)}` : ''}
        </Fact>
        <Fact name="Source">
          <Cut text={fb.error_source} />
        </Fact>
        <Fact name="Confidence">{pct(fb.confidence)}</Fact>
        <Fact name="Attempt">{fb.attempt}</Fact>
        <Fact name="Context preserved">{fb.context_preserved ? `yes${fb.context_ref ? ` (${fb.context_ref})` : ''}` : 'no'}</Fact>
      </dl>
    </section>
  );
}

function CauseView({ fb }: { fb: Feedback }) {
  const rc = fb.root_cause;
  return (
    <>
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

// ---- occurrences

/** The occurrences, latest first, grouped when identical: the record's first page, then older pages on demand. */
function Occurrences({ id, first, next, total }: { id: string; first: Occurrence[]; next: string | undefined; total: number }) {
  const { key, refuse } = useAuth();
  const [older, setOlder] = useState<Occurrence[]>([]);
  const [cursor, setCursor] = useState(next);
  const [error, setError] = useState<Error | null>(null);
  // A new first page (a new occurrence) starts the list over; the record
  // read again as it was (the jobs' polling) keeps the older pages loaded.
  const firstKey = `${first[0]?.received_at ?? ''}|${first.length}|${next ?? ''}`;
  const [shown, setShown] = useState(firstKey);
  if (shown !== firstKey) {
    setShown(firstKey);
    setOlder([]);
    setCursor(next);
  }
  const more = async () => {
    try {
      const q = new URLSearchParams({ cursor: cursor ?? '', limit: '100' });
      const page = await getJSON<OccurrencePage>(`/v1/errors/${encodeURIComponent(id)}/occurrences?${q}`, key);
      setOlder((o) => [...o, ...page.occurrences]);
      setCursor(page.next_cursor);
      setError(null);
    } catch (e) {
      if (isAuthError(e)) refuse(e.problem);
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  const all = [...first, ...older];
  const groups = groupOccurrences(all);
  return (
    <section aria-labelledby="occ-title">
      <h2 id="occ-title">Occurrences</h2>
      <p className="muted small" data-testid="occ-shown">
        {all.length < total ? `The latest ${all.length} of ${total}` : `All ${total}`}, as {groups.length}{' '}
        {groups.length === 1 ? 'line' : 'lines'}: identical reports (the same but for their time, run, session or trace) are one.
      </p>
      <table className="occurrences stack">
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
        {groups.map((g) => (
          <Group key={g.key} g={g} />
        ))}
      </table>
      {error && <Failure error={error} />}
      {cursor && (
        <button type="button" onClick={() => void more()}>
          Older occurrences
        </button>
      )}
    </section>
  );
}

/** A group of identical occurrences: one row, ×N, that expands to a row each. */
export function Group({ g }: { g: OccurrenceGroup }) {
  const [open, setOpen] = useState(false);
  const uid = useId();
  const n = g.occurrences.length;
  const latest = g.occurrences[0] as Occurrence;
  const oldest = g.occurrences[n - 1] as Occurrence;
  return (
    <tbody className="group" data-count={n} id={uid}>
      <tr className="group-row">
        <td data-label="Received">
          {n > 1 && (
            <>
              <button type="button" className="times" aria-expanded={open} aria-controls={uid} onClick={() => setOpen((o) => !o)}>
                ×{n}
                <span className="vh"> identical occurrences: {open ? 'hide' : 'show'} each</span>
              </button>{' '}
            </>
          )}
          <Ago time={latest.received_at} />
          {n > 1 ? (
            <div className="muted small">
              first <Ago time={oldest.received_at} />
            </div>
          ) : (
            <>
              <div className="muted small">reported {formatTime(latest.reported_at)}</div>
              <OriginLine report={latest.report} />
            </>
          )}
        </td>
        <td className="num" data-label="Attempt">
          {attemptRange(g)}
        </td>
        <td data-label="Next action">
          {distinct(g, (o) => o.next_action).map((a) => (
            <Badge key={a} kind="action" value={a} />
          ))}
        </td>
        <td data-label="Actions and outcomes">
          {n > 1 && <div className="muted small">the latest’s:</div>}
          <Outcomes actions={latest.actions ?? []} />
        </td>
      </tr>
      {n > 1 &&
        open &&
        g.occurrences.map((o, i) => (
          <tr key={`${o.received_at}-${i}`} className="member">
            <td data-label="Received">
              <Ago time={o.received_at} />
              <div className="muted small">reported {formatTime(o.reported_at)}</div>
              <OriginLine report={o.report} />
            </td>
            <td className="num" data-label="Attempt">
              {o.attempt}
            </td>
            <td data-label="Next action">
              <Badge kind="action" value={o.next_action} />
            </td>
            <td data-label="Actions and outcomes">
              <Outcomes actions={o.actions ?? []} />
            </td>
          </tr>
        ))}
    </tbody>
  );
}

// ---- jobs

/** The record's jobs, the latest first: its latest, then older pages from /jobs on demand. */
function JobsSection({ id, jobs, next }: { id: string; jobs: Job[]; next: string | undefined }) {
  const { key, refuse } = useAuth();
  const [older, setOlder] = useState<Job[]>([]);
  const [cursor, setCursor] = useState(next);
  const [error, setError] = useState<Error | null>(null);
  // The record read again with other jobs (a new one) starts the list
  // over; with the same jobs (their states polled), the older pages stay.
  const jobsKey = `${jobs.map((j) => j.id).join(',')}|${next ?? ''}`;
  const [shown, setShown] = useState(jobsKey);
  if (shown !== jobsKey) {
    setShown(jobsKey);
    setOlder([]);
    setCursor(next);
  }
  const more = async () => {
    try {
      const q = new URLSearchParams({ cursor: cursor ?? '', limit: '50' });
      const page = await getJSON<JobPage>(`/v1/errors/${encodeURIComponent(id)}/jobs?${q}`, key);
      setOlder((o) => [...o, ...page.jobs]);
      setCursor(page.next_cursor);
      setError(null);
    } catch (e) {
      if (isAuthError(e)) refuse(e.problem);
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  return (
    <Jobs jobs={[...[...jobs].reverse(), ...older]}>
      {error && <Failure error={error} />}
      {cursor && (
        <button type="button" onClick={() => void more()}>
          Older jobs
        </button>
      )}
    </Jobs>
  );
}

/** Jobs, in the order given (the page's: the latest first): state, attempts, next attempt and each attempt. */
export function Jobs({ jobs, children }: { jobs: Job[]; children?: ReactNode }) {
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      {jobs.length === 0 ? (
        <p className="muted">No jobs: nothing was scheduled for this error.</p>
      ) : (
        <table className="jobs stack">
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
              <tr key={j.id} data-job-state={j.state} data-job-id={j.id}>
                <td data-label="Job">
                  #{j.id} {j.kind}
                </td>
                <td data-label="State">
                  <Badge kind="job" value={j.state} />
                </td>
                <td data-label="Attempts">
                  {j.attempt} of {j.max_attempts}
                </td>
                <td data-label="Next attempt">
                  <NextAttempt job={j} />
                </td>
                <td data-label="History">
                  <History job={j} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {children}
    </section>
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
