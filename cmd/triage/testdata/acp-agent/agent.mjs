// An Agent Client Protocol agent written with the official TypeScript ACP
// SDK (@agentclientprotocol/sdk, pinned in package.json and
// package-lock.json), for Triage's tests: they spawn it as a `kind: acp`
// worker (`command: [node, .../agent.mjs]`), so that the worker pool meets
// an agent nobody here wrote.
//
// It answers session/prompt by echoing "You said: <prompt>" a word at a
// time (agent_message_chunk updates), and honours session/cancel. A prompt
// that starts with one of these words makes it do something else:
//
//   refuse        fail with RequestError("sdk agent refused", -32000)
//   stray         write a line that is not JSON-RPC to standard output,
//                 then echo (as an agent that logs to stdout by mistake)
//   hang          answer nothing until the turn is cancelled, then answer
//                 with the stop reason "cancelled"
//   slow cancel   the same, but take 300 ms to answer the cancellation
//                 (and say so on standard error)
//   stubborn      answer nothing, ever: ignore session/cancel and the end
//                 of standard input (the pool must kill it)
//   exit CODE     end the process with that exit code
//   pid           answer "pid: <the process id>"
//
// and, for the whole process, from the environment:
//
//   SDK_AGENT_REFUSE_INIT=1  initialize fails with RequestError("sdk agent
//                            refused", -32000)
//   SDK_AGENT_BANNER=1       write a banner line that is not JSON-RPC to
//                            standard output before anything else
//   SDK_AGENT_DELAY_MS=N     pause N ms after each chunk (default 1)
//
// It writes a line to standard error for each session/cancel it gets. When
// its standard input ends, the connection closes, it says so on standard
// error and the process exits (unless a stubborn turn holds it).

import { Readable, Writable } from 'node:stream';

import * as acp from '@agentclientprotocol/sdk';

const delay = Number(process.env.SDK_AGENT_DELAY_MS ?? '1');
const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

if (process.env.SDK_AGENT_BANNER === '1') {
  process.stdout.write('sdk agent: starting up (this line is not JSON-RPC)\n');
}

// Each session's running turn, to cancel.
const turns = new Map();
let stubborn = false;

function refused() {
  return new acp.RequestError(-32000, 'sdk agent refused');
}

async function prompt({ params, client }) {
  const text = params.prompt.filter((b) => b.type === 'text').map((b) => b.text).join('');
  const [word, ...rest] = text.trim().split(/\s+/);
  console.error(`sdk agent: turn of ${params.sessionId} begins: ${word}`);
  const abort = new AbortController();
  turns.get(params.sessionId)?.abort();
  turns.set(params.sessionId, abort);
  const say = (chunk) => client.notify(acp.methods.client.session.update, {
    sessionId: params.sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } },
  });
  try {
    switch (word) {
      case 'refuse':
        throw refused();
      case 'stray':
        process.stdout.write(`stray output from the sdk agent: ${text}\n`);
        break;
      case 'hang':
        await new Promise((resolve) => abort.signal.addEventListener('abort', resolve, { once: true }));
        return { stopReason: 'cancelled' };
      case 'slow':
        await new Promise((resolve) => abort.signal.addEventListener('abort', resolve, { once: true }));
        await sleep(300);
        console.error(`sdk agent: answering the cancelled turn of ${params.sessionId}`);
        return { stopReason: 'cancelled' };
      case 'stubborn':
        stubborn = true;
        setInterval(() => {}, 60_000); // keeps the process alive past the end of its input
        return await new Promise(() => {});
      case 'exit':
        process.exit(Number(rest[0] ?? '1'));
        break;
      case 'pid':
        await say(`pid: ${process.pid}`);
        return { stopReason: 'end_turn' };
    }
    const words = `You said: ${text}`.split(/(?<= )/);
    for (const w of words) {
      if (abort.signal.aborted) return { stopReason: 'cancelled' };
      await say(w);
      await sleep(delay, abort.signal);
    }
    return { stopReason: abort.signal.aborted ? 'cancelled' : 'end_turn' };
  } finally {
    if (turns.get(params.sessionId) === abort) turns.delete(params.sessionId);
  }
}

let next = 0;
const conn = acp.agent({ name: 'triage-acp-sdk-agent' })
  .onRequest(acp.methods.agent.initialize, () => {
    if (process.env.SDK_AGENT_REFUSE_INIT === '1') throw refused();
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: 'triage-acp-sdk-agent', version: '1.0.0' },
    };
  })
  .onRequest(acp.methods.agent.authenticate, () => ({}))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `sdk_${process.pid}_${++next}` }))
  .onRequest(acp.methods.agent.session.prompt, prompt)
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    console.error(`sdk agent: session/cancel for ${params.sessionId}${stubborn ? ' (ignored)' : ''}`);
    if (!stubborn) turns.get(params.sessionId)?.abort();
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));

conn.closed.then(() => {
  console.error('sdk agent: input closed');
  if (!stubborn) process.exit(0);
});
