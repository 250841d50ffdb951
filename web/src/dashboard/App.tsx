// The dashboard: a header with the pages and the live feed's state, the
// page of the location's hash, the key prompt, and the toaster the kit's
// toasts appear in.

import { Toaster } from '../kit';
import { AuthProvider, KeyDialog, useAuth } from './auth';
import { ErrorPage } from './ErrorPage';
import { ErrorsPage } from './ErrorsPage';
import { FeedProvider, FeedStatus } from './feed';
import { Overview } from './Overview';
import { Playground } from './Playground';
import { useRoute, type Route } from './route';
import { RunPage } from './Run';
import { RunsPage } from './Runs';

export function App() {
  return (
    <AuthProvider>
      <FeedProvider>
        <Shell />
      </FeedProvider>
    </AuthProvider>
  );
}

function Shell() {
  const route = useRoute();
  const auth = useAuth();
  return (
    <>
      <header className="top">
        <a className="brand" href="#/">
          Triage
        </a>
        <nav aria-label="Pages">
          <a href="#/" aria-current={route.page === 'errors' || route.page === 'error' ? 'page' : undefined}>
            Errors
          </a>
          <a href="#/overview" aria-current={route.page === 'overview' ? 'page' : undefined}>
            Overview
          </a>
          <a href="#/runs" aria-current={route.page === 'runs' || route.page === 'run' ? 'page' : undefined}>
            Runs
          </a>
          <a href="#/playground" aria-current={route.page === 'playground' ? 'page' : undefined}>
            Playground
          </a>
        </nav>
        <FeedStatus />
        {auth.key && (
          <button type="button" className="link" onClick={auth.forget}>
            Forget API key
          </button>
        )}
      </header>
      <main>
        <Page route={route} />
      </main>
      <KeyDialog />
      <Toaster position="bottom-right" closeButton />
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'errors':
      return <ErrorsPage filters={route.filters} cursor={route.cursor} />;
    case 'error':
      return <ErrorPage key={route.id} id={route.id} />;
    case 'playground':
      return <Playground agentId={route.agent} />;
    case 'runs':
      return <RunsPage filters={route.filters} cursor={route.cursor} />;
    case 'run':
      return <RunPage key={route.id} id={route.id} />;
    case 'overview':
      return <Overview range={route.range} />;
    case 'missing':
      return (
        <section>
          <h1>Not found</h1>
          <p>
            The dashboard has no page “{route.hash}”. <a href="#/">See the errors.</a>
          </p>
        </section>
      );
  }
}
