// A successful run of `triage serve`'s default agent through the official
// HttpAgent: what each subscriber callback receives, the answer assembled
// from the deltas and kept in agent.messages, a second turn of the same
// thread, everything HttpAgent can send in a RunAgentInput, and the API
// keys (none: a 401 problem the client reports through onRunFailed).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  ACME, GLOBEX, TIMEOUT, frames, input, metric, newAgent, post, problemOf, run, say, startServe, watchConsole,
} from './helpers.js';

test('triage serve: POST /v1/agents/echo/runs through HttpAgent', { timeout: 90_000 }, async (t) => {
  const { base, runURL } = await startServe(t);

  await t.test('a run streams the answer, step by step, and finishes', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo', { headers: ACME, threadId: 'thread-1' });
    say(agent, 'hello there');
    const { rec, result, error } = await run(agent, { runId: 'run-1' });
    assert.equal(error, undefined, `runAgent rejected: ${error}`);

    assert.deepEqual(rec.callbacks(), [
      'onRunInitialized',
      'onRunStartedEvent',
      'onStepStartedEvent',
      'onTextMessageStartEvent',
      'onTextMessageContentEvent', 'onTextMessageContentEvent', 'onTextMessageContentEvent', 'onTextMessageContentEvent',
      'onTextMessageEndEvent',
      'onNewMessage',
      'onStepFinishedEvent',
      'onRunFinishedEvent',
      'onRunFinalized',
    ]);
    assert.deepEqual(rec.types(), [
      'RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED',
    ]);

    // The run is the one the client named.
    const started = rec.only('onRunStartedEvent')[0].event;
    assert.equal(started.threadId, 'thread-1');
    assert.equal(started.runId, 'run-1');
    const finished = rec.only('onRunFinishedEvent')[0];
    assert.equal(finished.outcome, 'success');
    assert.equal(finished.event.threadId, 'thread-1');
    assert.equal(finished.event.runId, 'run-1');

    // One step, named after the agent, around the whole answer.
    assert.deepEqual(rec.only('onStepStartedEvent').map((c) => c.event.stepName), ['echo']);
    assert.deepEqual(rec.only('onStepFinishedEvent').map((c) => c.event.stepName), ['echo']);

    // The answer, a word at a time, in one assistant message.
    const deltas = rec.only('onTextMessageContentEvent').map((c) => c.event.delta);
    assert.deepEqual(deltas, ['You ', 'said: ', 'hello ', 'there']);
    // Each callback's buffer is the text before its delta.
    assert.deepEqual(rec.only('onTextMessageContentEvent').map((c) => c.textMessageBuffer), ['', 'You ', 'You said: ', 'You said: hello ']);
    assert.equal(rec.only('onTextMessageEndEvent')[0].textMessageBuffer, 'You said: hello there');
    const start = rec.only('onTextMessageStartEvent')[0].event;
    assert.equal(start.role, 'assistant');
    const ids = new Set(rec.events.filter((e) => e.type.startsWith('TEXT_MESSAGE_')).map((e) => e.messageId));
    assert.deepEqual([...ids], [start.messageId]);

    const answer = { id: start.messageId, role: 'assistant', content: 'You said: hello there' };
    assert.deepEqual(rec.only('onNewMessage')[0].message, answer);
    assert.deepEqual(agent.messages.slice(1), [answer]);
    assert.equal(agent.messages[0].content, 'hello there');
    assert.deepEqual(result.newMessages, [answer]);
    assert.equal(result.result, undefined);

    // Every event has a timestamp, in order.
    const stamps = rec.events.map((e) => e.timestamp);
    assert.ok(stamps.every((s) => Number.isInteger(s) && s > 0), JSON.stringify(stamps));
    assert.deepEqual([...stamps].sort((a, b) => a - b), stamps);

    // On the wire: an event stream whose frames are the events the
    // subscribers saw, RUN_FINISHED last.
    assert.equal(agent.wire.status, 200);
    assert.equal(agent.wire.headers.get('content-type'), 'text/event-stream');
    const wire = frames(await agent.wire.text);
    assert.deepEqual(wire.events.map((e) => e.type), rec.types());
    con.clean();
  });

  await t.test('a second turn continues the thread', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo', { headers: GLOBEX });
    say(agent, 'one');
    const first = await run(agent);
    assert.equal(first.error, undefined, `${first.error}`);
    say(agent, 'two');
    const second = await run(agent);
    assert.equal(second.error, undefined, `${second.error}`);
    assert.equal(second.rec.text(), 'You said: two');
    assert.deepEqual(agent.messages.map((m) => [m.role, m.content]), [
      ['user', 'one'], ['assistant', 'You said: one'], ['user', 'two'], ['assistant', 'You said: two'],
    ]);
    // Two runs of one thread, each with its own answer message.
    const [a, b] = [first, second].map((r) => r.rec.only('onRunStartedEvent')[0].event);
    assert.equal(a.threadId, agent.threadId);
    assert.equal(b.threadId, agent.threadId);
    assert.notEqual(a.runId, b.runId);
    assert.notEqual(agent.messages[1].id, agent.messages[3].id);
    assert.deepEqual(second.result.newMessages.map((m) => m.content), ['You said: two']);
    con.clean();
  });

  await t.test('everything HttpAgent sends is accepted: history, tools, context, state, parts', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo', {
      initialState: { count: 1, items: ['a'] },
      messages: [
        { id: 's1', role: 'system', content: 'Be brief.' },
        { id: 'd1', role: 'developer', content: 'Answer in English.' },
        { id: 'u0', role: 'user', content: 'look it up', name: 'ann' },
        { id: 'a0', role: 'assistant', toolCalls: [{ id: 'tc1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
        { id: 't0', role: 'tool', toolCallId: 'tc1', content: 'found it' },
        { id: 'u1', role: 'user', content: [{ type: 'text', text: 'in ' }, { type: 'text', text: 'parts' }] },
      ],
    });
    const { rec, error } = await run(agent, {
      tools: [{ name: 'lookup', description: 'Looks a thing up.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }],
      context: [{ description: 'The user', value: 'Ann, in Lisbon' }],
      forwardedProps: { ui: { theme: 'dark' } },
    });
    assert.equal(error, undefined, `${error}`);
    // The last user message's text parts, joined, are the prompt.
    assert.equal(rec.text(), 'You said: in parts');
    assert.equal(rec.types().at(-1), 'RUN_FINISHED');
    assert.equal(agent.messages.length, 7);
    assert.deepEqual(agent.state, { count: 1, items: ['a'] });
    con.clean();
  });

  await t.test('text that SSE and JSON must carry exactly: newlines, quotes, non-ASCII', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const prompt = 'line one\n\nline "two"\r\n\tdata: not a frame\u2028 héllo 🌍 \\ </script>';
    const agent = newAgent(base);
    say(agent, prompt);
    const { rec, error } = await run(agent);
    assert.equal(error, undefined, `${error}`);
    assert.equal(rec.text(), `You said: ${prompt}`);
    assert.equal(agent.messages.at(-1).content, `You said: ${prompt}`);
    con.clean();
  });

  await t.test('runs at the same time each get their own answer', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agents = ['alpha beta', 'gamma delta', 'epsilon zeta'].map((p) => {
      const a = newAgent(base);
      say(a, p);
      return [a, p];
    });
    const results = await Promise.all(agents.map(([a]) => run(a)));
    for (const [i, r] of results.entries()) {
      assert.equal(r.error, undefined, `${r.error}`);
      assert.equal(r.rec.text(), `You said: ${agents[i][1]}`);
      assert.equal(r.rec.types().at(-1), 'RUN_FINISHED');
    }
    const ids = new Set(results.map((r) => r.rec.only('onTextMessageStartEvent')[0].event.messageId));
    assert.equal(ids.size, 3);
    con.clean();
  });

  await t.test('the run is counted as finished in /metrics', { timeout: TIMEOUT }, async () => {
    // Eight runs above finished; nothing failed.
    assert.equal(await metric(base, 'triage_runs_total', { agent: 'echo', outcome: 'finished' }), 8);
    assert.equal(await metric(base, 'triage_runs_total', { agent: 'echo', outcome: 'failed' }), 0);
  });

  await t.test('without an API key: a 401 problem, reported through onRunFailed', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo', { headers: {} });
    say(agent, 'hello');
    const { rec, error } = await run(agent);
    assert.ok(error, 'runAgent resolved without a key');
    assert.equal(error.status, 401);
    const p = problemOf(error);
    assert.equal(p.status, 401);
    assert.equal(p.code, 'TENANT_REQUIRED');
    assert.equal(p.instance, '/v1/agents/echo/runs');
    // The client got no event: it failed the run, and said so once.
    assert.deepEqual(rec.callbacks(), ['onRunInitialized', 'onRunFailed', 'onRunFinalized']);
    assert.equal(rec.only('onRunFailed')[0].error, error);
    assert.deepEqual(rec.events, []);
    assert.deepEqual(agent.messages.map((m) => m.role), ['user']);
    assert.equal(agent.wire.headers.get('content-type'), 'application/problem+json');
    assert.equal(agent.wire.headers.get('www-authenticate'), 'Bearer realm="triage"');
    con.clean(1);
  });

  await t.test('a wrong key: a 403 problem; each valid key works', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const bad = newAgent(base, 'echo', { headers: { 'X-API-Key': 'not-a-key-0123456789' } });
    say(bad, 'hello');
    const { error } = await run(bad);
    assert.equal(error?.status, 403, `${error}`);
    assert.equal(problemOf(error).code, 'TENANT_UNAUTHORIZED');

    for (const headers of [ACME, GLOBEX, { Authorization: `Bearer ${ACME['X-API-Key']}` }]) {
      const agent = newAgent(base, 'echo', { headers });
      say(agent, 'with a key');
      const r = await run(agent);
      assert.equal(r.error, undefined, `${JSON.stringify(headers)}: ${r.error}`);
      assert.equal(r.rec.text(), 'You said: with a key');
    }
    // fetch, to see the status line and headers themselves.
    const res = await post(runURL('echo'), JSON.stringify(input('hi')), {});
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.json().code, 'TENANT_REQUIRED');
    con.clean(1);
  });
});
