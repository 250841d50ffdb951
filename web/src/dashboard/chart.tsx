// The overview's charts, small SVG of the dashboard's own (no chart
// library: two shapes do not pay for one's weight): the errors list's
// sparkline (Sparkline.tsx) of counts over time, whose label here gives
// its total, its peak and when (describeSeries), and a bar of a rate,
// which stands beside its rate written out, so it is hidden from
// assistive technology.

/** A rate from 0 to 1 as a bar, beside its text (so hidden from assistive technology). */
export function RateBar({ rate }: { rate: number }) {
  const r = Math.min(1, Math.max(0, rate));
  return (
    <svg className="ratebar" aria-hidden="true" viewBox="0 0 100 8" width="100" height="8" preserveAspectRatio="none">
      <rect className="track" x="0" y="0" width="100" height="8" rx="2" />
      {r > 0 && <rect className="fill" x="0" y="0" width={Math.max(2, r * 100)} height="8" rx="2" />}
    </svg>
  );
}

/** A rate as a percentage: "0 %", "0.4 %", "12 %", "100 %". */
export function percent(rate: number): string {
  if (!Number.isFinite(rate)) return '—';
  const p = rate * 100;
  if (p === 0 || p >= 10) return `${Math.round(p)} %`;
  return `${p.toFixed(1)} %`;
}

/**
 * What a sparkline says: "12 occurrences in 24 hours; at most 5 in one
 * hour, from Aug 8, 10:00". since is the first bucket's start.
 */
export function describeSeries(counts: number[], bucket: 'hour' | 'day', since: string, what = 'occurrences'): string {
  const total = counts.reduce((a, b) => a + b, 0);
  const unit = bucket === 'hour' ? 'hour' : 'day';
  const span = `${counts.length} ${unit}${counts.length === 1 ? '' : 's'}`;
  if (total === 0) return `No ${what} in ${span}`;
  let peak = 0;
  counts.forEach((c, i) => {
    if (c > (counts[peak] ?? 0)) peak = i;
  });
  const start = Date.parse(since) + peak * (bucket === 'hour' ? 3600_000 : 86_400_000);
  const when = Number.isNaN(start)
    ? ''
    : `, from ${new Date(start).toLocaleString(undefined, bucket === 'hour' ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' })}`;
  return `${total} ${total === 1 ? what.replace(/s$/, '') : what} in ${span}; at most ${counts[peak]} in one ${unit}${when}`;
}
