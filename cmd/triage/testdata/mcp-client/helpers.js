// Shared helpers of the MCP client tests: they start the triage binary
// (TRIAGE_BIN) as `triage bridge` over stdio or as `triage serve` over
// streamable HTTP, connect the official TypeScript MCP client to it, and
// check what a failed tool call carries. Every process a test starts is
// stopped by the test's cleanup, and by this process's exit as a backstop.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

export { McpError };

export const BIN = process.env.TRIAGE_BIN;
if (!BIN) {
  throw new Error('TRIAGE_BIN is unset: run these tests through `go test ./cmd/triage -run MCPClient`, or set TRIAGE_BIN to a built triage binary');
}

// A test's default deadline; each test sets its own timeout from it.
export const TIMEOUT = 30_000;

// The environment the triage processes get: nothing of the caller's
// TRIAGE_* settings, so that only the flags a test passes apply.
function baseEnv(extra = {}) {
  const env = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT', 'LANG']) {
    if (process.env[k] !== undefined) env[k] = process.env[k];
  }
  return { ...env, ...extra };
}

// The processes the tests started and have not seen end, by pid: killed
// when this test file's process exits or is interrupted, whatever the
// tests' own cleanup managed. (A bridge's ACP workers end with it: their
// standard input closes.)
const running = new Set();
function killAll() {
  for (const pid of running) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}

// tempDir makes a directory removed after the test.
export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'triage-mcp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// agentsFile writes an agents file (YAML) and returns its path.
export function agentsFile(t, yaml) {
  const path = join(tempDir(t), 'agents.yaml');
  writeFileSync(path, yaml);
  return path;
}

// binaryHas says whether `triage help` lists the command.
export function binaryHas(command) {
  const r = spawnSync(BIN, ['help'], { encoding: 'utf8', env: baseEnv(), timeout: 10_000 });
  return new RegExp(`^\\s+triage ${command}\\b`, 'm').test(`${r.stdout}\n${r.stderr}`);
}

// newClient makes a client closed after the test. The errors the client
// reports out of band (client.onerror) are kept in client.errors.
function newClient(t) {
  const client = new Client({ name: 'triage-mcp-client-test', version: '1.0.0' });
  client.errors = [];
  client.onerror = (err) => client.errors.push(err);
  t.after(() => client.close());
  return client;
}

// connectStdio spawns `triage bridge ARGS` (with more environment
// variables, env) and connects a client to it. The bridge's stderr (its
// logs) is kept, for messages: stderr().
export async function connectStdio(t, args = [], env = {}) {
  const transport = new StdioClientTransport({ command: BIN, args: ['bridge', ...args], env: baseEnv(env), stderr: 'pipe' });
  let logs = '';
  transport.stderr.on('data', (b) => {
    logs += b;
    if (process.env.MCP_CLIENT_DEBUG) process.stderr.write(b);
  });
  const client = newClient(t);
  await client.connect(transport);
  const pid = transport.pid;
  running.add(pid);
  t.after(() => {
    // client.close() ends the bridge (stdin closed, then SIGTERM, then
    // SIGKILL); make sure nothing outlives the test.
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    running.delete(pid);
  });
  // callTool checks structured content against the output schema only
  // for tools it has listed.
  await client.listTools();
  return { client, transport, stderr: () => logs };
}

// The API keys of the two tenants startServe sets up (triage serve wants
// keys of at least 16 characters).
export const KEY_A = 'key-a-acme-0123456789';
export const KEY_B = 'key-b-globex-0123456789';

// startServe runs `triage serve` on a free port with the API keys and
// returns the /mcp URL; the process is stopped after the test.
export async function startServe(t, args = [], keys = `acme=${KEY_A},globex=${KEY_B}`) {
  const dir = tempDir(t);
  const child = spawn(BIN, ['serve', '--addr', '127.0.0.1:0', '--db', join(dir, 't.db'), ...args], {
    env: baseEnv({ TRIAGE_API_KEYS: keys }), stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child.pid);
  const exited = once(child, 'exit');
  exited.then(() => running.delete(child.pid));
  // Stopped gracefully after the test (SIGTERM, exit status 0), or killed
  // and the test failed. The server may wait up to 5s for a connection
  // the client opened and never used (Go's http.Server.Shutdown treats
  // such a connection as busy for its first 5 seconds).
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) {
      assert.fail(`triage serve ended during the test (${child.exitCode ?? child.signalCode}):\n${logs}`);
    }
    child.kill('SIGTERM');
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(resolve, 10_000, 'late'); });
    const r = await Promise.race([exited, late]);
    clearTimeout(timer);
    if (r === 'late') {
      child.kill('SIGKILL');
      await exited;
      assert.fail(`triage serve did not stop within 10s of SIGTERM:\n${logs}`);
    }
    assert.equal(child.exitCode, 0, `triage serve stopped with ${child.exitCode ?? child.signalCode}:\n${logs}`);
  });
  let out = '';
  let logs = '';
  child.stderr.on('data', (b) => {
    logs += b;
    if (process.env.MCP_CLIENT_DEBUG) process.stderr.write(b);
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`triage serve printed no MCP address in 15s:\n${out}\n${logs}`)), 15_000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /MCP bridge at (\S+)\/mcp\b/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(new URL('/mcp', m[1]));
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`triage serve exited (${code ?? sig}):\n${out}\n${logs}`));
    });
  });
  child.stdout.resume();
  return { url, child, stderr: () => logs };
}

