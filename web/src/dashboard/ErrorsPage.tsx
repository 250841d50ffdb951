// The errors, as a team triages them: GET /v1/errors, a page of records
// (one per fingerprint), each row an issue (its title, then its agent,
// query, environment and releases, status, a sparkline of its
// occurrences over the range, count and last seen), the whole row a link
// to the record. Search, filters, sort and the page's cursor are in the
// URL (ListFilters); the total of matches is shown. Rows selected are
// resolved, ignored or assigned in one POST /v1/errors/changes, and the
// result is announced. The sparklines are one GET /v1/counts for the
// page. Made again, live, when the feed says a report was handled.

import { useEffect, useRef, useState } from 'react';

import { isAuthError } from './api';
import { useAuth } from './auth';
import { changeErrors } from './bulk';
import { bulkSaid, changeOf, type StatusForm } from './change';
import { ChangeForm } from './ChangeForm';
import { useFeed } from './feed';
import { Ago, Badge, Failure, formatTime } from './format';
import { ListFilters } from './ListFilters';
import { Pager } from './Pager';
import { countsQuery, errorHash, errorsHash, listQuery, sparkRange, type ErrorFilters } from './route';
import { Sparkline } from './Sparkline';
import type { Page, RecordSummary } from './types';
import { useJSON } from './useJSON';
import { usePageTitle } from './page';

import './ErrorsPage.css';

/** The records a page shows. */
export const PAGE_SIZE = 25;

/** How long a burst of feed events is gathered into one reload, in ms. */
const RELOAD_DELAY = 150;

/** How long a record that just changed is marked (its row flashes), in ms. */
const FRESH_FOR = 4000;

/** GET /v1/counts' answer, as the sparklines read it. */
interface Counts {
  bucket: string;
  series: { key: string; counts: number[] }[];
}

function go(hash: string) {
  window.location.hash = hash;
}

