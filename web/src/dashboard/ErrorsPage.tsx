// The errors: GET /v1/errors, a page of records (one per fingerprint) with
// their type, severity, count, last seen and next action; filters (agent,
// type, severity, since) and pagination by cursor, all in the URL; made
// again, live, when the feed says a report was handled.

import { useEffect, useRef, useState, type FormEvent } from 'react';

import { useFeed } from './feed';
import { Ago, Badge, Failure } from './format';
import { SINCE_PRESETS, errorHash, errorsHash, listQuery, type ErrorFilters } from './route';
import { ERROR_TYPES, SEVERITIES, type Page } from './types';
import { useJSON } from './useJSON';
import { ScrollBox, usePageTitle } from './page';

/** The records a page shows. */
export const PAGE_SIZE = 25;

/** How long a burst of feed events is gathered into one reload, in ms. */
const RELOAD_DELAY = 150;

/** How long a record that just changed is marked (its row flashes), in ms. */
const FRESH_FOR = 4000;

function go(hash: string) {
  window.location.hash = hash;
}

export function ErrorsPage({ filters, cursor }: { filters: ErrorFilters; cursor: string }) {
  // The query is fixed when the filters or the cursor change, and when the
  // page reloads for the feed (since is a time from now).
  const [asOf, setAsOf] = useState(() => Date.now());
  const path = `/v1/errors?${listQuery(filters, cursor, PAGE_SIZE, asOf)}`;
  const list = useJSON<Page>(path);

  // The cursors of the newer pages, to go back to.
  const [newer, setNewer] = useState<string[]>([]);
  const filterKey = JSON.stringify(filters);
  const [shownFilters, setShownFilters] = useState(filterKey);
  if (shownFilters !== filterKey) {
    setShownFilters(filterKey);
    setNewer([]);
  }

  // Live: a burst of feedback is one reload.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reload = list.reload;
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  useFeed((e) => {
    if (e.type === 'feedback') {
      try {
        const id = (JSON.parse(e.data) as { error_id?: unknown }).error_id;
        if (typeof id === 'string') {
          setFresh((s) => new Set(s).add(id));
          // Forgotten once its flash is over.
          setTimeout(() => setFresh((s) => new Set([...s].filter((x) => x !== id))), FRESH_FOR);
        }
      } catch {
        // not JSON: reload all the same
      }
    }
    if (e.type !== 'feedback' && e.type !== 'truncated' && e.type !== 'open') return;
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setAsOf(Date.now());
      reload();
    }, RELOAD_DELAY);
  });
  useEffect(() => () => clearTimeout(timer.current), []);

  // Relative times move on.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);

  usePageTitle('Errors');
  const records = list.data?.records ?? [];
  const next = list.data?.next_cursor;
  const filtered = Object.values(filters).some((v) => v !== '');

  return (
    <section aria-labelledby="errors-title">
      <div className="title-row">
        <h1 id="errors-title" tabIndex={-1}>
          Errors
        </h1>
        {list.loading && <span className="muted">Loading…</span>}
      </div>
      <Filters filters={filters} />
      {list.error && <Failure error={list.error} />}
      {list.data && records.length === 0 && (
        <p className="empty">
          {filtered || cursor
            ? 'No errors match these filters.'
            : 'No errors yet. Pipeline agents report them with POST /v1/errors; each one appears here as it is handled.'}
        </p>
      )}
      {records.length > 0 && (
        <ScrollBox label="Errors">
        <table className="records">
          <thead>
            <tr>
              <th scope="col">Error</th>
              <th scope="col">Agent</th>
              <th scope="col">Type</th>
              <th scope="col">Severity</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col">Last seen</th>
              <th scope="col">Next action</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.error_id} data-error-id={r.error_id} className={fresh.has(r.error_id) ? 'fresh' : undefined}>
                <td>
                  <a href={errorHash(r.error_id)}>{r.error_id}</a>
                  <div className="muted small">{r.query_id}</div>
                </td>
                <td>{r.agent_id}</td>
                <td>{r.error_type.replace(/_/g, ' ')}</td>
                <td>
                  <Badge kind="severity" value={r.severity} />
                </td>
                <td className="num">{r.occurrence_count}</td>
                <td>
                  <Ago time={r.last_seen} now={now} />
                </td>
                <td>
                  <Badge kind="action" value={r.next_action} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </ScrollBox>
      )}
      {(cursor || next) && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            disabled={!cursor}
            onClick={() => {
              const prev = newer.at(-1) ?? '';
              setNewer(newer.slice(0, -1));
              go(errorsHash(filters, prev));
            }}
          >
            ← Newer
          </button>
          <span className="muted">{cursor && newer.length === 0 ? 'Older errors' : `Page ${newer.length + 1}`}</span>
          <button
            type="button"
            disabled={!next}
            onClick={() => {
              setNewer([...newer, cursor]);
              go(errorsHash(filters, next));
            }}
          >
            Older →
          </button>
        </nav>
      )}
    </section>
  );
}

/** The filters: a choice applies at once, the agent when submitted (or with a choice). */
function Filters({ filters }: { filters: ErrorFilters }) {
  const [agent, setAgent] = useState(filters.agent_id);
  useEffect(() => setAgent(filters.agent_id), [filters.agent_id]);
  // Every change applies the whole form, the agent as typed so far too.
  const set = (patch: Partial<ErrorFilters>) => go(errorsHash({ ...filters, agent_id: agent.trim(), ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set({});
  };
  return (
    <form className="filters" role="search" aria-label="Filters" onSubmit={submit}>
      <label>
        Agent
        <input
          name="agent_id"
          value={agent}
          placeholder="any agent"
          onChange={(e) => setAgent(e.target.value)}
        />
      </label>
      <label>
        Type
        <select name="error_type" value={filters.error_type} onChange={(e) => set({ error_type: e.target.value })}>
          <option value="">any type</option>
          {ERROR_TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        Severity
        <select name="severity" value={filters.severity} onChange={(e) => set({ severity: e.target.value })}>
          <option value="">any severity</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        Since
        <select name="since" value={filters.since} onChange={(e) => set({ since: e.target.value })}>
          <option value="">any time</option>
          {Object.entries(SINCE_PRESETS).map(([k, p]) => (
            <option key={k} value={k}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
      {Object.values(filters).some((v) => v !== '') && (
        <a className="clear" href={errorsHash({ agent_id: '', error_type: '', severity: '', since: '' })}>
          Clear
        </a>
      )}
    </form>
  );
}
