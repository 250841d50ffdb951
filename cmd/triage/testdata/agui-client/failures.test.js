// Runs that fail once the stream has started, through HttpAgent: before
// any text (the default agent's "fail with CODE", "fail", a prompt past
// --prompt-timeout) and after some (a script agent that streams two chunks
// and fails). The client must get the code and its facets in
// onRunErrorEvent, keep the text already streamed, see nothing after
// RUN_ERROR, and not report success.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TIMEOUT, agentsFile, frames, metric, newAgent, run, say, startServe, watchConsole } from './helpers.js';

const AGENTS = `agents:
  - id: echo
    kind: script
    script: {delay: 10ms}
  - id: half
    kind: script
    description: Streams half an answer, then fails.
    script: {chunks: ["Half ", "an ", "answer"], delay: 10ms, fail: {code: UPSTREAM_ERROR, after: 2}}
`;

// failedRun runs prompt on agentId and checks what every failed run must
// show: the client resolved runAgent (a RUN_ERROR is not a rejection)
// without a result, called onRunErrorEvent once and neither
// onRunFinishedEvent nor onRunFailed, RUN_ERROR was the last event the
// subscribers saw and the last frame on the wire, and the client's
// verifier and enforcement said nothing. It returns the RUN_ERROR and the
// run.
async function failedRun(base, agentId, prompt) {
  const con = watchConsole();
  const agent = newAgent(base, agentId);
  say(agent, prompt);
  const r = await run(agent);
  assert.equal(r.error, undefined, `runAgent rejected: ${r.error}`);
  assert.equal(r.result.result, undefined);
  const cbs = r.rec.callbacks();
  assert.deepEqual(cbs.filter((c) => /^onRun(Error|Finished)Event$|^onRunFailed$/.test(c)), ['onRunErrorEvent'], cbs.join(' '));
  assert.deepEqual(cbs.slice(-2), ['onRunErrorEvent', 'onRunFinalized']);
  assert.equal(r.rec.types().at(-1), 'RUN_ERROR');
  const wire = frames(await agent.wire.text);
  assert.deepEqual(wire.events.map((e) => e.type), r.rec.types(), 'the wire and the subscribers differ');
  assert.match(await agent.wire.text, /\n\n$/, 'the stream does not end after its last frame');
  con.clean();
  const event = r.rec.only('onRunErrorEvent')[0].event;
  assert.equal(typeof event.message, 'string');
  assert.ok(event.message.length > 0);
  assert.equal(typeof event.metadata, 'object');
  return { event, agent, ...r };
}

