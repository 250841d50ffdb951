// Runs refused before the stream starts, each a problem (RFC 9457,
// application/problem+json) and never an event stream: an input that is
// not a RunAgentInput (sent with fetch, as HttpAgent never would, and
// through HttpAgent with a fetch that spoils its body), a thread with no
// prompt (no user message with text), an unknown agent,
// and a run over the concurrency bound. HttpAgent reports each by
// rejecting runAgent and calling onRunFailed, with no event.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  ACME, GLOBEX, TIMEOUT, input, metric, newAgent, post, problemOf, recorder, run, say, startServe, waitFor, watchConsole,
} from './helpers.js';

// refusedRun checks how HttpAgent reports a run refused with a problem:
// runAgent rejects with the error onRunFailed got, no event reaches the
// subscribers, and the conversation is unchanged. It returns the problem.
function refusedRun(r, agent, status) {
  assert.ok(r.error, 'runAgent resolved');
  assert.equal(r.error.status, status, `${r.error}`);
  assert.deepEqual(r.rec.callbacks(), ['onRunInitialized', 'onRunFailed', 'onRunFinalized']);
  assert.equal(r.rec.only('onRunFailed')[0].error, r.error);
  assert.deepEqual(r.rec.events, []);
  assert.deepEqual(agent.messages.map((m) => m.role), ['user']);
  assert.equal(agent.wire.headers.get('content-type'), 'application/problem+json');
  const p = problemOf(r.error);
  assert.equal(p.status, status);
  return p;
}

