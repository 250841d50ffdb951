// The dashboard's pages live in the URL's fragment (hash routing), so the
// service serves one document at / and no other path of its own:
//
//	#/                      the errors, filtered: #/?q=…&status=…&agent_id=…&error_type=…&severity=…
//	                        &environment=…&release=…&since=24h&sort=count&cursor=…
//	#/errors/{error_id}     one error
//	#/playground            the playground: #/playground?agent=echo
//	#/runs                  the AG-UI runs, filtered: #/runs?agent_id=…&outcome=failed&code=…&since=24h&cursor=…
//	#/runs/{run_id}         one run
//	#/overview              failure rates and new or regressed records: #/overview?range=7d
//	#/sessions              the MCP sessions, filtered: #/sessions?outcome=closed&since=24h&cursor=…
//	#/sessions/{session_id} one MCP session, with the records its failed calls became

import { useEffect, useState } from 'react';

/**
 * The filters of the errors page: the query of GET /v1/errors (since as a
 * preset), its search (q) and its sort. "" is no filter (sort: last seen).
 */
export interface ErrorFilters {
  /** Full-text search: words that begin words of the title, code, agent or query. */
  q: string;
  /** A record status (unresolved, resolved, ignored, regressed) or "". */
  status: string;
  agent_id: string;
  error_type: string;
  severity: string;
  /** The environment a record was last seen in. */
  environment: string;
  /** A release a record was first or last seen in. */
  release: string;
  /** A session an occurrence's report names (data.context.session_id). */
  session_id: string;
  /** A preset (1h, 24h, 7d, 30d) or "" for any time. */
  since: string;
  /** last_seen ("", the default), first_seen or count. */
  sort: string;
}

/** The filters of the errors page when none is set. */
export const NO_FILTERS: ErrorFilters = {
  q: '',
  status: '',
  agent_id: '',
  error_type: '',
  severity: '',
  environment: '',
  release: '',
  session_id: '',
  since: '',
  sort: '',
};

/** The sorts of the errors page ("" is last seen, the API's default). */
export const SORTS: Record<string, string> = {
  '': 'Last seen',
  first_seen: 'First seen',
  count: 'Occurrences',
};

/** The statuses a record may have (triage.Status). */
export const STATUSES = ['unresolved', 'regressed', 'resolved', 'ignored'] as const;

export type Route =
  | { page: 'errors'; filters: ErrorFilters; cursor: string }
  | { page: 'error'; id: string }
  | { page: 'playground'; agent: string }
  | { page: 'runs'; filters: RunFilters; cursor: string }
  | { page: 'run'; id: string }
  | { page: 'overview'; range: string }
  | { page: 'sessions'; filters: SessionFilters; cursor: string }
  | { page: 'session'; id: string }
  | { page: 'missing'; hash: string };

/** The filters of the runs page: the query of GET /v1/runs (since as a preset). */
export interface RunFilters {
  agent_id: string;
  /** running, finished, failed, disconnected, shutdown, or "" for any. */
  outcome: string;
  code: string;
  /** A preset (1h, 24h, 7d, 30d) or "" for any time. */
  since: string;
}

/** The outcomes of a run (GET /v1/runs?outcome=). */
export const RUN_OUTCOMES = ['running', 'finished', 'failed', 'disconnected', 'shutdown'] as const;

/** The filters of the sessions page: the query of GET /v1/sessions (since as a preset). */
export interface SessionFilters {
  /** open, closed, expired, evicted, shutdown, or "" for any. */
  outcome: string;
  /** A preset (1h, 24h, 7d, 30d) or "" for any time. */
  since: string;
}

/** The outcomes of an MCP session (GET /v1/sessions?outcome=). */
export const SESSION_OUTCOMES = ['open', 'closed', 'expired', 'evicted', 'shutdown'] as const;

/** The overview's default range. */
export const DEFAULT_RANGE = '24h';

