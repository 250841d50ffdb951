// The client aborting a run (HttpAgent.abortRun) while the agent waits
// ("hang") and while it streams text: the client reports the abort to
// its subscribers, and the Go side stops the run and releases what it held,
// as seen from outside: the run is counted in /metrics as disconnected as
// soon as the client leaves (never as finished, nor as a failed run), and
// with --max-concurrent 1 the next run gets the one slot at once.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TIMEOUT, metric, newAgent, recorder, run, runs, say, startServe, waitFor, watchConsole } from './helpers.js';

const ROUTE = { route: 'POST /v1/agents/{agent_id}/runs', status: '200' };

// stopped waits until the server has counted the aborted run, which it
// does once the run has returned, as disconnected (the client left: not a
// failure of the run's, nor a finished run), and until the request has
// ended (its slot is released before it is counted in
// triage_http_requests_total).
async function stopped(base, before, requestsBefore) {
  const now = await waitFor('the aborted run counted in triage_runs_total', async () => {
    const r = await runs(base);
    return r.disconnected + r.failed + r.finished > before.disconnected + before.failed + before.finished ? r : undefined;
  });
  assert.deepEqual(now, { ...before, disconnected: before.disconnected + 1 },
    'the aborted run was not counted as triage_runs_total{outcome="disconnected"} alone');
  await waitFor('the aborted request ended', async () => (await metric(base, 'triage_http_requests_total', ROUTE)) > requestsBefore);
}

// nextRunGetsTheSlot checks that a run now gets the server's one slot at
// the first try, and answers.
async function nextRunGetsTheSlot(agent, prompt) {
  say(agent, prompt);
  const r = await run(agent);
  assert.equal(r.error, undefined, `the next run was refused: ${r.error}`);
  assert.equal(r.rec.text(), `You said: ${prompt}`);
  assert.equal(r.rec.types().at(-1), 'RUN_FINISHED');
}

// aborted checks what the client reports of a run it aborted: runAgent
// resolves (an abort is not a failure to the client), and its
// subscribers get a RUN_ERROR the client makes up, code "abort", then
// the run is finalized; nothing says it finished or failed.
function aborted(r) {
  assert.equal(r.error, undefined, `runAgent rejected: ${r.error}`);
  const cbs = r.rec.callbacks();
  assert.deepEqual(cbs.filter((c) => /^onRun(Error|Finished)Event$|^onRunFailed$/.test(c)), ['onRunErrorEvent'], cbs.join(' '));
  assert.deepEqual(cbs.slice(-2), ['onRunErrorEvent', 'onRunFinalized']);
  assert.equal(r.rec.only('onRunErrorEvent')[0].event.code, 'abort');
}

test('triage serve: HttpAgent.abortRun stops the run', { timeout: 90_000 }, async (t) => {
  const { base } = await startServe(t, ['--max-concurrent', '1']);

  await t.test('abort while the agent waits ("hang")', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const before = await runs(base);
    const requests = await metric(base, 'triage_http_requests_total', ROUTE);
    const agent = newAgent(base);
    say(agent, 'hang');
    const rec = recorder();
    const running = run(agent, {}, rec);
    await rec.on('onStepStartedEvent');
    agent.abortRun();
    const r = await running;
    aborted(r);
    assert.deepEqual(r.rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
    assert.deepEqual(agent.messages.map((m) => m.role), ['user']);
    // The default --prompt-timeout is 5 minutes: only the abort ends it.
    await stopped(base, before, requests);
    await nextRunGetsTheSlot(agent, 'after the abort');
    con.clean();
  });

  await t.test('abort while the agent streams: the text so far stays', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const before = await runs(base);
    const requests = await metric(base, 'triage_http_requests_total', ROUTE);
    const agent = newAgent(base);
    // 402 chunks, 10ms apart: 4s if it is not stopped.
    const prompt = Array(400).fill('word').join(' ');
    say(agent, prompt);
    const rec = recorder();
    const running = run(agent, {}, rec);
    await rec.on('onTextMessageContentEvent', 3);
    agent.abortRun();
    const r = await running;
    aborted(r);
    const answer = agent.messages.at(-1);
    assert.equal(answer.role, 'assistant');
    assert.equal(answer.id, rec.only('onTextMessageStartEvent')[0].event.messageId);
    assert.ok(answer.content.startsWith('You said: word '), answer.content);
    assert.ok(answer.content.length < `You said: ${prompt}`.length, 'the whole answer arrived');
    assert.equal(answer.content, rec.text());
    // The message was never ended: no onNewMessage, nor a new message in
    // the result.
    assert.deepEqual(rec.only('onNewMessage'), []);
    assert.equal(r.result.newMessages.length, 1);
    await stopped(base, before, requests);
    await nextRunGetsTheSlot(agent, 'still here');
    con.clean();
  });
});
