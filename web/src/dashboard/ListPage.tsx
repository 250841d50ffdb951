// A page that lists runs or MCP sessions (Runs.tsx, Sessions.tsx), the
// latest first: its title with the list's loading, its filters, a table of
// columns on a wide window and cards on a narrow one (each cell labelled
// with its column), and pagination by cursor, the cursors of the newer
// pages kept to go back to and forgotten when the filters change.
// ListPage.css is in the page's stylesheet (LazyRuns.tsx, LazySessions.tsx).

import { useEffect, useState, type ReactNode } from 'react';

import { Failure } from './format';
import { Pager } from './Pager';
import type { JSONState } from './useJSON';

/** A column of the list's table. */
export interface Column<T> {
  /** The column's heading, and its cells' label on a narrow window. */
  label: string;
  /**
   * The heading's class: its width, one of ListPage.css's (col-id for the
   * row's id, col-outcome, col-duration, col-started) or the page's own.
   */
  col?: string;
  /** A column of numbers, aligned to the right. */
  num?: boolean;
  /** The cells' class (id for the row's id, its link a block). */
  className?: string;
  cell: (row: T) => ReactNode;
}

/** The paging of a list: see usePaging. */
export interface Paging {
  /** When the filters were chosen: a query's since is from then. */
  asOf: number;
  /** The cursors of the newer pages, to go back to. */
  newer: string[];
  setNewer: (newer: string[]) => void;
}

/** The list's paging, begun again (at the first page, since from now) when the filters change. */
export function usePaging(filters: object): Paging {
  const [asOf, setAsOf] = useState(() => Date.now());
  const [newer, setNewer] = useState<string[]>([]);
  const filterKey = JSON.stringify(filters);
  const [shownFilters, setShownFilters] = useState(filterKey);
  if (shownFilters !== filterKey) {
    setShownFilters(filterKey);
    setNewer([]);
    setAsOf(Date.now());
  }
  return { asOf, newer, setNewer };
}

/** The time now, moved on every `every` ms (the list's "ago"s and running durations). */
export function useNow(every: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), every);
    return () => clearInterval(t);
  }, [every]);
  return now;
}

export function ListPage<T>({
  name,
  title,
  titleId,
  list,
  filters,
  empty,
  caption,
  columns,
  rows,
  rowKey,
  rowData,
  paging,
  cursor,
  next,
  go,
}: {
  /** What is listed, plural ("runs"): the table's class and the pager's words. */
  name: string;
  title: ReactNode;
  titleId: string;
  /** The page's request: its loading and failure are shown. */
  list: Pick<JSONState<unknown>, 'data' | 'error' | 'loading'>;
  /** The form of the filters. */
  filters: ReactNode;
  /** What an answer with no rows says. */
  empty: string;
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** The row's data-* attributes, for its tests. */
  rowData: (row: T) => Record<`data-${string}`, string>;
  paging: Paging;
  /** The page's cursor ('' for the first page), and the next's (none on the last). */
  cursor: string;
  next: string | undefined;
  /** Shows the page at this cursor. */
  go: (cursor: string) => void;
}) {
  const { newer, setNewer } = paging;
  return (
    <section aria-labelledby={titleId}>
      <div className="title-row">
        <h1 id={titleId} tabIndex={-1}>
          {title}
        </h1>
        {list.loading && <span className="muted">Loading…</span>}
      </div>
      {filters}
      {list.error && <Failure error={list.error} />}
      {list.data !== undefined && rows.length === 0 && <p className="empty">{empty}</p>}
      {rows.length > 0 && (
        <table className={`list-table ${name}`}>
          <caption className="muted small">{caption}</caption>
          <thead className="vh">
            <tr>
              {columns.map((c) => (
                <th key={c.label} scope="col" className={[c.col, c.num && 'num'].filter((v) => v).join(' ') || undefined}>
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={rowKey(r)} {...rowData(r)}>
                {columns.map((c) => (
                  <td key={c.label} data-label={c.label} className={[c.className, c.num && 'num'].filter((v) => v).join(' ') || undefined}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager label={`Pages of ${name}`} older={`Older ${name}`} cursor={cursor} next={next} newer={newer} setNewer={setNewer} go={go} />
    </section>
  );
}
