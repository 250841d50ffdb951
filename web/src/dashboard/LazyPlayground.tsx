// The playground, loaded on demand: Playground.tsx, and @ag-ui/client with
// it, is a chunk of its own (Vite splits the build at the dynamic import),
// fetched when the playground is first shown, so that the other pages'
// first load carries none of it. While it loads the page says so; when it
// cannot be loaded (the service is down or restarting), the page says that,
// and loads it again when the live feed reconnects.
//
// Not React.lazy: a lazy component keeps its first load's failure for good,
// and shows it through an error boundary (which React 19 also logs as a
// console error); this loads again, and says what failed, in the page.

import { useEffect, useState } from 'react';

import { useFeed } from './feed';

// The playground's rules are in the page's stylesheet (a kilobyte), not a
// stylesheet of the chunk's: one the chunk brought would be a <link> that,
// failed once, Vite's preloading never fetches again.
import './Playground.css';

type Module = typeof import('./Playground');

// The module once loaded, for the page's life.
let loaded: Module | null = null;

// The import alone, so that a failure to fetch the chunk's stylesheet,
// which Vite's preloading reports by rejecting the promise it wraps around
// the import, reaches the handlers below: a `.then` written on the import
// itself goes inside that wrapper.
const load = (): Promise<Module> => import('./Playground');

export function Playground({ agentId }: { agentId: string }) {
  const [mod, setMod] = useState<Module | null>(loaded);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (mod) return;
    let live = true;
    load().then(
      (m) => {
        loaded = m;
        if (live) setMod(m);
      },
      (e: unknown) => {
        if (live) setFailure(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [mod, attempt]);
  // The feed (re)connected: the service is back; load it again.
  useFeed((e) => {
    if (e.type !== 'open' || failure === null) return;
    setFailure(null);
    setAttempt((a) => a + 1);
  });
  if (mod) return <mod.Playground agentId={agentId} />;
  return (
    <section aria-labelledby="playground-title" className="playground">
      <h1 id="playground-title">Playground</h1>
      {failure === null ? (
        <p className="muted">Loading the playground…</p>
      ) : (
        <p className="problem" role="alert">
          The playground could not be loaded ({failure}). It is loaded again when the service is back (the header says Live).
        </p>
      )}
    </section>
  );
}
