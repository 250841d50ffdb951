// triage serve stopped with SIGTERM while HttpAgent runs are in progress
// (agents that would wait for minutes, "hang"): every run ends at once
// with a RUN_ERROR the client accepts, SERVICE_UNAVAILABLE, retryable,
// with a retry delay, and the thread may go on (session_valid); serve
// exits 0 well within its 25s shutdown deadline.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GLOBEX, frames, newAgent, recorder, run, say, startServe, watchConsole } from './helpers.js';

test('triage serve: SIGTERM ends the runs in progress with RUN_ERROR', { timeout: 90_000 }, async (t) => {
  const { base, terminate, stderr } = await startServe(t);
  const con = watchConsole();

  // Three runs of two tenants, each waiting on its agent.
  const runs = [];
  for (const headers of [undefined, undefined, GLOBEX]) {
    const agent = newAgent(base, 'echo', headers ? { headers } : {});
    say(agent, 'hang');
    const rec = recorder();
    runs.push({ agent, rec, running: run(agent, {}, rec) });
  }
  await Promise.all(runs.map((r) => r.rec.on('onStepStartedEvent')));

  const { exit, ms } = await terminate();
  assert.notEqual(exit, null, `triage serve did not exit within 30s of SIGTERM:\n${stderr()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, stderr());
  assert.ok(ms < 10_000, `triage serve took ${ms}ms to exit`);
  assert.doesNotMatch(stderr(), /deadline exceeded/);
  console.log(`# serve exited ${ms}ms after SIGTERM with ${runs.length} runs in progress`);

  for (const { agent, rec, running } of runs) {
    const r = await running;
    // A RUN_ERROR is not a rejection: runAgent resolves.
    assert.equal(r.error, undefined, `runAgent rejected: ${r.error}`);
    assert.deepEqual(rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
    const cbs = rec.callbacks();
    assert.deepEqual(cbs.filter((c) => /^onRun(Error|Finished)Event$|^onRunFailed$/.test(c)), ['onRunErrorEvent'], cbs.join(' '));
    assert.deepEqual(cbs.slice(-2), ['onRunErrorEvent', 'onRunFinalized']);
    const { event } = rec.only('onRunErrorEvent')[0];
    assert.equal(event.code, 'SERVICE_UNAVAILABLE');
    assert.equal(event.message, 'The service is shutting down. Please retry in a moment.');
    assert.equal(event.metadata.http_status, 503);
    assert.equal(event.metadata.retryable, true);
    assert.equal(event.metadata.retry_after, 5);
    assert.equal(event.metadata.session_valid, true);
    assert.equal(event.metadata.details.reason, 'shutting_down');
    // RUN_ERROR is the last frame on the wire, and the stream ends after it.
    const text = await agent.wire.text;
    assert.deepEqual(frames(text).events.map((e) => e.type), rec.types());
    assert.match(text, /\n\n$/);
    assert.deepEqual(agent.messages.map((m) => m.role), ['user']);
  }
  con.clean();
});
