// The errors page's search, filters and sort, all in the URL's hash: a
// choice applies at once; the words typed (search, agent, environment,
// release, session) when submitted, or with the next choice. The agent field
// suggests the agents that reported in the last 30 days (GET /v1/counts
// by agent, read when the field is first focused). On a narrow window the
// filters but the search and the sort fold under a button.

import { useEffect, useState, type FormEvent } from 'react';

import { Choice, SINCE_OPTIONS, named } from './Choice';
import { NO_FILTERS, SORTS, STATUSES, errorsHash, type ErrorFilters } from './route';
import { ERROR_TYPES, SEVERITIES } from './types';
import { useJSON } from './useJSON';

/** The fields typed, applied on submit. */
const TYPED = ['q', 'agent_id', 'environment', 'release', 'session_id'] as const;
type Typed = Pick<ErrorFilters, (typeof TYPED)[number]>;

function typed(f: ErrorFilters): Typed {
  return { q: f.q, agent_id: f.agent_id, environment: f.environment, release: f.release, session_id: f.session_id };
}

/** GET /v1/counts' answer, as far as the suggestions read it. */
interface AgentCounts {
  series: { key: string }[];
}

export function ListFilters({ filters }: { filters: ErrorFilters }) {
  const [draft, setDraft] = useState<Typed>(() => typed(filters));
  const shown = JSON.stringify(typed(filters));
  useEffect(() => setDraft(JSON.parse(shown) as Typed), [shown]);
  const [suggest, setSuggest] = useState(false);
  const agents = useJSON<AgentCounts>(suggest ? '/v1/counts?by=agent&bucket=day&limit=100' : null);

  // Every change applies the whole form, the words as typed so far too.
  const set = (patch: Partial<ErrorFilters>) => {
    const words = Object.fromEntries(TYPED.map((k) => [k, draft[k].trim()])) as Typed;
    window.location.hash = errorsHash({ ...filters, ...words, ...patch });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set({});
  };
  const text = (name: keyof Typed, label: string, placeholder: string, extra: Record<string, unknown> = {}) => (
    <label className={`f-${name}`}>
      {label}
      <input
        name={name}
        value={draft[name]}
        placeholder={placeholder}
        autoComplete="off"
        onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
        {...extra}
      />
    </label>
  );
  const filtered = Object.entries(filters).some(([k, v]) => k !== 'sort' && v !== '');
  // On a narrow window, the filters but the search and the sort fold away.
  const [more, setMore] = useState(false);
  const active = Object.entries(filters).filter(([k, v]) => k !== 'sort' && k !== 'q' && v !== '').length;

  return (
    <form className="filters list-filters" role="search" aria-label="Filters" onSubmit={submit}>
      {text('q', 'Search', 'words of the title, code, agent or query', { type: 'search', maxLength: 200 })}
      <button
        type="button"
        className="more-toggle"
        aria-expanded={more}
        aria-controls="more-filters"
        onClick={() => setMore(!more)}
      >
        Filters{active > 0 ? ` (${active})` : ''}
      </button>
      <div className={`more-filters${more ? ' open' : ''}`} id="more-filters">
        <Choice label="Status" name="status" value={filters.status} any="any status" options={named(STATUSES)} onChange={(v) => set({ status: v })} />
        {text('agent_id', 'Agent', 'any agent', { list: 'agent-suggestions', onFocus: () => setSuggest(true) })}
        <datalist id="agent-suggestions">
          {agents.data?.series.map((s) => <option key={s.key} value={s.key} />)}
        </datalist>
        <Choice
          label="Type"
          name="error_type"
          value={filters.error_type}
          any="any type"
          options={ERROR_TYPES.map((t) => [t, t.replace(/_/g, ' ')] as const)}
          onChange={(v) => set({ error_type: v })}
        />
        <Choice label="Severity" name="severity" value={filters.severity} any="any severity" options={named(SEVERITIES)} onChange={(v) => set({ severity: v })} />
        {text('environment', 'Environment', 'any environment', { maxLength: 64 })}
        {text('release', 'Release', 'any release', { maxLength: 200 })}
        {text('session_id', 'Session', 'any session', { maxLength: 256 })}
        <Choice label="Since" name="since" value={filters.since} any="any time" options={SINCE_OPTIONS} onChange={(v) => set({ since: v })} />
      </div>
      <label>
        Sort
        <select name="sort" value={filters.sort} onChange={(e) => set({ sort: e.target.value })}>
          {Object.entries(SORTS).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
      {filtered && (
        <a className="clear" href={errorsHash({ ...NO_FILTERS, sort: filters.sort })}>
          Clear
        </a>
      )}
    </form>
  );
}
