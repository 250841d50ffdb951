// Small pieces the pages share: times, badges, a problem's message.

import { ApiError } from './api';
import { useScrollFocus } from './page';

/** "3 min ago", from an RFC 3339 time; the time itself in the title. */
export function Ago({ time, now = Date.now() }: { time: string; now?: number }) {
  return (
    <time dateTime={time} title={formatTime(time)}>
      {ago(time, now)}
    </time>
  );
}

export function ago(time: string, now = Date.now()): string {
  const t = Date.parse(time);
  if (Number.isNaN(t)) return time;
  const s = Math.round((now - t) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

/** A time as the user's locale writes it, to the second. */
export function formatTime(time: string): string {
  const t = Date.parse(time);
  if (Number.isNaN(t)) return time;
  return new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** A severity, next action, job state or outcome status, as a coloured word. */
export function Badge({ kind, value }: { kind: string; value: string | undefined }) {
  if (!value) return <span className="muted">—</span>;
  return (
    <span className={`badge ${kind}-${value}`} data-kind={kind}>
      {value.replace(/_/g, ' ')}
    </span>
  );
}

/** A failed request, as the page says it: the problem's message, its code and status. */
export function Failure({ error }: { error: Error }) {
  if (error instanceof ApiError) {
    return (
      <p className="problem" role="alert" data-code={error.problem.code}>
        {error.problem.message} <span className="muted">({error.problem.code}, HTTP {error.status})</span>
      </p>
    );
  }
  return (
    <p className="problem" role="alert">
      The service could not be reached: {error.message}
    </p>
  );
}

/** A JSON value, indented; it scrolls in its own box (reachable by Tab while it does), named label. */
export function JSONBlock({ value, label = 'JSON' }: { value: unknown; label?: string }) {
  const ref = useScrollFocus<HTMLPreElement>(label);
  return (
    <pre ref={ref} className="json">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** Humanizes a duration in nanoseconds. */
export function duration(ns: number): string {
  if (ns < 1e6) return `${Math.round(ns / 1e3)} µs`;
  if (ns < 1e9) return `${Math.round(ns / 1e6)} ms`;
  return `${(ns / 1e9).toFixed(1)} s`;
}