/** The since presets, and how far back each reaches, in ms. */
export const SINCE_PRESETS: Record<string, { label: string; ms: number }> = {
  '1h': { label: 'the last hour', ms: 3600_000 },
  '24h': { label: 'the last 24 hours', ms: 24 * 3600_000 },
  '7d': { label: 'the last 7 days', ms: 7 * 24 * 3600_000 },
  '30d': { label: 'the last 30 days', ms: 30 * 24 * 3600_000 },
};

/** Reads a location's hash. */
export function parseHash(hash: string): Route {
  const h = hash.replace(/^#/, '');
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  if (path === '' || path === '/') {
    return { page: 'errors', filters: readFilters(query), cursor: query.get('cursor') ?? '' };
  }
  const m = /^\/errors\/([^/]+)$/.exec(path);
  if (m?.[1]) return { page: 'error', id: decodeURIComponent(m[1]) };
  if (path === '/playground') return { page: 'playground', agent: query.get('agent') ?? '' };
  if (path === '/runs') {
    const since = query.get('since') ?? '';
    const outcome = query.get('outcome') ?? '';
    return {
      page: 'runs',
      filters: {
        agent_id: query.get('agent_id') ?? '',
        outcome: (RUN_OUTCOMES as readonly string[]).includes(outcome) ? outcome : '',
        code: query.get('code') ?? '',
        since: since in SINCE_PRESETS ? since : '',
      },
      cursor: query.get('cursor') ?? '',
    };
  }
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run?.[1]) return { page: 'run', id: decodeURIComponent(run[1]) };
  if (path === '/sessions') {
    const since = query.get('since') ?? '';
    const outcome = query.get('outcome') ?? '';
    return {
      page: 'sessions',
      filters: {
        outcome: (SESSION_OUTCOMES as readonly string[]).includes(outcome) ? outcome : '',
        since: since in SINCE_PRESETS ? since : '',
      },
      cursor: query.get('cursor') ?? '',
    };
  }
  const session = /^\/sessions\/([^/]+)$/.exec(path);
  if (session?.[1]) return { page: 'session', id: decodeURIComponent(session[1]) };
  if (path === '/overview') {
    const range = query.get('range') ?? '';
    return { page: 'overview', range: range in SINCE_PRESETS ? range : DEFAULT_RANGE };
  }
  return { page: 'missing', hash: h };
}

/**
 * The filters of the errors page in a query: only the ones it has; a since
 * that is not a preset, a sort or status the API does not have, are none.
 */
export function readFilters(query: URLSearchParams): ErrorFilters {
  const f = { ...NO_FILTERS };
  for (const k of Object.keys(NO_FILTERS) as (keyof ErrorFilters)[]) f[k] = query.get(k) ?? '';
  if (!(f.since in SINCE_PRESETS)) f.since = '';
  if (!(f.sort in SORTS)) f.sort = '';
  if (!(STATUSES as readonly string[]).includes(f.status)) f.status = '';
  return f;
}

/** The hash of the errors page with filters (empty ones left out) and a cursor. */
export function errorsHash(filters: ErrorFilters, cursor = ''): string {
  const q = new URLSearchParams();
  for (const k of Object.keys(NO_FILTERS) as (keyof ErrorFilters)[]) if (filters[k]) q.set(k, filters[k]);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `#/?${s}` : '#/';
}

export function errorHash(id: string): string {
  return `#/errors/${encodeURIComponent(id)}`;
}

export function playgroundHash(agent = ''): string {
  return agent ? `#/playground?agent=${encodeURIComponent(agent)}` : '#/playground';
}

/** The hash of the runs page with filters (empty ones left out) and a cursor. */
export function runsHash(filters: RunFilters, cursor = ''): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `#/runs?${s}` : '#/runs';
}

/** The hash of one run's page (a record's page links to it too). */
export function runHash(id: string): string {
  return `#/runs/${encodeURIComponent(id)}`;
}

