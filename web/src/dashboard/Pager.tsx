// The pager of a list read by cursor (the errors, the runs, the sessions):
// newer and older pages, the cursors of the newer ones kept by the list
// (forgotten when its filters change) to go back to.

import type { ReactNode } from 'react';

export function Pager({
  label,
  older,
  cursor,
  next,
  newer,
  setNewer,
  go,
  children,
}: {
  /** The navigation's accessible name. */
  label: string;
  /** What the page says it shows when it was reached by a link, not paged to ("Older runs"). */
  older: string;
  /** The page's cursor ('' for the first page), and the next's (none on the last). */
  cursor: string;
  next: string | undefined;
  /** The cursors of the newer pages, to go back to. */
  newer: string[];
  setNewer: (newer: string[]) => void;
  /** Shows the page at this cursor. */
  go: (cursor: string) => void;
  /** Said after the page's number. */
  children?: ReactNode;
}) {
  if (!cursor && !next) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        disabled={!cursor}
        onClick={() => {
          const prev = newer.at(-1) ?? '';
          setNewer(newer.slice(0, -1));
          go(prev);
        }}
      >
        ← Newer
      </button>
      <span className="muted">
        {cursor && newer.length === 0 ? older : `Page ${newer.length + 1}`}
        {children}
      </span>
      <button
        type="button"
        disabled={!next}
        onClick={() => {
          setNewer([...newer, cursor]);
          if (next) go(next);
        }}
      >
        Older →
      </button>
    </nav>
  );
}