test('triage serve: runs refused before the stream', { timeout: 90_000 }, async (t) => {
  const { base, runURL } = await startServe(t);

  await t.test('a body that is not a RunAgentInput: 400, the fields named', { timeout: TIMEOUT }, async () => {
    const cases = [
      [JSON.stringify({ threadId: 't1' }), [['runId', 'is required'], ['messages', 'is required']]],
      ['not json', [['(root)', /^is not valid JSON/]]],
      [JSON.stringify({ ...input('hi'), messages: [{ id: 'm1', role: 'wizard', content: 'hi' }] }), [['messages[0].role', /not "wizard"/]]],
      [JSON.stringify({ ...input('hi'), tools: 'all of them' }), [['tools', /./]]],
    ];
    for (const [body, fields] of cases) {
      const res = await post(runURL('echo'), body);
      assert.equal(res.status, 400, `${body}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const p = res.json();
      assert.equal(p.code, 'INVALID_REQUEST');
      assert.equal(p.retryable, false);
      assert.equal(p.instance, '/v1/agents/echo/runs');
      assert.equal(p.errors.length, fields.length, `${body}: ${res.text}`);
      for (const [i, [field, message]] of fields.entries()) {
        assert.equal(p.errors[i].field, field, res.text);
        if (message instanceof RegExp) assert.match(p.errors[i].message, message);
        else assert.equal(p.errors[i].message, message);
      }
    }
    const plain = await post(runURL('echo'), JSON.stringify(input('hi')), ACME, 'text/plain');
    assert.equal(plain.status, 415, plain.text);
    assert.equal(plain.json().code, 'INVALID_REQUEST');
  });

  await t.test('HttpAgent reports a 400 through onRunFailed', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    // The input HttpAgent sends, with its messages taken out on the way.
    const spoil = (url, init) => {
      const body = JSON.parse(init.body);
      delete body.messages;
      return fetch(url, { ...init, body: JSON.stringify(body) });
    };
    const agent = newAgent(base, 'echo', { fetch: spoil });
    say(agent, 'hello');
    const p = refusedRun(await run(agent), agent, 400);
    assert.equal(p.code, 'INVALID_REQUEST');
    assert.deepEqual(p.errors, [{ field: 'messages', message: 'is required' }]);
    con.clean(1);
  });

  await t.test('no prompt: 422 INVALID_REQUEST, as /mcp refuses an empty prompt', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const cases = [
      [[], []],
      [[{ id: 'a1', role: 'assistant', content: 'Hello, how can I help?' }], ['assistant']],
      [[{ id: 'u1', role: 'user', content: '  ' }], ['user']],
    ];
    for (const [messages, roles] of cases) {
      const agent = newAgent(base, 'echo', { messages });
      const r = await run(agent);
      assert.ok(r.error, `runAgent resolved for ${JSON.stringify(messages)}: ${r.rec.types()}`);
      assert.equal(r.error.status, 422, `${r.error}`);
      assert.deepEqual(r.rec.callbacks(), ['onRunInitialized', 'onRunFailed', 'onRunFinalized']);
      assert.deepEqual(r.rec.events, []);
      assert.deepEqual(agent.messages.map((m) => m.role), roles);
      assert.equal(agent.wire.headers.get('content-type'), 'application/problem+json');
      const p = problemOf(r.error);
      assert.equal(p.code, 'INVALID_REQUEST');
      assert.equal(p.status, 422);
      assert.equal(p.retryable, false);
      assert.deepEqual(p.errors.map((e) => e.field), ['messages']);
    }
    con.clean(cases.length);
  });

  await t.test('an unknown agent: 404 CAPABILITY_NOT_FOUND', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'nobody');
    say(agent, 'hello');
    const p = refusedRun(await run(agent), agent, 404);
    assert.equal(p.code, 'CAPABILITY_NOT_FOUND');
    assert.equal(p.detail, 'Agent not found: nobody');
    assert.equal(p.instance, '/v1/agents/nobody/runs');
    con.clean(1);
  });
});

test('triage serve --max-concurrent 1: a run over the bound is refused', { timeout: 90_000 }, async (t) => {
  const { base, runURL } = await startServe(t, ['--max-concurrent', '1']);
  const con = watchConsole();

  // acme's run holds the one slot for as long as it runs.
  const holder = newAgent(base, 'echo', { headers: ACME });
  say(holder, 'hang');
  const held = recorder();
  const holding = run(holder, {}, held);
  await held.on('onStepStartedEvent');
  try {
    await subtests(t, base, runURL, holder, holding);
  } finally {
    holder.abortRun();
  }
  // The two runs HttpAgent refused logged "Agent execution failed".
  con.clean(2);
});

async function subtests(t, base, runURL, holder, holding) {
  await t.test('another tenant: 503 SERVICE_UNAVAILABLE with Retry-After', { timeout: TIMEOUT }, async () => {
    const agent = newAgent(base, 'echo', { headers: GLOBEX });
    say(agent, 'me too');
    const p = refusedRun(await run(agent), agent, 503);
    assert.equal(p.code, 'SERVICE_UNAVAILABLE');
    assert.equal(p.retryable, true);
    assert.equal(p.retry_after, 1);
    // HttpAgent's error carries the body, not the headers: Retry-After
    // is read with fetch.
    assert.equal(agent.wire.headers.get('retry-after'), '1');
    const res = await post(runURL('echo'), JSON.stringify(input('me too')), GLOBEX);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.json().code, 'SERVICE_UNAVAILABLE');
  });

  await t.test('the same tenant: its own bound (1 here) first, 429 RATE_LIMITED with Retry-After', { timeout: TIMEOUT }, async () => {
    const agent = newAgent(base, 'echo', { headers: ACME });
    say(agent, 'me too');
    const p = refusedRun(await run(agent), agent, 429);
    assert.equal(p.code, 'RATE_LIMITED');
    assert.equal(p.retryable, true);
    assert.equal(p.retry_after, 1);
    assert.equal(p.details.max_in_progress, 1);
    assert.equal(agent.wire.headers.get('retry-after'), '1');
  });

  await t.test('once the slot is free, the run goes through', { timeout: TIMEOUT }, async () => {
    const route = { route: 'POST /v1/agents/{agent_id}/runs', status: '200' };
    const requests = await metric(base, 'triage_http_requests_total', route);
    holder.abortRun();
    const r = await holding;
    assert.equal(r.rec.only('onRunErrorEvent')[0]?.event.code, 'abort');
    // The aborted run's request has ended (and released its slot).
    await waitFor('the aborted request ended', async () => (await metric(base, 'triage_http_requests_total', route)) > requests);
    const agent = newAgent(base, 'echo', { headers: GLOBEX });
    say(agent, 'my turn');
    const { rec, error } = await run(agent);
    assert.equal(error, undefined, `${error}`);
    assert.equal(rec.text(), 'You said: my turn');
    assert.equal(rec.types().at(-1), 'RUN_FINISHED');
  });
}