export function ErrorsPage({ filters, cursor }: { filters: ErrorFilters; cursor: string }) {
  const { key, refuse } = useAuth();
  // The query is fixed when the filters or the cursor change, and when the
  // page reloads for the feed (since is a time from now).
  const [asOf, setAsOf] = useState(() => Date.now());
  const list = useJSON<Page>(`/v1/errors?${listQuery(filters, cursor, PAGE_SIZE, asOf)}`);

  // The page shown: while the same filters' page reloads (a new since),
  // the one before stays.
  const filterKey = JSON.stringify(filters);
  const shown = useRef<{ key: string; page: Page } | undefined>(undefined);
  if (list.data) shown.current = { key: filterKey + cursor, page: list.data };
  const page = list.data ?? (shown.current?.key === filterKey + cursor ? shown.current.page : undefined);
  const records = page?.records ?? [];

  // The sparklines: one request for the page's records.
  const ids = records.map((r) => r.error_id);
  const counts = useJSON<Counts>(ids.length > 0 ? `/v1/counts?${countsQuery(ids, filters.since, asOf)}` : null);
  // Kept by record across reads (a reload shows the last ones until it
  // answers), forgotten when the range changes; a record the answer has
  // no series for had no occurrence in the range: a flat line.
  const range = sparkRange(filters.since);
  const series = useRef({ since: filters.since, byId: new Map<string, number[]>() });
  if (series.current.since !== filters.since) series.current = { since: filters.since, byId: new Map() };
  if (counts.data) {
    const buckets = Math.round(range.ms / (range.bucket === 'hour' ? 3600_000 : 24 * 3600_000));
    const got = new Map(counts.data.series.map((s) => [s.key, s.counts]));
    for (const id of ids) series.current.byId.set(id, got.get(id) ?? new Array<number>(buckets).fill(0));
  }

  // The cursors of the newer pages, to go back to; the rows selected.
  const [newer, setNewer] = useState<string[]>([]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [shownFilters, setShownFilters] = useState(filterKey);
  if (shownFilters !== filterKey) {
    setShownFilters(filterKey);
    setNewer([]);
  }
  const [shownCursor, setShownCursor] = useState(filterKey + cursor);
  if (shownCursor !== filterKey + cursor) {
    setShownCursor(filterKey + cursor);
    setSelected(new Set());
  }
  // Only rows on the page stay selected.
  const onPage = ids.join(' ');
  useEffect(() => {
    const here = new Set(onPage.split(' '));
    setSelected((s) => ([...s].every((id) => here.has(id)) ? s : new Set([...s].filter((id) => here.has(id)))));
  }, [onPage]);

  // Live: a burst of feedback is one reload.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reloadList = list.reload;
  const reloadCounts = counts.reload;
  // A read of the sparklines under way is left to finish (made again then,
  // so that it misses nothing): a reload would cancel it, and under a
  // stream of feedback it might never answer.
  const countsOwed = useRef(false);
  const countsLoading = counts.loading;
  const countsLoadingNow = useRef(countsLoading); // refresh may run from an older render's timer
  countsLoadingNow.current = countsLoading;
  const refresh = () => {
    setAsOf(Date.now());
    reloadList();
    if (countsLoadingNow.current) countsOwed.current = true;
    else reloadCounts();
  };
  useEffect(() => {
    if (countsLoading || !countsOwed.current) return;
    countsOwed.current = false;
    reloadCounts();
  }, [countsLoading, reloadCounts]);
  const owed = useRef(false);
  const loaded = list.data !== undefined || list.error !== null;
  const loadedNow = useRef(loaded);
  loadedNow.current = loaded;
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
      // While the page's first read is under way (the feed opens at about
      // the same time), a reload would cancel it: the page waits for its
      // rows, shows them, and reads again then.
      if (!loadedNow.current) owed.current = true;
      else refresh();
    }, RELOAD_DELAY);
  });
  useEffect(() => {
    if (!loaded || !owed.current) return;
    owed.current = false;
    // The sparklines' first read starts now, after the feed opened: it
    // misses nothing, and is left to finish.
    setAsOf(Date.now());
    reloadList();
  }, [loaded, reloadList]);
  useEffect(() => () => clearTimeout(timer.current), []);

  // Relative times move on.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);

  usePageTitle('Errors');
  // A bulk change: sent, then announced, the list made again.
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState('');
  const [failed, setFailed] = useState<Error | null>(null);
  const apply = async (form: StatusForm) => {
    const chosen = [...selected];
    setBusy(true);
    setSaid('');
    try {
      const n = await changeErrors(chosen, changeOf(form), key);
      setSaid(bulkSaid(form, n, chosen.length));
      setFailed(null);
      setSelected(new Set());
      refresh();
    } catch (e) {
      if (isAuthError(e)) refuse(e.problem);
      setSaid(`The change was not made: ${e instanceof Error ? e.message : String(e)}`);
      setFailed(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  };

  const next = page?.next_cursor;
  const filtered = Object.entries(filters).some(([k, v]) => k !== 'sort' && v !== '');
  const first = newer.length * PAGE_SIZE + 1;

  return (
    <section aria-labelledby="errors-title" className="errors-page">
      <div className="title-row">
        <h1 id="errors-title" tabIndex={-1}>
          Errors
        </h1>
        {page && (
          <span className="total" data-testid="total" data-total={page.total}>
            {page.total.toLocaleString('en')}
            {page.total_capped ? '+' : ''} {page.total === 1 ? 'match' : 'matches'}
          </span>
        )}
        {list.loading && <span className="muted">Loading…</span>}
      </div>
      <ListFilters filters={filters} />
      <p className="announce" role="status" data-testid="announce">
        {said}
      </p>
      {list.error && <Failure error={list.error} />}
      {page && records.length === 0 && (
        <p className="empty">
          {filtered || cursor
            ? 'No errors match these filters.'
            : 'No errors yet. Pipeline agents report them with POST /v1/errors; each one appears here as it is handled.'}
        </p>
      )}
      {records.length > 0 && (
        <>
          <Bulk
            ids={ids}
            selected={selected}
            setSelected={setSelected}
            busy={busy}
            failed={failed}
            apply={apply}
          />
          <ul className="error-list" aria-label="Errors">
            {records.map((r) => (
              <Row
                key={r.error_id}
                r={r}
                now={now}
                fresh={fresh.has(r.error_id)}
                counts={series.current.byId.get(r.error_id)}
                range={range.label}
                per={range.bucket}
                windowed={filters.sort === 'count' && filters.since !== ''}
                selected={selected.has(r.error_id)}
                select={(on) =>
                  setSelected((s) => {
                    const n = new Set(s);
                    if (on) n.add(r.error_id);
                    else n.delete(r.error_id);
                    return n;
                  })
                }
              />
            ))}
          </ul>
        </>
      )}
      <Pager label="Pages" older="Older errors" cursor={cursor} next={next} newer={newer} setNewer={setNewer} go={(c) => go(errorsHash(filters, c))}>
        {page && records.length > 0 && !(cursor && newer.length === 0) && (
          <>
            {' '}
            · {first}–{first + records.length - 1} of {page.total.toLocaleString('en')}
            {page.total_capped ? '+' : ''}
          </>
        )}
      </Pager>
    </section>
  );
}

/**
 * The bar of the bulk changes: select all, and the record page's form
 * (ChangeForm), applied to what is selected: resolve (now, in a release,
 * in the next), ignore (for good, for a time, until N more within a
 * window), unresolve, assign.
 */
function Bulk({
  ids,
  selected,
  setSelected,
  busy,
  failed,
  apply,
}: {
  ids: string[];
  selected: ReadonlySet<string>;
  setSelected: (s: ReadonlySet<string>) => void;
  busy: boolean;
  failed: Error | null;
  apply: (f: StatusForm) => Promise<void>;
}) {
  const all = useRef<HTMLInputElement>(null);
  const n = selected.size;
  useEffect(() => {
    if (all.current) all.current.indeterminate = n > 0 && n < ids.length;
  }, [n, ids.length]);
  return (
    <div className="bulk" role="group" aria-label="Change the selected errors">
      <div className="bulk-select">
        <label className="select-all">
          <input
            ref={all}
            type="checkbox"
            checked={n > 0 && n === ids.length}
            onChange={(e) => setSelected(e.target.checked ? new Set(ids) : new Set())}
          />
          Select all on this page
        </label>
        <span className="muted" data-testid="selected">
          {n} selected
        </span>
      </div>
      <ChangeForm
        label="Change the selected errors"
        submitLabel="Apply to selected"
        initial={BULK_FORM}
        busy={busy}
        disabled={n === 0}
        error={failed}
        // A change clears the selection, which disables the button it was
        // made with: the focus goes to the select-all box rather than be lost.
        onSubmit={(f) => void apply(f).finally(() => all.current?.focus())}
      />
    </div>
  );
}

/** The bulk form's first values. */
const BULK_FORM: StatusForm = { action: 'resolve', release: '', seconds: 24 * 3600, count: 100, windowSeconds: 0, assignee: '', note: '' };

/** A title "CODE: message" as its code and its message. */
function splitTitle(r: RecordSummary): { code: string; message: string } {
  if (r.code && r.title.startsWith(`${r.code}: `)) return { code: r.code, message: r.title.slice(r.code.length + 2) };
  return { code: '', message: r.title };
}

/** The releases a record was seen in: first, and last when another. */
function releases(r: RecordSummary): string {
  const { first_release: a, last_release: b } = r;
  if (a && b && a !== b) return `${a} → ${b}`;
  return a || b || '';
}

function Row({
  r,
  now,
  fresh,
  counts,
  range,
  per,
  windowed,
  selected,
  select,
}: {
  r: RecordSummary;
  now: number;
  fresh: boolean;
  counts: number[] | undefined;
  range: string;
  per: string;
  windowed: boolean;
  selected: boolean;
  select: (on: boolean) => void;
}) {
  const { code, message } = splitTitle(r);
  const rel = releases(r);
  // The whole of what the row cuts, on hover.
  const full = [
    r.title,
    `agent ${r.agent_id} · query ${r.query_id}`,
    r.last_environment || rel ? [r.last_environment, rel && `release ${rel}`].filter(Boolean).join(' · ') : '',
    `first seen ${formatTime(r.first_seen)}, last seen ${formatTime(r.last_seen)}`,
  ]
    .filter(Boolean)
    .join('\n');
  const titleId = `title-${r.error_id}`;
  return (
    <li
      className={`err-row${fresh ? ' fresh' : ''}${selected ? ' selected' : ''}`}
      data-error-id={r.error_id}
      data-status={r.status}
    >
      <input
        type="checkbox"
        className="err-check"
        checked={selected}
        aria-labelledby={`select-${r.error_id} ${titleId}`}
        onChange={(e) => select(e.target.checked)}
      />
      <span id={`select-${r.error_id}`} hidden>
        Select
      </span>
      <div className="err-main">
        <a className="err-title" id={titleId} href={errorHash(r.error_id)} title={full} data-field="title">
          {code && <code className="err-code">{code}</code>}
          {code && ': '}
          <span className="err-message">{message}</span>
        </a>
        <div className="err-meta">
          <Badge kind="status" value={r.status} />
          <span className="err-agent" data-field="agent">
            <span className="vh">agent </span>
            {r.agent_id}
          </span>
          <span className="err-query muted" data-field="query">
            <span className="vh">query </span>
            {r.query_id}
          </span>
          {r.last_environment && (
            <span className="err-env" data-field="environment">
              <span className="vh">environment </span>
              <span className="muted" aria-hidden="true">
                env{' '}
              </span>
              {r.last_environment}
            </span>
          )}
          {rel && (
            <span className="err-release" data-field="release">
              <span className="muted">release </span>
              {rel}
            </span>
          )}
          <span className="err-type muted" data-field="type">
            {r.error_type.replace(/_/g, ' ')}
          </span>
          <Badge kind="severity" value={r.severity} />
          {r.next_action && <Badge kind="action" value={r.next_action} />}
          {r.assignee && (
            <span className="err-assignee" data-field="assignee">
              <span className="vh">assigned to </span>
              <span aria-hidden="true">@</span>
              {r.assignee}
            </span>
          )}
        </div>
      </div>
      <div className="err-stats">
        <Sparkline counts={counts} range={range} per={per} />
        <span className="err-count" data-field="count" title={`${r.occurrence_count} occurrences in all`}>
          {r.occurrence_count.toLocaleString('en')}
          <span className="vh"> occurrences</span>
          {windowed && (
            <span className="muted small err-window"> ({(r.window_count ?? 0).toLocaleString('en')} in range)</span>
          )}
        </span>
        <span className="err-seen" data-field="seen">
          <span className="vh">last seen </span>
          <Ago time={r.last_seen} now={now} />
        </span>
      </div>
    </li>
  );
}
