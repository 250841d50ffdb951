// An agent calling a frontend tool, through HttpAgent: the default agent's
// `call NAME {json}` streams a call to a tool the frontend offered
// (TOOL_CALL_START, _ARGS, _END), which the client keeps as the assistant
// message's toolCalls; `… then fail with CODE` ends the run while the
// call's arguments are incomplete, and the call is left open, so that no
// client runs a tool on half its arguments.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TIMEOUT, frames, newAgent, run, say, startServe, watchConsole } from './helpers.js';

const TOOLS = [{
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}];

test('triage serve: an agent calls a frontend tool, through HttpAgent', { timeout: 90_000 }, async (t) => {
  const { base } = await startServe(t);

  await t.test('the call streams, and the client keeps it in the assistant message', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo');
    say(agent, 'call get_weather {"city":"Paris"}');
    const { rec, result, error } = await run(agent, { runId: 'tool-run-1', tools: TOOLS });
    assert.equal(error, undefined, `runAgent rejected: ${error}`);
    assert.deepEqual(rec.types(), [
      'RUN_STARTED', 'STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'STEP_FINISHED', 'RUN_FINISHED',
    ]);
    const end = rec.only('onToolCallEndEvent')[0];
    const start = rec.only('onToolCallStartEvent')[0].event;
    assert.equal(start.toolCallName, 'get_weather');
    assert.equal(start.parentMessageId, 'msg-tool-run-1');
    assert.equal(end.event.toolCallId, start.toolCallId);
    const message = agent.messages.at(-1);
    assert.equal(message.role, 'assistant');
    assert.equal(message.id, 'msg-tool-run-1');
    assert.deepEqual(message.toolCalls, [{
      id: start.toolCallId, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    }]);
    assert.deepEqual(result.newMessages, [message]);
    con.clean();
  });

  await t.test('a failure mid-call: RUN_ERROR with the call left open', { timeout: TIMEOUT }, async () => {
    const con = watchConsole();
    const agent = newAgent(base, 'echo');
    say(agent, 'call get_weather {"city":"Paris"} then fail with UPSTREAM_ERROR');
    const { rec, error } = await run(agent, { tools: TOOLS });
    assert.equal(error, undefined, `runAgent rejected: ${error}`);
    assert.deepEqual(rec.types(), ['RUN_STARTED', 'STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'RUN_ERROR']);
    assert.deepEqual(frames(await agent.wire.text).events.map((e) => e.type), rec.types());
    assert.equal(rec.only('onToolCallEndEvent').length, 0, 'the client was told the arguments were complete');
    assert.equal(rec.only('onRunErrorEvent')[0].event.code, 'UPSTREAM_ERROR');
    con.clean();
  });
});
