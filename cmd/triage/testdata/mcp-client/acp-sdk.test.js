// An ACP agent written with the official TypeScript ACP SDK
// (../acp-agent: @agentclientprotocol/sdk, pinned there) behind the
// bridge, as a `kind: acp` worker, through the official TypeScript MCP
// client: SIGTERM while prompts hang (issue 23), a stray line on the
// agent's stdout, the agent's own error, and an agent whose initialize
// fails.
//
// They need ../acp-agent's packages installed (npm ci --prefix
// cmd/triage/testdata/acp-agent); TestMCPClient checks that they are.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import { BIN, TIMEOUT, agentsFile, connectStdio, expectFailure, fails, ok } from './helpers.js';

const AGENT = fileURLToPath(new URL('../acp-agent/agent.mjs', import.meta.url));
const skip = existsSync(fileURLToPath(new URL('../acp-agent/node_modules/@agentclientprotocol/sdk/package.json', import.meta.url)))
  ? false
  : 'the ACP agent on the TypeScript ACP SDK is not installed: run `npm ci --prefix cmd/triage/testdata/acp-agent`';

function agents(env = {}) {
  const lines = Object.entries(env).map(([k, v]) => `      ${k}: "${v}"`);
  return `
agents:
  - id: sdk
    kind: acp
    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]
    workers: 1${lines.length ? `\n    env:\n${lines.join('\n')}` : ''}
  - id: worker
    kind: acp
    command: [${JSON.stringify(BIN)}, worker]
    env: {TRIAGE_WORKER_DELAY: "1ms"}
  - id: script
    kind: script
`;
}

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function gone(pid, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function pidOf(client, sessionId) {
  const p = await ok(client, 'sessions_prompt', { sessionId, prompt: 'pid' });
  const pid = Number(/pid: (\d+)/.exec(p.text)?.[1]);
  assert.ok(pid > 0, `no pid in ${JSON.stringify(p)}`);
  return pid;
}

test('SIGTERM while prompts hang (default 5-minute timeout): every call is answered, the bridge exits, no worker is left', { skip, timeout: TIMEOUT }, async (t) => {
  const { client, transport, stderr } = await connectStdio(t, ['--agents', agentsFile(t, agents())]);
  const pids = [];
  const calls = [];
  for (const agentId of ['sdk', 'worker', 'script']) {
    const { sessionId } = await ok(client, 'sessions_create', { agentId });
    if (agentId !== 'script') pids.push(await pidOf(client, sessionId));
    calls.push({ agentId, call: client.callTool({ name: 'sessions_prompt', arguments: { sessionId, prompt: 'hang' } }) });
  }
  calls.push({ agentId: 'sdk', call: client.callTool({ name: 'tasks_delegate', arguments: { agentId: 'sdk', prompt: 'hang' } }) });
  for (const c of calls) c.call.catch(() => {}); // checked below
  const deadline = Date.now() + 10_000;
  while ((await ok(client, 'bridge_health', {})).inFlight < calls.length) {
    assert.ok(Date.now() < deadline, 'the prompts never all ran');
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200)); // the prompts reach the agents

  const bridge = transport.pid;
  const begun = Date.now();
  process.kill(bridge, 'SIGTERM');
  for (const { agentId, call } of calls) {
    // Before issue 23's fix: McpError -32000 "Connection closed", after
    // the prompt timeout.
    const res = await call;
    assert.equal(res.isError, true, JSON.stringify(res));
    const e = res.structuredContent.error;
    expectFailure(e, { type: 'TRANSPORT', code: 'SERVICE_UNAVAILABLE', retryable: true, sessionValid: false, message: 'The bridge is shutting down' });
    assert.equal(e.retryAfter, 5);
    assert.equal(e.details?.agentId, agentId);
    assert.ok(res.content[0].text.includes('The bridge is shutting down (TRANSPORT, retryable after 5s, session not valid)'), res.content[0].text);
  }
  assert.ok(await gone(bridge, 10_000), `the bridge is still running 10s after SIGTERM:\n${stderr()}`);
  t.diagnostic(`answered and exited ${Date.now() - begun}ms after SIGTERM`);
  for (const pid of pids) assert.ok(await gone(pid), `worker ${pid} outlived the bridge`);
});

test("a stray line on the agent's stdout fails no prompt, another session's neither", { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t, ['--agents', agentsFile(t, agents({ SDK_AGENT_DELAY_MS: '20' }))]);
  const a = (await ok(client, 'sessions_create', { agentId: 'sdk' })).sessionId;
  const b = (await ok(client, 'sessions_create', { agentId: 'sdk' })).sessionId;
  const long = 'one two three four five six seven eight nine ten';
  const other = ok(client, 'sessions_prompt', { sessionId: b, prompt: long });
  await new Promise((r) => setTimeout(r, 60));
  const stray = await ok(client, 'sessions_prompt', { sessionId: a, prompt: 'stray then answer' });
  assert.equal(stray.text, 'You said: stray then answer');
  assert.equal((await other).text, `You said: ${long}`);
  const h = await ok(client, 'bridge_health', {});
  assert.equal(h.agents.find((x) => x.id === 'sdk').workerStrayLines, 1, JSON.stringify(h));
});

test("the agent's own error (RequestError('sdk agent refused', -32000)) reaches the client's details", { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectStdio(t, ['--agents', agentsFile(t, agents())]);
  const { sessionId } = await ok(client, 'sessions_create', { agentId: 'sdk' });
  const { error } = await fails(client, 'sessions_prompt', { sessionId, prompt: 'refuse' });
  expectFailure(error, { type: 'UPSTREAM', code: 'UPSTREAM_ERROR', retryable: false, sessionValid: true });
  assert.match(error.message, /^Worker w1 failed: session\/prompt$/);
  assert.equal(error.details?.workerErrorCode, -32000);
  assert.equal(error.details?.workerErrorMessage, 'sdk agent refused');
});

test('an agent whose initialize fails: the bridge says why, with the agent\'s own error', { skip, timeout: TIMEOUT }, (t) => {
  const file = agentsFile(t, agents({ SDK_AGENT_REFUSE_INIT: '1' }));
  const r = spawnSync(BIN, ['bridge', '--agents', file], { input: '', encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } });
  assert.equal(r.error, undefined, String(r.error));
  assert.notEqual(r.status, 0, `the bridge started: ${r.stderr}`);
  assert.match(r.stderr, /Failed to start worker \(/);
  assert.match(r.stderr, /reason=the worker answered initialize with an error/);
  assert.match(r.stderr, /workerErrorCode=-32000/);
  assert.match(r.stderr, /workerErrorMessage=sdk agent refused/);
});