// connectHTTP connects a client to /mcp with the request headers.
export async function connectHTTP(t, url, headers) {
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = newClient(t);
  await client.connect(transport);
  await client.listTools();
  return { client, transport };
}

// ok calls a tool that must succeed and returns its structured content.
export async function ok(client, name, args, options) {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  assert.notEqual(res.isError, true, `${name} failed: ${text(res)}`);
  assert.equal(typeof res.structuredContent, 'object', `${name}: no structured content`);
  // The text content is the same JSON, for clients without structured output.
  assert.deepEqual(JSON.parse(text(res)), res.structuredContent, `${name}: text and structured content differ`);
  return res.structuredContent;
}

// fails calls a tool that must fail as a result (isError), checks what
// every failure carries, and returns {error, text}.
export async function fails(client, name, args, options) {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  assert.equal(res.isError, true, `${name} succeeded: ${JSON.stringify(res.structuredContent)}`);
  const e = res.structuredContent?.error;
  assert.ok(e && typeof e === 'object', `${name}: no structuredContent.error: ${JSON.stringify(res)}`);
  for (const [k, type] of [['type', 'string'], ['code', 'string'], ['message', 'string'], ['retryable', 'boolean'], ['sessionValid', 'boolean']]) {
    assert.equal(typeof e[k], type, `${name}: error.${k} is ${JSON.stringify(e[k])}`);
  }
  assert.equal(e.tool, name);
  assert.ok(Array.isArray(e.recovery) && e.recovery.length > 0, `${name}: no recovery: ${JSON.stringify(e)}`);
  const txt = text(res);
  assert.match(txt, /^Failed to /, `${name}: text ${JSON.stringify(txt)}`);
  // The text says the message (without its final period) and then, in
  // brackets, the category and facets.
  const said = `${e.message.replace(/\.$/, '')} (${e.type}, `;
  assert.ok(txt.includes(said), `${name}: text ${JSON.stringify(txt)} lacks ${JSON.stringify(said)}`);
  assert.ok(txt.includes(e.retryable ? ', retryable' : ', not retryable'), txt);
  assert.ok(txt.includes(e.sessionValid ? 'session still valid)' : 'session not valid)'), txt);
  assert.ok(txt.includes('You can:\n1. '), `${name}: text without recovery: ${JSON.stringify(txt)}`);
  return { error: e, text: txt };
}

// expectFailure checks a failure's facets; want.recovery is a tool the
// recovery must name.
export function expectFailure(e, want) {
  const got = { type: e.type, code: e.code, retryable: e.retryable, sessionValid: e.sessionValid };
  const exp = { type: want.type, code: want.code, retryable: want.retryable, sessionValid: want.sessionValid };
  assert.deepEqual(got, exp, `failure ${JSON.stringify(e)}`);
  if (want.message !== undefined) assert.equal(e.message, want.message);
  if (want.recovery) {
    assert.ok(e.recovery.some((r) => r.tool === want.recovery), `recovery ${JSON.stringify(e.recovery)} does not name ${want.recovery}`);
  }
}

export function text(res) {
  return (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
}

// rejects calls a tool that must fail as a JSON-RPC error and returns the
// McpError.
export async function rejects(client, name, args, options) {
  try {
    const res = await client.callTool({ name, arguments: args }, undefined, options);
    assert.fail(`${name} returned a result: ${JSON.stringify(res)}`);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.ok(err instanceof McpError, `${name}: ${err?.constructor?.name}: ${err}`);
    return err;
  }
}

// waitState polls sessions_status until the session is in state.
export async function waitState(client, sessionId, state, ms = 5_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const st = await ok(client, 'sessions_status', { sessionId });
    if (st.state === state) return st;
    if (Date.now() > deadline) assert.fail(`session ${sessionId} is ${st.state}, want ${state}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// progress collects a call's progress notifications: pass onprogress in
// the call's options, then, once the call has returned, chunks(client)
// returns every notification the bridge sent for it, in order. Use it for
// one call at a time on a client.
//
// The TypeScript SDK (1.32.2) dispatches a notification in a microtask but
// a response at once, so a notification read in the same chunk as the
// response reaches a retired handler: the SDK drops it and reports
// "Received a progress notification for an unknown token: {…}" on
// client.onerror (modelcontextprotocol/typescript-sdk#2580). chunks takes
// those back from client.errors, so the test checks what the bridge sent;
// p.late holds the ones the client dropped.
export function progress(t) {
  const seen = [];
  const p = {
    late: [],
    onprogress: (n) => seen.push(n),
    chunks(client) {
      const unknown = /^Received a progress notification for an unknown token: (\{.*\})$/s;
      const rest = [];
      for (const err of client.errors) {
        const m = unknown.exec(err?.message ?? '');
        if (m) p.late.push(JSON.parse(m[1]).params);
        else rest.push(err);
      }
      client.errors = rest;
      if (p.late.length > 0) {
        t.diagnostic(`the TS client dropped ${p.late.length} progress notification(s) read with the response (typescript-sdk#2580); counted from client.onerror`);
      }
      const all = [...seen, ...p.late.map(({ progressToken, ...n }) => n)];
      return all.sort((a, b) => a.progress - b.progress);
    },
  };
  return p;
}
