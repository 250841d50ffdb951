// The record page's logic, apart from its markup so that it is tested on
// its own: occurrences grouped when identical, the chart's range and
// buckets, the change a form asks for, what links an occurrence to its
// run or MCP session and trace, and whether the user message contradicts
// the fault's retryability.

import type { components, paths } from '@triage/client/api';
import type { Feedback, Occurrence, Report } from './types';

type Schemas = components['schemas'];

/** A record's status (triage.Status). */
export type RecordStatus = Schemas['RecordStatus'];
/** A change asked of a record (PATCH /v1/errors/{error_id}). */
export type Change = Schemas['Change'];
/** A page of a record's history. */
export type TransitionPage = Schemas['TransitionPage'];
/** One change of a record's workflow. */
export type Transition = TransitionPage['transitions'][number];
/** A record's workflow as a transition's from or to has it. */
export type WorkflowState = Transition['to'];
/** A page of GET /v1/errors/{error_id}/jobs. */
export type JobPage = paths['/v1/errors/{error_id}/jobs']['get']['responses'][200]['content']['application/json'];
/** GET /v1/errors/{error_id}/counts. */
export type Counts = paths['/v1/errors/{error_id}/counts']['get']['responses'][200]['content']['application/json'];

// ---- occurrences grouped

/**
 * The members of a report's context that name one run, call or trace: two
 * reports that differ only in them say the same thing (an agent failing
 * the same way in 153 runs), so they are left out of the comparison, and
 * each occurrence of a group keeps its own links.
 */
const INSTANCE_KEYS = new Set(['run_id', 'thread_id', 'session_id', 'call_id', 'trace_id', 'traceparent', 'span_id']);

/** A group of identical occurrences: the latest first, as the page lists them. */
export interface OccurrenceGroup {
  key: string;
  occurrences: Occurrence[];
}

/**
 * The identity of an occurrence's report: everything the agent sent but
 * its timestamp and the identifiers of one run, call or trace. Reports
 * with the same identity are identical occurrences.
 */
export function reportIdentity(o: Occurrence): string {
  const r = o.report as Partial<Report> | null | undefined;
  if (!r || typeof r !== 'object') return `occurrence:${o.received_at}`;
  const { timestamp: _t, ...rest } = r as Record<string, unknown>;
  void _t;
  const data = { ...((rest['data'] as Record<string, unknown> | undefined) ?? {}) };
  const ctx = data['context'];
  if (ctx && typeof ctx === 'object' && !Array.isArray(ctx)) {
    data['context'] = Object.fromEntries(Object.entries(ctx as Record<string, unknown>).filter(([k]) => !INSTANCE_KEYS.has(k)));
  }
  return stableJSON({ ...rest, data });
}

