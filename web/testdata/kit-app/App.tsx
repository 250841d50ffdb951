// The App of a fresh create-vite React + TypeScript app that installed the
// @triage/kit tarball: it runs triage serve's echo agent through
// @ag-ui/client's HttpAgent and shows the run's failure with the kit, no
// toast library, only the kit's own CSS; and reports each failed run with
// reportFailure (src/report.ts: report-client.ts, @triage/client's
// TriageClient from the browser; report-none.ts while the kit's bundle
// cost is measured). It replaces the template's
// src/App.tsx (main.tsx, the tsconfigs and vite.config.ts stay the
// template's). The agent is on the page's own origin: the test serves the
// build and passes /v1 to triage serve.
import { HttpAgent, randomUUID } from '@ag-ui/client';
import { AGUIErrorAlert, useAGUIErrorHandler } from '@triage/kit';
import '@triage/kit/styles.css';
import { useEffect, useState } from 'react';

import { reportFailure } from './report.ts';

/** What the user asks the agent: ?say=…, or a failure the echo agent makes up. */
const say = new URLSearchParams(window.location.search).get('say') ?? 'fail with RATE_LIMITED after 3s';

export default function App() {
  const [agent] = useState(() => new HttpAgent({ url: '/v1/agents/echo/runs', agentId: 'echo' }));
  const [answer, setAnswer] = useState('');
  const [runs, setRuns] = useState(0);
  const [reported, setReported] = useState('');
  const errors = useAGUIErrorHandler({ onRetry: () => run() });

  useEffect(() => {
    const s = agent.subscribe({
      onRunErrorEvent: ({ event }) => {
        void reportFailure(event.message, event.code ?? '').then((id) => setReported(id ?? ''));
      },
    });
    return () => s.unsubscribe();
  }, [agent]);

  async function run() {
    setRuns((n) => n + 1);
    agent.addMessage({ id: randomUUID(), role: 'user', content: say });
    const result = await agent.runAgent({}, errors.subscriber).catch(() => undefined);
    const last = result?.newMessages.at(-1);
    if (last?.role === 'assistant' && typeof last.content === 'string') setAnswer(last.content);
  }

  return (
    <main>
      <h1>Triage kit in a fresh app</h1>
      <button type="button" onClick={() => void run()}>
        Run
      </button>
      <p data-testid="runs">{runs}</p>
      {answer !== '' && <p data-testid="answer">{answer}</p>}
      <AGUIErrorAlert handler={errors} />
      {reported !== '' && <p data-testid="reported">{reported}</p>}
    </main>
  );
}
