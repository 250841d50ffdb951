// Pages loaded on demand. A page whose code only it needs (the
// playground and @ag-ui/client, the record page and its chart, …) is a
// chunk of its own (Vite splits the build at a dynamic import), fetched
// when the page is first shown, so that the other pages' first load
// carries none of it. While it loads the page says so; when it cannot be
// loaded (the service is down or restarting) the page says that, and loads
// it again when the live feed reconnects.
//
// Not React.lazy: a lazy component keeps its first load's failure for good,
// and shows it through an error boundary (which React 19 also logs as a
// console error); this loads again, and says what failed, in the page.
//
// A chunk's stylesheet is imported by its wrapper (in the page's
// stylesheet), not by the chunk: one the chunk brought would be a <link>
// that, failed once, Vite's preloading never fetches again.

import { useEffect, useState } from 'react';

import { useFeed } from './feed';
import { usePageTitle } from './page';

/** A chunk: its import, and the module once loaded, for the page's life. */
export interface Chunk<M> {
  load: () => Promise<M>;
  loaded: M | null;
}

/**
 * A chunk of load, an import written as `() => import('./Page')`: the
 * import alone, so that a failure to fetch the chunk's stylesheet, which
 * Vite's preloading reports by rejecting the promise it wraps around the
 * import, reaches the handlers of useChunk (a `.then` written on the
 * import itself goes inside that wrapper).
 */
export function chunk<M>(load: () => Promise<M>): Chunk<M> {
  return { load, loaded: null };
}

/** The chunk's module, or null while it loads, and the failure of its last load. */
export function useChunk<M>(c: Chunk<M>): { mod: M | null; failure: string | null } {
  const [mod, setMod] = useState<M | null>(c.loaded);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (mod) return;
    let live = true;
    c.load().then(
      (m) => {
        c.loaded = m;
        if (live) setMod(m);
      },
      (e: unknown) => {
        if (live) setFailure(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [c, mod, attempt]);
  // The feed (re)connected: the service is back; load it again.
  useFeed((e) => {
    if (e.type !== 'open' || failure === null) return;
    setFailure(null);
    setAttempt((a) => a + 1);
  });
  return { mod, failure };
}

/** What a page shows while its chunk loads, or when it could not be loaded: its title (the tab's too) and why it waits. */
export function ChunkPending({ title, titleId, className, what, failure }: {
  title: string;
  titleId: string;
  className?: string;
  /** The page in words: "the playground". */
  what: string;
  failure: string | null;
}) {
  usePageTitle(title);
  return (
    <section aria-labelledby={titleId} className={className}>
      <h1 id={titleId} tabIndex={-1} data-pending="">
        {title}
      </h1>
      {failure === null ? (
        <p className="muted">Loading {what}…</p>
      ) : (
        <p className="problem" role="alert">
          {what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded ({failure}). It is loaded again when the
          service is back (the header says Live).
        </p>
      )}
    </section>
  );
}
