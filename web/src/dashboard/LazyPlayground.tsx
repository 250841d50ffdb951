// The playground, loaded on demand: Playground.tsx, and @ag-ui/client with
// it, is a chunk of its own (Vite splits the build at the dynamic import),
// fetched when the playground is first shown, so that the other pages'
// first load carries none of it. While it loads the page says so; when it
// cannot be loaded (the service is down or restarting), the page says that,
// and loads it again when the live feed reconnects.

import { Component, lazy, Suspense, useState, type ReactNode } from 'react';

import { useFeed } from './feed';

/** The failure to fetch the chunk, told from an error the playground throws. */
class LoadError extends Error {}

const load = () =>
  import('./Playground').then(
    (m) => ({ default: m.Playground }),
    (e: unknown) => {
      throw new LoadError(e instanceof Error ? e.message : String(e));
    },
  );

// One lazy component for the page's life, replaced only after a failed
// load (React.lazy keeps its first promise's outcome).
let Loaded = lazy(load);

export function Playground({ agentId }: { agentId: string }) {
  const [failure, setFailure] = useState<Error | null>(null);
  const [attempt, setAttempt] = useState(0);
  useFeed((e) => {
    if (e.type !== 'open' || failure === null) return;
    Loaded = lazy(load);
    setFailure(null);
    setAttempt((a) => a + 1);
  });
  if (failure) {
    return (
      <section aria-labelledby="playground-title" className="playground">
        <h1 id="playground-title">Playground</h1>
        <p className="problem" role="alert">
          The playground could not be loaded: {failure.message}. It is loaded again when the service is back (the header says Live).
        </p>
      </section>
    );
  }
  return (
    <LoadFailure key={attempt} onFailure={setFailure}>
      <Suspense fallback={<p className="muted">Loading the playground…</p>}>
        <Loaded agentId={agentId} />
      </Suspense>
    </LoadFailure>
  );
}

/**
 * Catches the failure to load the chunk (React has error boundaries as
 * classes only); any other error goes on up, as it would without it.
 */
class LoadFailure extends Component<{ onFailure: (e: Error) => void; children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override componentDidCatch(error: unknown) {
    if (error instanceof LoadError) this.props.onFailure(error);
  }
  override render() {
    if (this.state.error === null) return this.props.children;
    if (this.state.error instanceof LoadError) return null;
    throw this.state.error;
  }
}
