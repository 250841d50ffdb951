// A prompt that is running, stopped by the tools or by the client: cancel
// racing a "hang" prompt, close while running, the client's own abort
// (notifications/cancelled), and the concurrency limit a hanging prompt
// fills; as bridge/failure_test.go's TestCancelAndClose and TestOverloaded.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TIMEOUT, connectStdio, expectFailure, fails, ok, waitState } from './helpers.js';

test('sessions_cancel stops a running prompt, and the session takes new prompts', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'echo' });

  const hanging = fails(client, 'sessions_prompt', { sessionId: id, prompt: 'hang' });
  await waitState(client, id, 'running');
  // A second prompt while the first runs is refused, and retryable.
  const busy = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'me too' });
  expectFailure(busy.error, { type: 'UPSTREAM', code: 'SESSION_BUSY', retryable: true, sessionValid: true, recovery: 'sessions_cancel' });

  const c = await ok(client, 'sessions_cancel', { sessionId: id });
  assert.equal(c.cancelled, true);
  assert.equal(c.sessionId, id);

  const { error, text } = await hanging;
  expectFailure(error, { type: 'TRANSPORT', code: 'CANCELLED', sessionValid: true, retryable: error.retryable, recovery: 'sessions_prompt' });
  assert.ok(text.startsWith('Failed to submit prompt to '), text);
  await waitState(client, id, 'cancelled');

  // Cancelling with nothing running says so and changes nothing.
  const again = await ok(client, 'sessions_cancel', { sessionId: id });
  assert.equal(again.cancelled, false);

  const p = await ok(client, 'sessions_prompt', { sessionId: id, prompt: 'again' });
  assert.equal(p.text, 'You said: again');
  assert.equal(p.state, 'idle');
});

test('sessions_close while a prompt runs ends the prompt and the session', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'echo' });

  const hanging = fails(client, 'sessions_prompt', { sessionId: id, prompt: 'hang' });
  await waitState(client, id, 'running');
  assert.deepEqual(await ok(client, 'sessions_close', { sessionId: id }), { sessionId: id, closed: true });

  const { error } = await hanging;
  expectFailure(error, { type: 'TRANSPORT', code: 'CANCELLED', sessionValid: false, retryable: error.retryable });

  const closed = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'x' });
  expectFailure(closed.error, {
    type: 'UPSTREAM', code: 'SESSION_NOT_FOUND', retryable: false, sessionValid: false,
    message: `Session ${id} is closed`, recovery: 'sessions_create',
  });
  // The closed session is still known: its status says closed, and
  // cancelling it stops nothing.
  assert.equal((await ok(client, 'sessions_status', { sessionId: id })).state, 'closed');
  assert.deepEqual(await ok(client, 'sessions_cancel', { sessionId: id }), { sessionId: id, cancelled: false, state: 'closed' });
  assert.equal((await ok(client, 'bridge_health', {})).sessions, 0);
});

test("the client's own abort (notifications/cancelled) stops the prompt", { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'echo' });

  const ac = new AbortController();
  const hanging = client.callTool({ name: 'sessions_prompt', arguments: { sessionId: id, prompt: 'hang' } }, undefined, { signal: ac.signal });
  await waitState(client, id, 'running');
  ac.abort(new Error('the user gave up'));
  await assert.rejects(hanging, /the user gave up/);

  // The bridge hears the cancellation and the session is free again.
  const deadline = Date.now() + 5_000;
  let st;
  do {
    st = await ok(client, 'sessions_status', { sessionId: id });
    if (st.state !== 'running') break;
    await new Promise((r) => setTimeout(r, 10));
  } while (Date.now() < deadline);
  assert.equal(st.state, 'cancelled', 'the prompt still runs after the client cancelled it');
  const p = await ok(client, 'sessions_prompt', { sessionId: id, prompt: 'after abort' });
  assert.equal(p.text, 'You said: after abort');
});

test('--max-concurrent 1: a hanging prompt fills the bridge; health and close still work', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t, ['--max-concurrent', '1']);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'echo' });

  const hanging = fails(client, 'sessions_prompt', { sessionId: id, prompt: 'hang' });
  // sessions_status waits for a slot like any call: once it is refused,
  // the prompt holds the one slot.
  const deadline = Date.now() + 5_000;
  for (;;) {
    const res = await client.callTool({ name: 'sessions_status', arguments: { sessionId: id } });
    if (res.isError) break;
    assert.ok(Date.now() < deadline, 'the prompt never took the slot');
    await new Promise((r) => setTimeout(r, 5));
  }
  const { error, text } = await fails(client, 'agents_discover', {});
  expectFailure(error, {
    type: 'TRANSPORT', code: 'SERVICE_UNAVAILABLE', retryable: true, sessionValid: true,
    message: 'Server overloaded', recovery: 'agents_discover',
  });
  assert.equal(error.retryAfter, 1);
  assert.ok(text.includes('(TRANSPORT, retryable after 1s, session still valid)'), text);

  const h = await ok(client, 'bridge_health', {});
  assert.equal(h.inFlight, 1);
  assert.equal(h.maxConcurrent, 1);
  assert.equal((await ok(client, 'sessions_close', { sessionId: id })).closed, true);
  assert.equal((await hanging).error.code, 'CANCELLED');
  // The slot is free again.
  assert.ok(Array.isArray((await ok(client, 'agents_discover', {})).agents));
});