/** The hash of the sessions page with filters (empty ones left out) and a cursor. */
export function sessionsHash(filters: SessionFilters = { outcome: '', since: '' }, cursor = ''): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `#/sessions?${s}` : '#/sessions';
}

/** The hash of one MCP session's page (a record's page links to it). */
export function sessionHash(id: string): string {
  return `#/sessions/${encodeURIComponent(id)}`;
}

/** The query of GET /v1/sessions for filters, a cursor and a page size. */
export function sessionsQuery(filters: SessionFilters, cursor: string, limit: number, now = Date.now()): string {
  const q = new URLSearchParams();
  if (filters.outcome) q.set('outcome', filters.outcome);
  const preset = SINCE_PRESETS[filters.since];
  if (preset) q.set('since', new Date(now - preset.ms).toISOString());
  q.set('limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

export function overviewHash(range = DEFAULT_RANGE): string {
  return range === DEFAULT_RANGE ? '#/overview' : `#/overview?range=${encodeURIComponent(range)}`;
}

/**
 * The query of GET /v1/runs for filters, a cursor and a page size, the
 * since preset made a time from now.
 */
export function runsQuery(filters: RunFilters, cursor: string, limit: number, now = Date.now()): string {
  const q = new URLSearchParams();
  if (filters.agent_id) q.set('agent_id', filters.agent_id);
  if (filters.outcome) q.set('outcome', filters.outcome);
  if (filters.code) q.set('code', filters.code);
  const preset = SINCE_PRESETS[filters.since];
  if (preset) q.set('since', new Date(now - preset.ms).toISOString());
  q.set('limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

/**
 * The query of GET /v1/errors for filters, a cursor and a page size, the
 * since preset made a time from now. Sorted by count with a since preset,
 * the count is that of the range (window).
 */
export function listQuery(filters: ErrorFilters, cursor: string, limit: number, now = Date.now()): string {
  const q = new URLSearchParams();
  for (const k of ['q', 'status', 'agent_id', 'error_type', 'severity', 'environment', 'release', 'session_id', 'sort'] as const) {
    if (filters[k]) q.set(k, filters[k]);
  }
  const preset = SINCE_PRESETS[filters.since];
  if (preset) {
    q.set('since', new Date(now - preset.ms).toISOString());
    if (filters.sort === 'count') q.set('window', filters.since);
  }
  q.set('limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

/**
 * The range the sparklines of the errors page cover for a since preset:
 * its own, but never under a day (the counts are hourly) and at most 30
 * days (their retention, and "any time"); by hour up to 7 days, by day
 * beyond.
 */
export function sparkRange(since: string): { ms: number; bucket: 'hour' | 'day'; label: string } {
  const ms = Math.max(SINCE_PRESETS[since]?.ms ?? SINCE_PRESETS['30d']!.ms, SINCE_PRESETS['24h']!.ms);
  const label = ms === SINCE_PRESETS['24h']!.ms ? 'the last 24 hours' : ms === SINCE_PRESETS['7d']!.ms ? 'the last 7 days' : 'the last 30 days';
  return { ms, bucket: ms > SINCE_PRESETS['7d']!.ms ? 'day' : 'hour', label };
}

/**
 * The query of GET /v1/counts for the sparklines of records: one call for
 * a page's records, the range's start rounded down to its bucket (the
 * service widens it so anyway), so that it reads the same all the bucket
 * long.
 */
export function countsQuery(ids: readonly string[], since: string, now = Date.now()): string {
  const r = sparkRange(since);
  const unit = r.bucket === 'hour' ? 3600_000 : 24 * 3600_000;
  // A whole number of buckets ending with the current one.
  const start = Math.floor(now / unit) * unit - (Math.round(r.ms / unit) - 1) * unit;
  const q = new URLSearchParams({ by: 'record', bucket: r.bucket, since: new Date(start).toISOString() });
  for (const id of ids) q.append('error_id', id);
  q.set('limit', String(Math.max(ids.length, 1)));
  return q.toString();
}

/** The route of the location's hash, following its changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
