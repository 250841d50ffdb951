// The same app without the kit, to measure what the kit adds to a bundle
// that has @ag-ui/client already: the run's failure shown as its raw text.
import { HttpAgent, randomUUID } from '@ag-ui/client';
import { useState } from 'react';

const say = new URLSearchParams(window.location.search).get('say') ?? 'fail with RATE_LIMITED after 3s';

export default function App() {
  const [agent] = useState(() => new HttpAgent({ url: '/v1/agents/echo/runs', agentId: 'echo' }));
  const [failure, setFailure] = useState('');

  async function run() {
    agent.addMessage({ id: randomUUID(), role: 'user', content: say });
    await agent.runAgent({}, { onRunErrorEvent: ({ event }) => setFailure(event.message) }).catch(() => undefined);
  }

  return (
    <main>
      <h1>A fresh app with @ag-ui/client</h1>
      <button type="button" onClick={() => void run()}>
        Run
      </button>
      {failure !== '' && <p role="alert">{failure}</p>}
    </main>
  );
}
