// Seed 001 on the AG-UI stream: an agent's non-fatal failure (the default
// agent's "warn with CODE") reaches HttpAgent as a CUSTOM "user_error"
// event carrying seed 001's payload, and the run goes on to finish with
// its answer. The same run asked for with Accept: application/x-ndjson is
// seed 001's CAP stream, the notice an `event` packet.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ACME, TIMEOUT, input, newAgent, run, say, startServe, watchConsole } from './helpers.js';

test('triage serve: a user_error notice does not end the run', { timeout: 90_000 }, async (t) => {
  const { base, runURL } = await startServe(t);

  await t.test('HttpAgent: onCustomEvent gets the notice, then the answer and RUN_FINISHED', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo');
    say(agent, 'warn with SERVICE_UNAVAILABLE after 5s');
    const { rec, error } = await run(agent);
    assert.equal(error, undefined, `runAgent rejected: ${error}`);
    assert.deepEqual(rec.types(), [
      'RUN_STARTED', 'STEP_STARTED', 'CUSTOM', 'TEXT_MESSAGE_START',
      ...Array(7).fill('TEXT_MESSAGE_CONTENT'), 'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED',
    ]);
    const { event } = rec.only('onCustomEvent')[0];
    assert.equal(event.name, 'user_error');
    assert.equal(event.value.type, 'user_error');
    assert.match(event.value.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(event.value.data, {
      message: event.value.data.message, code: 503, domain: event.value.data.domain, retryable: true, retry_after: 5,
    });
    assert.ok(event.value.data.message.length > 0);
    assert.equal(rec.text(), 'You said: warn with SERVICE_UNAVAILABLE after 5s');
    con.clean();
  });

  await t.test('CAP: the notice is an event packet, and the stream closes normally', { timeout: TIMEOUT }, async () => {
    const res = await fetch(runURL('echo'), {
      method: 'POST', headers: { ...ACME, 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
      body: JSON.stringify(input('warn with RATE_LIMITED')),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    const packets = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    const ops = packets.map((p) => p.op);
    assert.equal(ops[0], 'event', ops.join(' '));
    assert.equal(packets[0].p.type, 'user_error');
    assert.equal(packets[0].p.data.code, 429);
    assert.equal(packets.map((p) => p.op === 'delta' ? p.p : '').join(''), 'You said: warn with RATE_LIMITED');
    assert.equal(ops.at(-1), 'close', ops.join(' '));
    assert.ok(!ops.includes('error'), ops.join(' '));
  });
});
