// The dashboard: a skip link, a header with the pages and the live feed's
// state, the page of the location's hash (the focus moved to its h1 when
// the page changes: see page.tsx), the key prompt, and the toaster the
// kit's toasts appear in.

import { useRef, type MouseEvent } from 'react';

import { Toaster } from '@triage/kit/sonner';
import { AuthProvider, KeyDialog, useAuth } from './auth';
import { ErrorPage } from './LazyErrorPage';
import { ErrorsPage } from './ErrorsPage';
import { FeedProvider, FeedStatus } from './feed';
import { Overview } from './LazyOverview';
import { Playground } from './LazyPlayground';
import { pageKey, usePageFocus, usePageTitle } from './page';
import { useRoute, type Route } from './route';
import { RunPage, RunsPage } from './LazyRuns';
import { SessionPage, SessionsPage } from './LazySessions';

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
  const main = useRef<HTMLElement>(null);
  usePageFocus(pageKey(route), main);
  // The skip link's target is an element, not a route: the hash stays.
  const skip = (e: MouseEvent) => {
    e.preventDefault();
    main.current?.focus();
  };
  return (
    <>
      <a className="skip" href="#main" onClick={skip}>
        Skip to the page
      </a>
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
          <a href="#/sessions" aria-current={route.page === 'sessions' || route.page === 'session' ? 'page' : undefined}>
            Sessions
          </a>
          <a href="#/playground" aria-current={route.page === 'playground' ? 'page' : undefined}>
            Playground
          </a>
        </nav>
        <FeedStatus />
        {auth.refused && (
          <button type="button" className="link" onClick={() => auth.setAsking(true)}>
            Enter API key
          </button>
        )}
        {auth.key && (
          <button type="button" className="link" onClick={auth.forget}>
            Forget API key
          </button>
        )}
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page route={route} />
      </main>
      <KeyDialog fallback={main} />
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
    case 'sessions':
      return <SessionsPage filters={route.filters} cursor={route.cursor} />;
    case 'session':
      return <SessionPage key={route.id} id={route.id} />;
    case 'overview':
      return <Overview range={route.range} />;
    case 'missing':
      return <NotFound hash={route.hash} />;
  }
}

function NotFound({ hash }: { hash: string }) {
  usePageTitle('Not found');
  return (
    <section aria-labelledby="missing-title">
      <h1 id="missing-title" tabIndex={-1}>
        Not found
      </h1>
      <p>
        The dashboard has no page “{hash}”. <a href="#/">See the errors.</a>
      </p>
    </section>
  );
}
