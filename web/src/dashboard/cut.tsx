// Long ids (a run's, an agent's, a code) are cut to their space with an
// ellipsis; the whole text is in the title (on hover) and shown wrapped
// while the pointer is on it or it (or the link it is in) has focus.

/**
 * text, cut to the space it has. focusable, for a text not in a link,
 * lets the keyboard reach it (and so see it whole).
 */
export function Cut({ text, className, focusable }: { text: string; className?: string; focusable?: boolean }) {
  return (
    <span className={className ? `cut ${className}` : 'cut'} title={text} tabIndex={focusable ? 0 : undefined}>
      {text}
    </span>
  );
}

/** A run's duration from its start to its end (or to now while it runs). */
export function runDuration(started: string, finished: string | undefined, now = Date.now()): string {
  const a = Date.parse(started);
  const b = finished ? Date.parse(finished) : now;
  if (Number.isNaN(a) || Number.isNaN(b)) return '—';
  const ms = Math.max(0, b - a);
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  if (m < 60) return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
