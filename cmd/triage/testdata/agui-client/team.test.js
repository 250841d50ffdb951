// A team agent (kind: team) is a graph with parallel branches, one per
// member: through HttpAgent, a team's run streams each member's answer as
// a message of its own between the steps of the branches, and a member
// that fails ends the run with its RUN_ERROR while the other branch is
// still streaming. A team's own capacity (maxSessions) refuses a run
// before the stream, as a problem.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ACME, TIMEOUT, agentsFile, frames, newAgent, problemOf, recorder, run, say, startServe, waitFor, watchConsole } from './helpers.js';

const AGENTS = `agents:
  - {id: fast, kind: script, script: {reply: "quick {{prompt}}", delay: 5ms}}
  - {id: slow, kind: script, script: {chunks: ["one ", "two ", "three"], delay: 40ms}}
  - id: limited
    kind: script
    script: {chunks: ["almost ", "there"], delay: 60ms, fail: {code: RATE_LIMITED, after: 1, retryAfter: 4s}}
  - {id: slower, kind: script, script: {delay: 1s}}
  - {id: panel, kind: team, members: [slow, fast], maxSessions: 1}
  - {id: strained, kind: team, members: [slower, limited]}
`;

// steps returns the step names of the events of a type, sorted: the
// branches run in parallel, so their order is the scheduler's.
const steps = (events, type) => events.filter((e) => e.type === type).map((e) => e.stepName).sort();

// texts is the text of each message the client assembled, by id.
function texts(rec) {
  const out = {};
  for (const c of rec.only('onTextMessageEndEvent')) out[c.event.messageId] = c.textMessageBuffer;
  return out;
}

test('triage serve: a team of agents, one parallel branch a member, through HttpAgent', { timeout: 90_000 }, async (t) => {
  const { base } = await startServe(t, ['--agents', agentsFile(t, AGENTS)]);

  await t.test('each member streams its answer in its own message, and the run finishes', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'panel');
    say(agent, 'hi');
    const { rec, result, error } = await run(agent, { runId: 'panel-run-1' });
    assert.equal(error, undefined, `runAgent rejected: ${error}`);
    const events = rec.events;
    assert.equal(events[0].type, 'RUN_STARTED');
    assert.deepEqual(events[1], { ...events[1], type: 'STEP_STARTED', stepName: 'panel' });
    assert.deepEqual(events.at(-2), { ...events.at(-2), type: 'STEP_FINISHED', stepName: 'panel/answer' });
    assert.equal(events.at(-1).type, 'RUN_FINISHED');
    assert.deepEqual(steps(events, 'STEP_STARTED'), ['fast', 'panel', 'panel/answer', 'slow']);
    assert.deepEqual(steps(events, 'STEP_FINISHED'), ['fast', 'panel', 'panel/answer', 'slow']);
    // Both branches were open at once: the fast member finished while
    // the slow one was still streaming.
    const at = (type, name) => events.findIndex((e) => e.type === type && e.stepName === name);
    assert.ok(at('STEP_FINISHED', 'fast') < at('STEP_FINISHED', 'slow'), rec.types().join(' '));
    assert.ok(at('STEP_STARTED', 'slow') < at('STEP_FINISHED', 'fast'), 'the branches ran one after the other');
    assert.deepEqual(texts(rec), { 'msg-panel-run-1-slow': 'one two three', 'msg-panel-run-1-fast': 'quick hi' });
    // The client keeps both answers as assistant messages.
    assert.deepEqual(agent.messages.slice(1).map((m) => [m.role, m.content]).sort(),
      [['assistant', 'one two three'], ['assistant', 'quick hi']]);
    assert.equal(result.newMessages.length, 2);
    con.clean();

    const rec2 = await (await fetch(`${base}/v1/runs/panel-run-1`, { headers: ACME })).json();
    assert.equal(rec2.outcome, 'finished', JSON.stringify(rec2));
    assert.equal(rec2.agent_id, 'panel');
  });

  await t.test('a member failing in its branch ends the run with its RUN_ERROR', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'strained');
    say(agent, 'hi');
    const { rec, result, error } = await run(agent, { runId: 'strained-run-1' });
    assert.equal(error, undefined, `runAgent rejected: ${error}`);
    assert.equal(result.result, undefined);
    const cbs = rec.callbacks();
    assert.deepEqual(cbs.filter((c) => /^onRun(Error|Finished)Event$|^onRunFailed$/.test(c)), ['onRunErrorEvent'], cbs.join(' '));
    assert.equal(rec.types().at(-1), 'RUN_ERROR');
    const wire = frames(await agent.wire.text);
    assert.deepEqual(wire.events.map((e) => e.type), rec.types(), 'the wire and the subscribers differ');
    // The failing member's partial answer stays, its message ended
    // before the error; the other member, cancelled, said nothing.
    assert.deepEqual(texts(rec), { 'msg-strained-run-1-limited': 'almost ' });
    assert.deepEqual(rec.types().slice(-2), ['TEXT_MESSAGE_END', 'RUN_ERROR']);
    assert.deepEqual(steps(rec.events, 'STEP_STARTED'), ['limited', 'slower', 'strained']);
    const { event } = rec.only('onRunErrorEvent')[0];
    assert.equal(event.code, 'RATE_LIMITED');
    assert.equal(event.metadata.retryable, true);
    assert.equal(event.metadata.retry_after, 4);
    assert.equal(event.metadata.http_status, 429);
    assert.equal(event.metadata.details.node, 'limited');
    assert.equal(event.metadata.details.agentId, 'limited');
    con.clean();

    const rec2 = await (await fetch(`${base}/v1/runs/strained-run-1`, { headers: ACME })).json();
    assert.equal(rec2.outcome, 'failed', JSON.stringify(rec2));
    assert.equal(rec2.fault.code, 'RATE_LIMITED', JSON.stringify(rec2));
  });

  await t.test("a run over the team's maxSessions is refused before the stream", { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const holder = newAgent(base, 'panel');
    say(holder, 'hang');
    const held = recorder();
    const holding = run(holder, {}, held);
    await held.on('onStepStartedEvent', 3); // the team's step and both branches'
    try {
      const agent = newAgent(base, 'panel');
      say(agent, 'me too');
      const { rec, error } = await run(agent);
      const p = problemOf(error);
      assert.equal(error.status, 503);
      assert.equal(p.code, 'SERVICE_UNAVAILABLE');
      assert.equal(p.details.agentId, 'panel');
      assert.equal(p.details.maxSessions, 1);
      assert.deepEqual(rec.callbacks().filter((c) => c === 'onRunFailed'), ['onRunFailed']);
    } finally {
      holder.abortRun();
    }
    const r = await holding;
    assert.equal(r.rec.types().includes('RUN_FINISHED'), false);
    // The aborted run gave the team's slot back: the server sees the
    // abort a moment after the client (later still while the store's
    // writer records an earlier run's failure), and each run asked for
    // before is refused as the first one was.
    let refused = 0;
    await waitFor('the slot is free', async () => {
      const agent = newAgent(base, 'panel');
      say(agent, 'again');
      const again = await run(agent);
      if (again.error !== undefined) {
        assert.equal(again.error.status, 503, `${again.error}`);
        refused++;
      }
      return again.error === undefined && again.rec.types().at(-1) === 'RUN_FINISHED';
    });
    con.clean(1 + refused);
  });
});
