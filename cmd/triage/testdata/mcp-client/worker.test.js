// An ACP worker agent (`kind: acp`, command [TRIAGE_BIN, worker]) behind
// the bridge, through the official TypeScript client: a session, and the
// worker's failures (adapter/acpagent's directives: crash, hang,
// malformed, ...) as the client sees them.
//
// These tests run when `triage help` lists the worker command, and are
// skipped, saying so, while it does not.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { BIN, TIMEOUT, agentsFile, binaryHas, connectStdio, expectFailure, fails, ok, progress } from './helpers.js';

const skip = binaryHas('worker')
  ? false
  : '`triage worker` is not in this binary yet (`triage help` does not list it); these tests enable themselves once it is';

function workerAgents(env = {}) {
  const lines = Object.entries({ TRIAGE_WORKER_DELAY: '5ms', ...env }).map(([k, v]) => `      ${k}: "${v}"`);
  return `
agents:
  - id: worker
    kind: acp
    description: Triage's own ACP worker
    command: [${JSON.stringify(BIN)}, worker]
    workers: 1
    env:
${lines.join('\n')}
`;
}

async function connectWorker(t, env, args = []) {
  return connectStdio(t, ['--agents', agentsFile(t, workerAgents(env)), ...args]);
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

test('a worker session: create, prompt with progress, status, close; the worker ends with the bridge', { skip, timeout: TIMEOUT }, async (t) => {
  const conn = await connectWorker(t);
  const { client } = conn;
  const { agents } = await ok(client, 'agents_discover', {});
  assert.deepEqual(agents.map((a) => a.id), ['worker']);

  const s = await ok(client, 'sessions_create', { agentId: 'worker' });
  assert.equal(s.state, 'idle');
  const pr = progress(t);
  const p = await ok(client, 'sessions_prompt', { sessionId: s.sessionId, prompt: 'hello from the worker' }, { onprogress: pr.onprogress });
  assert.equal(p.text, 'You said: hello from the worker');
  assert.equal(p.stopReason, 'end_turn');
  assert.equal(pr.chunks(client).map((n) => n.message).join(''), p.text);

  const pid = Number(/pid: (\d+)/.exec((await ok(client, 'sessions_prompt', { sessionId: s.sessionId, prompt: 'pid' })).text)?.[1]);
  assert.ok(pid > 0, 'no worker pid');
  assert.equal((await ok(client, 'sessions_status', { sessionId: s.sessionId })).prompts, 2);
  assert.equal((await ok(client, 'sessions_close', { sessionId: s.sessionId })).closed, true);
  const d = await ok(client, 'tasks_delegate', { agentId: 'worker', prompt: 'one call' });
  assert.equal(d.text, 'You said: one call');

  await client.close();
  assert.ok(await gone(pid), `worker ${pid} outlived the bridge`);
});

test('a worker that crashes mid-prompt: TRANSPORT, session not valid; new sessions work', { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectWorker(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'worker' });
  const { error, text } = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'crash' });
  expectFailure(error, { type: 'TRANSPORT', code: 'TRANSPORT_ERROR', retryable: true, sessionValid: false, recovery: 'sessions_create' });
  assert.match(error.message, /^Worker w\d+ exited$/);
  assert.equal(error.details?.agentId, 'worker');
  assert.ok(text.startsWith("Failed to submit prompt to agent 'worker':\n"), text);

  // The session failed with its worker, and its slot is free.
  const st = await ok(client, 'sessions_status', { sessionId: id });
  assert.equal(st.state, 'failed');
  assert.equal(st.lastError, 'TRANSPORT_ERROR');
  assert.equal((await ok(client, 'bridge_health', {})).sessions, 0);
  const again = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'hello?' });
  assert.equal(again.error.sessionValid, false);

  // The pool respawns the worker: a new session works again.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await client.callTool({ name: 'tasks_delegate', arguments: { agentId: 'worker', prompt: 'back' } });
    if (!res.isError) {
      assert.equal(res.structuredContent.text, 'You said: back');
      break;
    }
    assert.ok(Date.now() < deadline, `no worker came back: ${JSON.stringify(res.structuredContent)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

test('a worker that hangs past --prompt-timeout: TIMEOUT (category TRANSPORT), and the session takes new prompts', { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectWorker(t, {}, ['--prompt-timeout', '500ms']);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'worker' });
  const started = Date.now();
  const { error } = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'hang' });
  // The pool's own fault, seed 002's WorkerExecutor "bus.request() times
  // out": category TRANSPORT (a script agent's is TIMEOUT, "Prompt timed
  // out after …"); the worker was sent session/cancel and lives on.
  expectFailure(error, { type: 'TRANSPORT', code: 'TIMEOUT', retryable: true, sessionValid: true, recovery: 'sessions_prompt' });
  assert.match(error.message, /^Worker w\d+ timed out$/);
  assert.equal(error.details?.operation, 'session/prompt');
  assert.ok(Date.now() - started < 5_000, `the timeout took ${Date.now() - started}ms`);
  const p = await ok(client, 'sessions_prompt', { sessionId: id, prompt: 'awake' });
  assert.equal(p.text, 'You said: awake');
});

test('a worker that answers garbage: PROTOCOL_ERROR, category UPSTREAM', { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectWorker(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'worker' });
  for (const prompt of ['malformed', 'bad stop reason', 'bad result']) {
    await t.test(prompt, { timeout: 10_000 }, async () => {
      const { error, text } = await fails(client, 'sessions_prompt', { sessionId: id, prompt });
      // The worker lives on, and so does the session.
      expectFailure(error, { type: 'UPSTREAM', code: 'PROTOCOL_ERROR', retryable: false, sessionValid: true, recovery: 'bridge_health' });
      assert.equal(error.details?.workerId, 'w1');
      assert.equal(error.message, 'Invalid worker response: malformed prompt result');
      assert.ok(text.includes('(UPSTREAM, not retryable'), text);
    });
  }
  // The worker stays up: a broken line does not end the connection.
  assert.equal((await ok(client, 'tasks_delegate', { agentId: 'worker', prompt: 'fine' })).text, 'You said: fine');
});

test("a worker's JSON-RPC error and a missing session id", { skip, timeout: TIMEOUT }, async (t) => {
  const { client } = await connectWorker(t);
  const { sessionId: id } = await ok(client, 'sessions_create', { agentId: 'worker' });
  // seed 002's "bus.request() throws error": the worker's code in details,
  // its retryability from the error's data.
  const { error } = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'fail with RATE_LIMITED' });
  expectFailure(error, { type: 'UPSTREAM', code: 'UPSTREAM_ERROR', retryable: true, sessionValid: true, recovery: 'sessions_prompt' });
  assert.match(error.message, /^Worker w\d+ failed: session\/prompt$/);
  assert.equal(error.details?.workerCode, 'RATE_LIMITED');
  assert.equal(error.details?.agentId, 'worker');
  const config = await fails(client, 'sessions_prompt', { sessionId: id, prompt: 'fail with CONFIG_ERROR' });
  expectFailure(config.error, { type: 'UPSTREAM', code: 'UPSTREAM_ERROR', retryable: false, sessionValid: true });
  assert.equal(config.error.details?.workerCode, 'CONFIG_ERROR');

  const noID = (await connectWorker(t, { TRIAGE_WORKER_NO_SESSION_ID: '1' })).client;
  const missing = await fails(noID, 'sessions_create', { agentId: 'worker' });
  expectFailure(missing.error, {
    type: 'UPSTREAM', code: 'PROTOCOL_ERROR', retryable: false, sessionValid: false,
    message: 'Invalid worker response: missing sessionId', recovery: 'sessions_create',
  });
});

test('a worker that cannot start: the bridge says so and exits', { skip, timeout: TIMEOUT }, (t) => {
  const file = agentsFile(t, workerAgents({ TRIAGE_WORKER_FAIL_START: '1' }));
  const r = spawnSync(BIN, ['bridge', '--agents', file], { input: '', encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH } });
  assert.equal(r.error, undefined, String(r.error));
  assert.notEqual(r.status, 0, `the bridge started: ${r.stderr}`);
  assert.match(r.stderr, /Failed to start worker/);
});
