// A sparkline: a series of counts as a small inline SVG (an area under a
// line, scaled to the series' peak), with its sum and peak said in words
// for those who do not see it. Drawn by hand: a path of a few dozen
// points needs no chart library.

/** The drawing's size, in CSS pixels. */
const WIDTH = 96;
const HEIGHT = 24;

/** The path of counts across WIDTH × HEIGHT, and its area's. */
export function sparkPaths(counts: readonly number[]): { line: string; area: string } {
  const n = counts.length;
  if (n === 0) return { line: '', area: '' };
  const peak = Math.max(...counts, 1);
  // One point per bucket; a single bucket is a flat line.
  const step = n > 1 ? WIDTH / (n - 1) : 0;
  const pts = counts.map((c, i) => {
    const x = n > 1 ? i * step : 0;
    // The line keeps a pixel off the edges so its stroke shows whole.
    const y = HEIGHT - 1 - (c / peak) * (HEIGHT - 2);
    return `${round(x)},${round(y)}`;
  });
  if (n === 1) pts.push(`${WIDTH},${pts[0]!.split(',')[1]}`);
  const line = `M${pts.join('L')}`;
  const area = `${line}L${WIDTH},${HEIGHT}L0,${HEIGHT}Z`;
  return { line, area };
}

function round(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/**
 * A series as a sparkline: range says what it covers ("the last 24
 * hours"), per its buckets (hour, day); label, when given, is what it says
 * instead (the overview's, which names the peak's time).
 */
export function Sparkline({ counts, range, per, label }: { counts: readonly number[] | undefined; range: string; per: string; label?: string }) {
  if (!counts) return <span className="spark spark-none" aria-hidden="true" />;
  const total = counts.reduce((a, b) => a + b, 0);
  const peak = Math.max(0, ...counts);
  const { line, area } = sparkPaths(counts);
  const text = label ?? `${total} in ${range}${total > 0 ? `, at most ${peak} in a${per === 'hour' ? 'n' : ''} ${per}` : ''}`;
  return (
    <svg
      className="spark"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={text}
      data-total={total}
    >
      <title>{text}</title>
      <path className="spark-area" d={area} />
      <path className="spark-line" d={line} />
    </svg>
  );
}
