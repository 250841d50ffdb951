// The overview: over a range (the last hour, 24 hours, 7 or 30 days, in
// the URL), each agent's failure rate (its failed runs over its ended
// ones: GET /v1/counts/runs) beside its occurrences over time (GET
// /v1/counts?by=agent), the same by fault code, and the records new or
// regressed in the range (GET /v1/errors sorted by first seen, and with
// status=regressed). Read again, live, when the feed says a run ended or a
// report was handled.

import { useEffect, useRef, useState, type ReactNode } from 'react';

import { RateBar, describeSeries, percent } from './chart';
import { Cut } from './cut';
import { useFeed } from './feed';
import { Ago, Badge, Failure } from './format';
import { NO_FILTERS, SINCE_PRESETS, errorHash, errorsHash, overviewHash, runsHash } from './route';
import type { operations } from '@triage/client/api';
import type { Page, RecordSummary } from './types';
import { usePageTitle } from './page';
import { Sparkline } from './Sparkline';
import { useJSON } from './useJSON';

type RunTotals = operations['getRunTotals']['responses'][200]['content']['application/json'];
type Counts = operations['getCounts']['responses'][200]['content']['application/json'];

/** How long a burst of feed events is gathered into one reload, in ms. */
const RELOAD_DELAY = 1000;

/** How often the range's start moves to now's, in ms. */
const RANGE_MOVES = 5 * 60_000;

/** The records each list of new or regressed ones shows. */
const RECORDS = 25;

const NO_RUN_FILTERS = { agent_id: '', outcome: '', code: '', since: '' };

/** The buckets of a range's series: hours up to 7 days, then days. */
function bucketOf(range: string): 'hour' | 'day' {
  return range === '30d' ? 'day' : 'hour';
}

export function Overview({ range }: { range: string }) {
  const preset = SINCE_PRESETS[range] ?? SINCE_PRESETS['24h']!;
  const [asOf, setAsOf] = useState(() => Date.now());
  const since = new Date(asOf - preset.ms).toISOString();
  const bucket = bucketOf(range);
  const q = (extra: Record<string, string>) => new URLSearchParams({ since, ...extra }).toString();

  // The range ends now: until is left to the service, so that reading
  // again (live) is the same query, and the figures stay shown meanwhile.
  const runs = useJSON<RunTotals>(`/v1/counts/runs?${q({ limit: '20' })}`);
  const byAgent = useJSON<Counts>(`/v1/counts?${q({ by: 'agent', bucket, limit: '20' })}`);
  const byCode = useJSON<Counts>(`/v1/counts?${q({ by: 'code', bucket, limit: '20' })}`);
  const fresh = useJSON<Page>(`/v1/errors?${q({ sort: 'first_seen', limit: String(RECORDS) })}`);
  const regressed = useJSON<Page>(`/v1/errors?${q({ status: 'regressed', limit: String(RECORDS) })}`);
  const reloads = [runs.reload, byAgent.reload, byCode.reload, fresh.reload, regressed.reload];

  // Live: a burst of runs and reports is one reading of everything.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useFeed((e) => {
    if (e.type !== 'run' && e.type !== 'feedback' && e.type !== 'truncated' && e.type !== 'open') return;
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      for (const reload of reloads) reload();
    }, RELOAD_DELAY);
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  // The range's start moves on every few minutes.
  useEffect(() => {
    const t = setInterval(() => setAsOf(Date.now()), RANGE_MOVES);
    return () => clearInterval(t);
  }, []);
  // A new range starts from now.
  const [shownRange, setShownRange] = useState(range);
  if (shownRange !== range) {
    setShownRange(range);
    setAsOf(Date.now());
  }

  const start = asOf - preset.ms;
  const newRecords = (fresh.data?.records ?? []).filter((r) => Date.parse(r.first_seen) >= start);
  const regressedRecords = (regressed.data?.records ?? []).filter(
    (r) => !r.status_changed_at || Date.parse(r.status_changed_at) >= start,
  );
  const error = runs.error ?? byAgent.error ?? byCode.error ?? fresh.error ?? regressed.error;
  const loading = runs.loading || byAgent.loading || byCode.loading || fresh.loading || regressed.loading;

  usePageTitle('Overview');
  return (
    <section aria-labelledby="overview-title" className="overview">
      <div className="title-row">
        <h1 id="overview-title" tabIndex={-1}>
          Overview
        </h1>
        {loading && <span className="muted">Loading…</span>}
      </div>
      <nav className="ranges" aria-label="Range">
        {Object.entries(SINCE_PRESETS).map(([k, p]) => (
          <a key={k} href={overviewHash(k)} aria-current={k === range ? 'true' : undefined} title={p.label}>
            {k}
          </a>
        ))}
        <span className="muted small">{preset.label}</span>
      </nav>
      {error && <Failure error={error} />}
      {runs.data && <Summary runs={runs.data} occurrences={byAgent.data} />}
      <div className="overview-rates">
        <AgentRates runs={runs.data} counts={byAgent.data} bucket={bucket} />
        <CodeRates runs={runs.data} counts={byCode.data} bucket={bucket} />
      </div>
      <div className="overview-grid">
        <RecordList
          id="new-records"
          title="New records"
          empty="No record was first seen in this range."
          records={newRecords}
          full={(fresh.data?.records.length ?? 0) === RECORDS && newRecords.length === RECORDS}
          when={(r) => (
            <>
              first seen <Ago time={r.first_seen} />
            </>
          )}
          more={errorsHash({ ...NO_FILTERS, since: range, sort: 'first_seen' })}
        />
        <RecordList
          id="regressed-records"
          title="Regressed records"
          empty="No record regressed in this range."
          records={regressedRecords}
          full={(regressed.data?.records.length ?? 0) === RECORDS}
          when={(r) => (
            <>
              regressed <Ago time={r.status_changed_at ?? r.last_seen} />
            </>
          )}
          more={errorsHash({ ...NO_FILTERS, since: range, status: 'regressed' })}
        />
      </div>
    </section>
  );
}

