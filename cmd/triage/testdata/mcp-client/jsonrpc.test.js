// `triage bridge --error-mode jsonrpc`: seed 002's mode, where a failed
// call is a JSON-RPC error with the category's code and the failure as
// data, as bridge/failure_test.go's TestJSONRPCErrorMode checks on the wire.
//
// What the TypeScript client (1.32.2) does with these codes: callTool
// rejects with an McpError carrying the code, message and data as sent,
// whatever the code; unlike the go-sdk's client, it does not read -32004
// or -32003 as the connection closing, and the connection stays up. But
// two of seed 002's codes are the TS SDK's own ErrorCode values:
// -32000 is ErrorCode.ConnectionClosed and -32001 ErrorCode.RequestTimeout,
// which the client raises itself when the transport closes or a request
// times out. A TS caller that switches on err.code cannot tell the bridge's
// TRANSPORT or TIMEOUT failure from its own; only err.data (present, with
// data.type) tells them apart.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { TIMEOUT, McpError, connectStdio, ok, rejects } from './helpers.js';

function expectData(err, want) {
  assert.equal(err.code, want.code, `${err.message} ${JSON.stringify(err.data)}`);
  assert.equal(typeof err.data, 'object', `no data: ${err.message}`);
  const d = err.data;
  assert.equal(d.type, want.type, JSON.stringify(d));
  if (want.faultCode) assert.equal(d.code, want.faultCode, JSON.stringify(d));
  assert.equal(typeof d.retryable, 'boolean', JSON.stringify(d));
  assert.equal(typeof d.sessionValid, 'boolean', JSON.stringify(d));
  if (want.retryable !== undefined) assert.equal(d.retryable, want.retryable);
  if (want.sessionValid !== undefined) assert.equal(d.sessionValid, want.sessionValid);
  assert.ok(Array.isArray(d.recovery) && d.recovery.length > 0, JSON.stringify(d));
  assert.equal(err.message, `MCP error ${want.code}: ${d.message}`);
}

test('jsonrpc mode: failures reject with McpError, the category code and the failure as data', { timeout: TIMEOUT }, async (t) => {
  const { client, transport } = await connectStdio(t, ['--error-mode', 'jsonrpc']);
  let closed = false;
  const prevClose = transport.onclose;
  transport.onclose = () => { closed = true; prevClose?.(); };

  const cases = [
    { name: 'session not found', tool: 'sessions_prompt', args: { sessionId: 'abc-123', prompt: 'hi' },
      code: -32002, type: 'UPSTREAM', faultCode: 'SESSION_NOT_FOUND', retryable: false, sessionValid: false },
    { name: 'fail with TIMEOUT', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with TIMEOUT' },
      code: -32001, type: 'TIMEOUT', faultCode: 'TIMEOUT', retryable: true },
    { name: 'fail with CONFIG_ERROR', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with CONFIG_ERROR' },
      code: -32004, type: 'CONFIG', faultCode: 'CONFIG_ERROR', retryable: false },
    { name: 'fail with PROVIDER_AUTH_FAILED', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with PROVIDER_AUTH_FAILED' },
      code: -32003, type: 'AUTH', faultCode: 'PROVIDER_AUTH_FAILED', retryable: false },
    { name: 'fail with TRANSPORT_ERROR', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with TRANSPORT_ERROR' },
      code: -32000, type: 'TRANSPORT', faultCode: 'TRANSPORT_ERROR', retryable: true },
    { name: 'fail with INTERNAL_ERROR', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with INTERNAL_ERROR' },
      code: -32603, type: 'INTERNAL', faultCode: 'INTERNAL_ERROR' },
    { name: 'rate limited', tool: 'tasks_delegate', args: { agentId: 'echo', prompt: 'fail with RATE_LIMITED after 7s' },
      code: -32002, type: 'UPSTREAM', faultCode: 'RATE_LIMITED', retryable: true },
  ];
  for (const c of cases) {
    await t.test(c.name, { timeout: 10_000 }, async () => {
      const err = await rejects(client, c.tool, c.args);
      expectData(err, c);
      // After every code, -32004 and -32003 included, the connection is
      // still up: the next call succeeds.
      assert.equal((await ok(client, 'bridge_health', {})).ready, true, `after ${c.code}`);
    });
  }
  const rate = await rejects(client, 'tasks_delegate', { agentId: 'echo', prompt: 'fail with RATE_LIMITED after 7s' });
  assert.equal(rate.data.retryAfter, 7);

  // Seed 002's codes that collide with the TS SDK's own.
  const transportErr = await rejects(client, 'tasks_delegate', { agentId: 'echo', prompt: 'fail with TRANSPORT_ERROR' });
  assert.equal(transportErr.code, ErrorCode.ConnectionClosed);
  const timeoutErr = await rejects(client, 'tasks_delegate', { agentId: 'echo', prompt: 'fail with TIMEOUT' });
  assert.equal(timeoutErr.code, ErrorCode.RequestTimeout);

  assert.equal(closed, false, 'the transport closed');
  assert.deepEqual(client.errors, [], 'the client reported errors');
});

test('jsonrpc mode: invalid arguments and unknown tools are -32602; success is unchanged', { timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t, ['--error-mode', 'jsonrpc']);
  const invalid = await rejects(client, 'sessions_create', {});
  assert.equal(invalid.code, ErrorCode.InvalidParams);
  assert.equal(invalid.data?.type, 'PROTOCOL', JSON.stringify(invalid.data));
  assert.equal(invalid.data?.code, 'INVALID_REQUEST');

  const unknown = await rejects(client, 'no_such_tool', {});
  assert.equal(unknown.code, ErrorCode.InvalidParams);
  assert.ok(unknown instanceof McpError);

  const d = await ok(client, 'tasks_delegate', { agentId: 'echo', prompt: 'still fine' });
  assert.equal(d.text, 'You said: still fine');
});