test('triage serve: runs that fail, through HttpAgent', { timeout: 90_000 }, async (t) => {
  const { base } = await startServe(t, ['--agents', agentsFile(t, AGENTS), '--prompt-timeout', '1s']);

  await t.test('failing before any text: "fail with TIMEOUT"', { timeout: TIMEOUT }, async () => {
    const { event, agent, rec, result } = await failedRun(base, 'echo', 'fail with TIMEOUT');
    assert.deepEqual(rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
    assert.equal(event.code, 'TIMEOUT');
    assert.equal(event.message, 'Request timed out. Please try again.');
    assert.equal(event.metadata.category, 'TIMEOUT');
    assert.equal(event.metadata.retryable, true);
    assert.equal(event.metadata.retry_after, 2); // the scripted default
    // The thread goes on (TIMEOUT's default), though the agent session the
    // run opened is closed.
    assert.equal(event.metadata.session_valid, true);
    assert.equal(event.metadata.debug, undefined, 'debug details without --debug');
    assert.equal(event.metadata.details.node, 'echo');
    // No answer: the conversation is the question alone.
    assert.deepEqual(agent.messages.map((m) => m.role), ['user']);
    assert.deepEqual(result.newMessages, []);
    // The thread goes on: the next run of the same agent answers.
    say(agent, 'hello again');
    const again = await run(agent);
    assert.equal(again.error, undefined, `${again.error}`);
    assert.equal(again.rec.text(), 'You said: hello again');
    assert.equal(again.rec.types().at(-1), 'RUN_FINISHED');
  });

  await t.test('a rate-limited run: retry_after reaches onRunErrorEvent', { timeout: TIMEOUT }, async () => {
    const { event } = await failedRun(base, 'echo', 'fail with RATE_LIMITED after 7s');
    assert.equal(event.code, 'RATE_LIMITED');
    assert.equal(event.metadata.retryable, true);
    assert.equal(event.metadata.retry_after, 7);
    assert.equal(event.metadata.http_status, 429);
    assert.equal(event.metadata.session_valid, true);
  });

  await t.test("session_valid is the code's: whether the thread can go on", { timeout: TIMEOUT }, async () => {
    // Each run's agent session is closed after it; the thread is not.
    for (const [code, valid] of [['SERVICE_UNAVAILABLE', true], ['SESSION_NOT_FOUND', false], ['INTERNAL_ERROR', false]]) {
      const { event } = await failedRun(base, 'echo', `fail with ${code}`);
      assert.equal(event.code, code);
      assert.equal(event.metadata.session_valid, valid, code);
    }
  });

  await t.test('"fail": an UPSTREAM_ERROR, not retryable, its cause kept back', { timeout: TIMEOUT }, async () => {
    const { event } = await failedRun(base, 'echo', 'fail');
    assert.equal(event.code, 'UPSTREAM_ERROR');
    assert.equal(event.message, 'Agent echo failed');
    assert.equal(event.metadata.retryable, false);
    assert.equal(event.metadata.retry_after, undefined);
    assert.equal(event.metadata.debug, undefined, 'debug details without --debug');
    assert.equal(event.metadata.details.error_type, undefined, 'debug details without --debug');
    assert.ok(!JSON.stringify(event).includes('scripted failure'), `the cause reached the client: ${JSON.stringify(event)}`);
  });

  await t.test('failing after text: the text stays, its message is ended first', { timeout: TIMEOUT }, async () => {
    const { event, agent, rec, result } = await failedRun(base, 'half', 'anything');
    assert.deepEqual(rec.types(), [
      'RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR',
    ]);
    assert.equal(rec.text(), 'Half an ');
    assert.equal(rec.only('onTextMessageEndEvent')[0].textMessageBuffer, 'Half an ');
    assert.equal(event.code, 'UPSTREAM_ERROR');
    assert.equal(event.metadata.retryable, false);
    assert.equal(event.metadata.details.node, 'half');
    // The partial answer is the assistant's message, kept by the client.
    const id = rec.only('onTextMessageStartEvent')[0].event.messageId;
    const partial = { id, role: 'assistant', content: 'Half an ' };
    assert.deepEqual(agent.messages.slice(1), [partial]);
    assert.deepEqual(rec.only('onNewMessage').map((c) => c.message), [partial]);
    assert.deepEqual(result.newMessages, [partial]);
  });

  await t.test('a prompt past --prompt-timeout ends in a TIMEOUT', { timeout: TIMEOUT }, async () => {
    const start = Date.now();
    const { event, rec } = await failedRun(base, 'echo', 'hang');
    assert.ok(Date.now() - start < 10_000, `took ${Date.now() - start}ms`);
    assert.deepEqual(rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
    assert.equal(event.code, 'TIMEOUT');
    assert.equal(event.metadata.retryable, true);
  });

  await t.test('/metrics counts the failed runs by code', { timeout: TIMEOUT }, async () => {
    const failed = (agent, code) => metric(base, 'triage_runs_total', { agent, outcome: 'failed', code });
    assert.equal(await failed('echo', 'TIMEOUT'), 2);
    assert.equal(await failed('echo', 'RATE_LIMITED'), 1);
    assert.equal(await failed('echo', 'UPSTREAM_ERROR'), 1);
    assert.equal(await failed('half', 'UPSTREAM_ERROR'), 1);
    assert.equal(await metric(base, 'triage_runs_total', { agent: 'half', outcome: 'finished' }), 0);
    assert.equal(await metric(base, 'triage_runs_total', { agent: 'echo', outcome: 'finished' }), 1); // "hello again"
  });
});

test('triage serve --debug: RUN_ERROR metadata carries the debug details', { timeout: 60_000 }, async (t) => {
  const { base } = await startServe(t, ['--debug']);
  const { event } = await failedRun(base, 'echo', 'fail');
  assert.equal(event.code, 'UPSTREAM_ERROR');
  assert.equal(typeof event.metadata.debug, 'object', JSON.stringify(event.metadata));
  assert.equal(event.metadata.debug.cause, 'scripted failure');
});
