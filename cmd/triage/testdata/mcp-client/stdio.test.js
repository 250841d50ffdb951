// `triage bridge` over stdio, driven by the official TypeScript client: the
// tools it lists and a whole session, with the answer streamed as progress.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { KEY_A, TIMEOUT, McpError, connectStdio, fails, ok, progress, startServe, text } from './helpers.js';

// The tools and their annotations, as bridge/bridge_test.go's TestToolsListed.
const TOOLS = {
  bridge_health: { readOnly: true, idempotent: true, destructive: false },
  agents_discover: { readOnly: true, idempotent: true, destructive: false },
  sessions_status: { readOnly: true, idempotent: true, destructive: false },
  sessions_close: { readOnly: false, idempotent: true, destructive: true },
  sessions_create: { readOnly: false, idempotent: false, destructive: false },
  sessions_prompt: { readOnly: false, idempotent: false, destructive: false },
  sessions_cancel: { readOnly: false, idempotent: false, destructive: true },
  tasks_delegate: { readOnly: false, idempotent: false, destructive: false },
};

test('the server introduces itself and lists the 8 tools with schemas and annotations', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  assert.equal(client.getServerVersion()?.name, 'triage-bridge');
  assert.ok(client.getServerCapabilities()?.tools, 'no tools capability');
  assert.match(client.getInstructions() ?? '', /agents_discover/);

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name).sort(), Object.keys(TOOLS).sort());
  for (const tool of tools) {
    const want = TOOLS[tool.name];
    const a = tool.annotations ?? {};
    // A hint the server leaves out means false for readOnly and
    // idempotent; destructiveHint must be sent (its default is true).
    assert.deepEqual(
      { readOnly: a.readOnlyHint ?? false, idempotent: a.idempotentHint ?? false, destructive: a.destructiveHint },
      want, `${tool.name} annotations ${JSON.stringify(a)}`);
    assert.ok(tool.description, `${tool.name} has no description`);
    assert.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
    assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has no output schema`);
    // Every output schema allows the failure under "error".
    assert.equal(tool.outputSchema.properties?.error?.type, 'object', `${tool.name}: no "error" in the output schema`);
  }
  const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
  assert.deepEqual(byName.sessions_prompt.inputSchema.required?.slice().sort(), ['prompt', 'sessionId']);
  assert.deepEqual(byName.sessions_create.inputSchema.required, ['agentId']);
});

// Pointed at a service (--service, TRIAGE_API_KEY), the bridge also
// serves its error store, with the key's tenant's rights: what it reports,
// the service's /mcp reads.
test('triage bridge --service: the error store\'s tools over the service', { timeout: 60_000 }, async (t) => {
  const { url } = await startServe(t);
  const { client } = await connectStdio(t, ['--service', url.origin], { TRIAGE_API_KEY: KEY_A });
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name).filter((n) => n.startsWith('errors_')).sort(),
    ['errors_get', 'errors_report', 'errors_search', 'errors_update']);
  const call = async (name, args) => {
    const res = await client.callTool({ name, arguments: args });
    assert.notEqual(res.isError, true, `${name} failed: ${text(res)}`);
    return res.structuredContent;
  };
  const rep = await call('errors_report', { agentId: 'planner', queryId: 'q_stdio_1', message: 'connection reset by peer' });
  assert.deepEqual((await call('errors_search', { queryId: 'q_stdio_1' })).errors.map((e) => e.errorId), [rep.errorId]);
  const got = await call('errors_get', { errorId: rep.errorId });
  assert.equal(got.analysis.rootCause.cause, rep.rootCause.cause);
  // The client checked it against errors_get's output schema (see the
  // negative control below).
  assert.equal(client.getToolOutputValidator('errors_get')?.(got).valid, true);
  assert.equal((await fails(client, 'errors_get', { errorId: 'err_none' })).error.code, 'NOT_FOUND');
});

test('a whole session: discover, create, prompt with progress, status, close twice, delegate', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);

  const { agents } = await ok(client, 'agents_discover', {});
  assert.deepEqual(agents.map((a) => a.id), ['echo']);
  assert.ok(agents[0].capabilities.includes('streaming'), JSON.stringify(agents[0]));
  assert.deepEqual((await ok(client, 'agents_discover', { capability: 'no-such-capability' })).agents, []);

  const s = await ok(client, 'sessions_create', { agentId: 'echo', metadata: { ticket: 'T-1' } });
  assert.equal(s.agentId, 'echo');
  assert.equal(s.state, 'idle');
  assert.ok(s.sessionId, 'no session id');

  const pr = progress(t);
  const p = await ok(client, 'sessions_prompt', { sessionId: s.sessionId, prompt: 'hello there, bridge' },
    { onprogress: pr.onprogress });
  assert.equal(p.text, 'You said: hello there, bridge');
  assert.equal(p.stopReason, 'end_turn');
  assert.equal(p.state, 'idle');
  assert.equal(p.sessionId, s.sessionId);
  // The chunks came as progress notifications, one a word, numbered in
  // order, and make the answer.
  const chunks = pr.chunks(client);
  assert.equal(chunks.length, 5, JSON.stringify(chunks));
  assert.equal(chunks.map((n) => n.message).join(''), p.text);
  assert.deepEqual(chunks.map((n) => n.progress), [1, 2, 3, 4, 5]);

  const st = await ok(client, 'sessions_status', { sessionId: s.sessionId });
  assert.equal(st.state, 'idle');
  assert.equal(st.prompts, 1);
  assert.equal(st.agentId, 'echo');
  assert.deepEqual(st.metadata, { ticket: 'T-1' });

  assert.deepEqual(await ok(client, 'sessions_close', { sessionId: s.sessionId }), { sessionId: s.sessionId, closed: true });
  // Closing again is silent: idempotent.
  assert.deepEqual(await ok(client, 'sessions_close', { sessionId: s.sessionId }), { sessionId: s.sessionId, closed: true });

  const dp = progress(t);
  const d = await ok(client, 'tasks_delegate', { agentId: 'echo', prompt: 'one call' }, { onprogress: dp.onprogress });
  assert.equal(d.text, 'You said: one call');
  assert.equal(d.state, 'closed');
  assert.equal(dp.chunks(client).map((n) => n.message).join(''), d.text);

  // Without a progress token, the answer comes whole and nothing streams.
  const plain = await ok(client, 'tasks_delegate', { agentId: 'echo', prompt: 'no progress' });
  assert.equal(plain.text, 'You said: no progress');

  const h = await ok(client, 'bridge_health', {});
  assert.equal(h.ready, true);
  assert.equal(h.sessions, 0);
  assert.equal(h.inFlight, 0, 'bridge_health takes no slot');
  assert.deepEqual(client.errors, [], 'the client reported errors');
});

test('an unknown tool is a JSON-RPC error, -32602', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err) => {
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /no_such_tool/);
    return true;
  });
  // The connection survives it.
  assert.equal((await ok(client, 'bridge_health', {})).ready, true);
});

test('text content mirrors structured content for a client without structured output', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const res = await client.callTool({ name: 'tasks_delegate', arguments: { agentId: 'echo', prompt: 'mirror' } });
  assert.deepEqual(JSON.parse(text(res)), res.structuredContent);
  assert.equal(res.structuredContent.text, 'You said: mirror');
});

// A negative control for every other test: the client really checks each
// result's structuredContent against the tool's output schema (with the
// validators listTools cached), so a result or failure that did not match
// would reject the call. getToolOutputValidator is the client's own
// (undocumented) lookup; callTool uses it.
test('the client checks structured content against the output schemas it listed', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const validate = client.getToolOutputValidator('sessions_prompt');
  assert.equal(typeof validate, 'function', 'no validator cached for sessions_prompt');

  const res = await client.callTool({ name: 'sessions_prompt', arguments: { sessionId: 'abc-123', prompt: 'hi' } });
  assert.equal(res.isError, true);
  assert.equal(validate(res.structuredContent).valid, true);
  const d = await client.callTool({ name: 'tasks_delegate', arguments: { agentId: 'echo', prompt: 'x' } });
  assert.equal(validate(d.structuredContent).valid, true, 'a delegate result is a prompt result too');

  for (const bad of [
    {},
    { sessionId: 's', agentId: 'a', text: 't', stopReason: 'end_turn' },
    { sessionId: 's', agentId: 'a', text: 't', stopReason: 'end_turn', state: 'idle', extra: 1 },
    { error: { ...res.structuredContent.error, retryable: 'no' } },
    { error: { ...res.structuredContent.error, type: undefined } },
  ]) {
    assert.equal(validate(JSON.parse(JSON.stringify(bad))).valid, false, `accepted ${JSON.stringify(bad)}`);
  }
});

test("an answer that calls the client's tool: the call is in the result, without progress (issue 23)", { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t);
  const args = '{"city":"Paris"}';
  const { sessionId } = await ok(client, 'sessions_create', { agentId: 'echo' });
  // No progress token: before the fix the result was text "" and
  // stopReason "tool_call", the call nowhere.
  for (const [tool, input] of [
    ['sessions_prompt', { sessionId, prompt: `call get_weather ${args}` }],
    ['tasks_delegate', { agentId: 'echo', prompt: `call get_weather ${args}` }],
  ]) {
    const r = await ok(client, tool, input);
    assert.equal(r.stopReason, 'tool_call', JSON.stringify(r));
    assert.equal(r.toolCalls?.length, 1, JSON.stringify(r));
    const [call] = r.toolCalls;
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.equal(call.argumentsBytes, args.length);
    assert.equal(call.truncated, undefined);
  }
});
