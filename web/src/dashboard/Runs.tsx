// The runs: GET /v1/runs, a page of AG-UI agent runs (the latest started
// first) with their agent, outcome, fault code, duration and start, and
// the record a failed one became an occurrence of; filters (agent,
// outcome, code, since) and pagination by cursor, all in the URL; read
// again, live, when the feed says a run ended (a `run` event).

import { useEffect, useRef, useState, type FormEvent } from 'react';

import { Choice, SINCE_OPTIONS, named } from './Choice';
import { Cut, runDuration } from './cut';
import { useFeed } from './feed';
import { Ago, Badge } from './format';
import { ListPage, useNow, usePaging, type Column } from './ListPage';
import { RUN_OUTCOMES, errorHash, runHash, runsHash, runsQuery, type RunFilters } from './route';
import type { Run } from './types';
import { usePageTitle } from './page';
import { useJSON } from './useJSON';
// Runs.css is in the page's stylesheet (LazyRuns.tsx).

/** The runs a page shows. */
export const RUNS_PAGE_SIZE = 25;

/** How long a burst of feed events is gathered into one reload, in ms. */
const RELOAD_DELAY = 150;

/** A page of GET /v1/runs. */
interface RunPage {
  runs: Run[];
  next_cursor?: string;
}

const NO_FILTERS: RunFilters = { agent_id: '', outcome: '', code: '', since: '' };

function go(hash: string) {
  window.location.hash = hash;
}

export function RunsPage({ filters, cursor }: { filters: RunFilters; cursor: string }) {
  const paging = usePaging(filters);
  const list = useJSON<RunPage>(`/v1/runs?${runsQuery(filters, cursor, RUNS_PAGE_SIZE, paging.asOf)}`);

  // Live: a run that ended (or a failure recorded, which links a run to
  // its record) reads the page again; a burst is one reload. The query
  // stays the same (since is from when the filters were chosen), so the
  // rows stay shown while it is read.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reload = list.reload;
  useFeed((e) => {
    if (e.type !== 'run' && e.type !== 'feedback' && e.type !== 'truncated' && e.type !== 'open') return;
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      reload();
    }, RELOAD_DELAY);
  });
  useEffect(() => () => clearTimeout(timer.current), []);

  const now = useNow(30_000);
  const filtered = Object.values(filters).some((v) => v !== '');
  const columns: Column<Run>[] = [
    {
      label: 'Run',
      col: 'col-id',
      className: 'id run',
      cell: (r) => (
        <div>
          <a href={runHash(r.run_id)} aria-label={`Run ${r.run_id}`}>
            <Cut text={r.run_id} />
          </a>
          {r.thread_id && (
            <div className="muted small">
              <Cut text={`thread ${r.thread_id}`} focusable />
            </div>
          )}
        </div>
      ),
    },
    {
      label: 'Agent',
      cell: (r) => (
        <a href={runsHash({ ...filters, agent_id: r.agent_id })} title={`Only the runs of ${r.agent_id}`}>
          <Cut text={r.agent_id} />
        </a>
      ),
    },
    { label: 'Outcome', col: 'col-outcome', cell: (r) => <Badge kind="run-outcome" value={r.outcome} /> },
    {
      label: 'Code',
      cell: (r) => (
        <div>
          {r.fault ? (
            <a href={runsHash({ ...filters, outcome: 'failed', code: r.fault.code })} title={`Only the runs failed with ${r.fault.code}`}>
              <Cut text={r.fault.code} />
            </a>
          ) : (
            <span className="muted">—</span>
          )}
          {r.error_id && (
            <div className="small">
              <a href={errorHash(r.error_id)} aria-label={`Record ${r.error_id} of run ${r.run_id}`}>
                record
              </a>
            </div>
          )}
        </div>
      ),
    },
    { label: 'Duration', col: 'col-duration', num: true, cell: (r) => runDuration(r.started_at, r.finished_at, now) },
    { label: 'Started', col: 'col-started', cell: (r) => <Ago time={r.started_at} now={now} /> },
  ];

  usePageTitle('Runs');
  return (
    <ListPage
      name="runs"
      title="Runs"
      titleId="runs-title"
      list={list}
      filters={<RunFiltersForm filters={filters} />}
      empty={
        filtered || cursor
          ? 'No runs match these filters.'
          : 'No runs yet. Each AG-UI run (POST /v1/agents/{agent_id}/runs, the playground’s too) appears here.'
      }
      caption="The latest started first"
      columns={columns}
      rows={list.data?.runs ?? []}
      rowKey={(r) => r.run_id}
      rowData={(r) => ({ 'data-run-id': r.run_id, 'data-outcome': r.outcome })}
      paging={paging}
      cursor={cursor}
      next={list.data?.next_cursor}
      go={(c) => go(runsHash(filters, c))}
    />
  );
}

/** The filters: a choice applies at once, the agent and code when submitted (or with a choice). */
function RunFiltersForm({ filters }: { filters: RunFilters }) {
  const [agent, setAgent] = useState(filters.agent_id);
  const [code, setCode] = useState(filters.code);
  useEffect(() => setAgent(filters.agent_id), [filters.agent_id]);
  useEffect(() => setCode(filters.code), [filters.code]);
  const set = (patch: Partial<RunFilters>) =>
    go(runsHash({ ...filters, agent_id: agent.trim(), code: code.trim(), ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set({});
  };
  return (
    <form className="filters" role="search" aria-label="Filter the runs" onSubmit={submit}>
      <label>
        Agent
        <input name="agent_id" value={agent} placeholder="any agent" onChange={(e) => setAgent(e.target.value)} />
      </label>
      <Choice label="Outcome" name="outcome" value={filters.outcome} any="any outcome" options={named(RUN_OUTCOMES)} onChange={(v) => set({ outcome: v })} />
      <label>
        Code
        <input name="code" value={code} placeholder="any code" onChange={(e) => setCode(e.target.value)} />
      </label>
      <Choice label="Since" name="since" value={filters.since} any="any time" options={SINCE_OPTIONS} onChange={(v) => set({ since: v })} />
      <button type="submit">Apply</button>
      {Object.values(filters).some((v) => v !== '') && (
        <a className="clear" href={runsHash(NO_FILTERS)}>
          Clear
        </a>
      )}
    </form>
  );
}