/** JSON with the members of every object in key order, so that equal values give equal text. */
export function stableJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJSON).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJSON(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Groups occurrences (the latest first) whose reports are identical
 * (reportIdentity), whether or not they are adjacent: a group stands where
 * its latest occurrence does, and keeps its occurrences the latest first.
 */
export function groupOccurrences(occs: readonly Occurrence[]): OccurrenceGroup[] {
  const groups = new Map<string, OccurrenceGroup>();
  for (const o of occs) {
    const key = reportIdentity(o);
    let g = groups.get(key);
    if (!g) {
      g = { key, occurrences: [] };
      groups.set(key, g);
    }
    g.occurrences.push(o);
  }
  return [...groups.values()];
}

/** The range of attempts of a group: "3", or "1–153". */
export function attemptRange(g: OccurrenceGroup): string {
  const a = g.occurrences.map((o) => o.attempt);
  const lo = Math.min(...a);
  const hi = Math.max(...a);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

/** The distinct values of f over a group's occurrences, in the order first met. */
export function distinct<T>(g: OccurrenceGroup, f: (o: Occurrence) => T): T[] {
  return [...new Set(g.occurrences.map(f))];
}

// ---- links: the run or MCP session, the trace

/** What links an occurrence back to where it came from (a door's failure: data.context). */
export interface Origin {
  /** "agui" or "mcp" (the service's doors), or "" for a report a pipeline agent sent. */
  door: string;
  runId?: string;
  threadId?: string;
  sessionId?: string;
  tool?: string;
  traceId?: string;
}

/** The run, MCP session and trace a report names in its context. */
export function originOf(report: unknown): Origin {
  const ctx = ((report as Partial<Report> | null)?.data?.context ?? {}) as Record<string, unknown>;
  const s = (k: string) => (typeof ctx[k] === 'string' && ctx[k] !== '' ? (ctx[k] as string) : undefined);
  const o: Origin = { door: s('door') ?? '' };
  const set = (k: keyof Origin, v: string | undefined) => {
    if (v !== undefined) (o as unknown as Record<string, string>)[k] = v;
  };
  set('runId', s('run_id'));
  set('threadId', s('thread_id'));
  set('sessionId', s('session_id'));
  set('tool', s('tool'));
  set('traceId', s('trace_id') ?? traceIdOf(s('traceparent')));
  return o;
}

/** The trace id of a W3C traceparent, or undefined. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  const m = traceparent ? /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent) : null;
  return m?.[1];
}

/** The hash of a run's page (the runs page's route). */
export function runHash(runId: string): string {
  return `#/runs/${encodeURIComponent(runId)}`;
}

// ---- contradictions

/**
 * A user message that tells the user to send the same request again later
 * (as the policy's test of the same name reads it): "try again in a few
 * minutes", "temporarily unavailable"; not "correct it and try again".
 */
const INVITES_RETRY = /temporarily|try again (later|shortly|in\b)|in a (few|little) (minutes?|while)/i;

/**
 * What contradicts itself in a feedback, in a word for the page, or null:
 * a message that invites a retry beside a fault that is not retryable. The
 * service's policy no longer writes one; a record stored before may.
 */
export function contradiction(fb: Pick<Feedback, 'user_message' | 'fault'>): string | null {
  if (!fb.fault.retryable && INVITES_RETRY.test(fb.user_message)) {
    return 'Contradiction: the message invites a retry, but the fault is not retryable.';
  }
  return null;
}

// ---- the chart's range

/** The chart's ranges: how far back, and in which buckets. */
export const CHART_RANGES = {
  '24h': { label: 'Last 24 hours', ms: 24 * 3600_000, bucket: 'hour' },
  '7d': { label: 'Last 7 days', ms: 7 * 24 * 3600_000, bucket: 'hour' },
  '30d': { label: 'Last 30 days', ms: 30 * 24 * 3600_000, bucket: 'day' },
} as const;

export type ChartRange = keyof typeof CHART_RANGES;

/** The range a record's chart opens with: the shortest that holds its first occurrence (30 days at most). */
export function defaultRange(firstSeen: string, now = Date.now()): ChartRange {
  const age = now - Date.parse(firstSeen);
  if (!(age > CHART_RANGES['24h'].ms)) return '24h';
  if (age <= CHART_RANGES['7d'].ms) return '7d';
  return '30d';
}

/** The query of GET /v1/errors/{error_id}/counts for a range ending now. */
export function countsQuery(range: ChartRange, now = Date.now()): string {
  const r = CHART_RANGES[range];
  return new URLSearchParams({ bucket: r.bucket, since: new Date(now - r.ms).toISOString(), until: new Date(now).toISOString() }).toString();
}

/** One bar of the chart: its bucket's start and count. */
export interface Bar {
  start: Date;
  count: number;
}

/** The bars of a series of counts, one per bucket from since. */
export function bars(c: Counts): Bar[] {
  const step = c.bucket === 'day' ? 24 * 3600_000 : 3600_000;
  const since = Date.parse(c.since);
  const counts = c.series[0]?.counts ?? [];
  return counts.map((n, i) => ({ start: new Date(since + i * step), count: n }));
}

// ---- the change a form asks for: change.ts (the errors page's bulk
// changes use it too, without the rest of this module)

export { STATUS_ACTIONS, changeOf, type StatusAction, type StatusForm } from './change';

/** A workflow state in words: "resolved in 1.4.2", "ignored until 12 more", "unresolved". */
export function describeState(w: Partial<WorkflowState> & { status: RecordStatus }, fmt: (t: string) => string = (t) => t): string {
  let s: string = w.status;
  if (w.status === 'resolved' && w.resolution?.in_release) {
    s += w.resolution.in_next_release ? ` in the next release (${w.resolution.in_release})` : ` in ${w.resolution.in_release}`;
  }
  if (w.status === 'ignored' && w.ignore) {
    if (w.ignore.until) s += ` until ${fmt(w.ignore.until)}`;
    else if (w.ignore.count) {
      const left = Math.max(0, w.ignore.count - (w.ignore.seen ?? 0));
      s += ` until ${w.ignore.count} more${w.ignore.window_ns ? ` within ${durationWords(w.ignore.window_ns / 1e9)}` : ''}${w.ignore.window_ns ? '' : ` (${left} to go)`}`;
    }
  }
  return s;
}

/** Seconds in words: "1 hour", "7 days", "90 seconds". */
export function durationWords(s: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [n, name] of units) {
    if (s >= n && s % n === 0) {
      const k = s / n;
      return `${k} ${name}${k === 1 ? '' : 's'}`;
    }
  }
  return `${s} second${s === 1 ? '' : 's'}`;
}
