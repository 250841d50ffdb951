// A quiet run: an agent that says nothing for longer than the server's
// heartbeat (15s) gets keep-alive comments on its stream, which the
// client ignores, and still ends in a RUN_ERROR the client reports.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { frames, newAgent, run, say, startServe, watchConsole } from './helpers.js';

test('triage serve: a quiet stream is kept alive, and the client ignores the comments', { timeout: 60_000 }, async (t) => {
  const { base } = await startServe(t, ['--prompt-timeout', '16s']);
  const con = watchConsole();
  const agent = newAgent(base);
  say(agent, 'hang');
  const start = Date.now();
  const { rec, error } = await run(agent);
  assert.equal(error, undefined, `${error}`);
  assert.ok(Date.now() - start >= 15_000, `ended after ${Date.now() - start}ms`);
  assert.deepEqual(rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
  const e = rec.only('onRunErrorEvent')[0].event;
  assert.equal(e.code, 'TIMEOUT');
  assert.equal(e.message, 'Prompt timed out after 16s');
  const wire = frames(await agent.wire.text);
  assert.deepEqual(wire.comments, [': keep-alive']);
  assert.deepEqual(wire.events.map((ev) => ev.type), rec.types());
  con.clean();
});