function Summary({ runs, occurrences }: { runs: RunTotals; occurrences: Counts | undefined }) {
  const failed = runs.agents.reduce((a, r) => a + r.failed, 0);
  const ended = runs.agents.reduce((a, r) => a + r.runs - r.running, 0);
  const occ = occurrences?.series.reduce((a, s) => a + s.total, 0);
  return (
    <dl className="facts summary">
      <div>
        <dt>Runs</dt>
        <dd data-testid="runs-total">{runs.runs.toLocaleString()}</dd>
      </div>
      <div>
        <dt>Failed runs</dt>
        <dd data-testid="runs-failed">
          {failed.toLocaleString()} {ended > 0 && <span className="muted">({percent(failed / ended)})</span>}
        </dd>
      </div>
      {occ !== undefined && (
        <div>
          <dt>Occurrences</dt>
          <dd>{occ.toLocaleString()}</dd>
        </div>
      )}
      {runs.capped && (
        <p className="muted small">
          The range held more runs than are counted at once: the rates are those of the latest{' '}
          {runs.runs.toLocaleString()}, since <Ago time={runs.since} />.
        </p>
      )}
    </dl>
  );
}

/** The agents: their runs' failure rate and their occurrences over the range. */
function AgentRates({ runs, counts, bucket }: { runs: RunTotals | undefined; counts: Counts | undefined; bucket: 'hour' | 'day' }) {
  const series = new Map((counts?.series ?? []).map((s) => [s.key, s]));
  const agents = [...(runs?.agents ?? []).map((a) => a.agent_id)];
  for (const s of counts?.series ?? []) if (!agents.includes(s.key)) agents.push(s.key);
  const totals = new Map((runs?.agents ?? []).map((a) => [a.agent_id, a]));
  return (
    <section aria-labelledby="agents-title" className="panel">
      <h2 id="agents-title">Failure rate by agent</h2>
      {agents.length === 0 ? (
        <p className="muted">{runs && counts ? 'No runs and no occurrences in this range.' : ''}</p>
      ) : (
        <table className="rates" data-testid="agent-rates">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" className="num col-n">
                Runs
              </th>
              <th scope="col" className="num col-n">
                Failed
              </th>
              <th scope="col" className="col-rate">
                Failure rate
              </th>
              <th scope="col" className="col-spark">
                Occurrences
              </th>
            </tr>
          </thead>
          <tbody>
            {agents.map((id) => {
              const t = totals.get(id);
              const ended = t ? t.runs - t.running : 0;
              const s = series.get(id);
              return (
                <tr key={id} data-agent={id}>
                  <th scope="row">
                    <a href={runsHash({ ...NO_RUN_FILTERS, agent_id: id })} title={`The runs of ${id}`}>
                      <Cut text={id} />
                    </a>
                  </th>
                  <td className="num">{t ? t.runs : 0}</td>
                  <td className="num">
                    {t && t.failed > 0 ? (
                      <a href={runsHash({ ...NO_RUN_FILTERS, agent_id: id, outcome: 'failed' })}>{t.failed}</a>
                    ) : (
                      0
                    )}
                  </td>
                  <td className="rate" data-testid="rate">
                    {ended > 0 ? (
                      <>
                        <RateBar rate={t!.failed / ended} />
                        <span>{percent(t!.failed / ended)}</span>
                      </>
                    ) : (
                      <span className="muted">no ended runs</span>
                    )}
                  </td>
                  <td className="spark">
                    <Occurrences series={s} counts={counts} bucket={bucket} href={errorsHash({ ...NO_FILTERS, agent_id: id })} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The codes: the failed runs with each (a share of all the range's runs) and their occurrences. */
function CodeRates({ runs, counts, bucket }: { runs: RunTotals | undefined; counts: Counts | undefined; bucket: 'hour' | 'day' }) {
  const series = new Map((counts?.series ?? []).map((s) => [s.key, s]));
  const codes = [...(runs?.codes ?? []).map((c) => c.code)];
  for (const s of counts?.series ?? []) if (!codes.includes(s.key)) codes.push(s.key);
  const failed = new Map((runs?.codes ?? []).map((c) => [c.code, c.failed]));
  const all = runs?.runs ?? 0;
  return (
    <section aria-labelledby="codes-title" className="panel">
      <h2 id="codes-title">Failures by code</h2>
      {codes.length === 0 ? (
        <p className="muted">{runs && counts ? 'No failure in this range.' : ''}</p>
      ) : (
        <table className="rates" data-testid="code-rates">
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col" className="num col-n">
                Failed runs
              </th>
              <th scope="col" className="col-rate">
                Share of runs
              </th>
              <th scope="col" className="col-spark">
                Occurrences
              </th>
            </tr>
          </thead>
          <tbody>
            {codes.map((code) => {
              const n = failed.get(code) ?? 0;
              return (
                <tr key={code} data-code={code}>
                  <th scope="row">
                    <a href={runsHash({ ...NO_RUN_FILTERS, outcome: 'failed', code })} title={`The runs failed with ${code}`}>
                      <Cut text={code} />
                    </a>
                  </th>
                  <td className="num">
                    {n > 0 ? <a href={runsHash({ ...NO_RUN_FILTERS, outcome: 'failed', code })}>{n}</a> : 0}
                  </td>
                  <td className="rate" data-testid="rate">
                    {all > 0 ? (
                      <>
                        <RateBar rate={n / all} />
                        <span>{percent(n / all)}</span>
                      </>
                    ) : (
                      <span className="muted">no runs</span>
                    )}
                  </td>
                  <td className="spark">
                    <Occurrences series={series.get(code)} counts={counts} bucket={bucket} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** A key's occurrences in the range: the total, and a sparkline that says itself. */
function Occurrences({
  series,
  counts,
  bucket,
  href,
}: {
  series: Counts['series'][number] | undefined;
  counts: Counts | undefined;
  bucket: 'hour' | 'day';
  href?: string;
}) {
  if (!series || !counts) return <span className="muted">0</span>;
  const total = href ? <a href={href}>{series.total}</a> : <span>{series.total}</span>;
  return (
    <span className="occurrences">
      {total}
      <Sparkline counts={series.counts} range="" per={bucket} label={describeSeries(series.counts, bucket, counts.since)} />
    </span>
  );
}

function RecordList({
  id,
  title,
  empty,
  records,
  full,
  when,
  more,
}: {
  id: string;
  title: string;
  empty: string;
  records: RecordSummary[];
  full: boolean;
  when: (r: RecordSummary) => ReactNode;
  more: string;
}) {
  return (
    <section aria-labelledby={`${id}-title`} className="panel" data-testid={id}>
      <h2 id={`${id}-title`}>
        {title} <span className="muted small">({records.length}{full ? '+' : ''})</span>
      </h2>
      {records.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul className="record-list">
          {records.map((r) => (
            <li key={r.error_id} data-error-id={r.error_id}>
              <a href={errorHash(r.error_id)}>
                <Cut text={r.title || r.error_id} />
              </a>
              <div className="muted small meta">
                <a href={errorsHash({ ...NO_FILTERS, agent_id: r.agent_id })}>
                  <Cut text={r.agent_id} />
                </a>{' '}
                · <Badge kind="severity" value={r.severity} /> · ×{r.occurrence_count} · {when(r)}
              </div>
            </li>
          ))}
        </ul>
      )}
      {full && (
        <p className="small">
          <a href={more}>All the records seen in this range</a>
        </p>
      )}
    </section>
  );
}
