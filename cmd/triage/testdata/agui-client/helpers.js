// Shared helpers of the AG-UI client tests: they start the triage binary
// (TRIAGE_BIN) as `triage serve`, point the official @ag-ui/client
// HttpAgent at POST /v1/agents/{agent_id}/runs, and record what the agent's
// subscriber callbacks receive. Every process a test starts is stopped by
// the test's cleanup, and by this process's exit as a backstop.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format } from 'node:util';

// The client reads these when it runs: NODE_ENV=test makes it freeze what
// it hands the subscribers and rethrow their TypeErrors, and the
// enforcement stage's warnings must not be suppressed.
process.env.NODE_ENV ??= 'test';
delete process.env.SUPPRESS_TRANSFORMATION_WARNINGS;

const { HttpAgent } = await import('@ag-ui/client');
export { HttpAgent };

export const BIN = process.env.TRIAGE_BIN;
if (!BIN) {
  throw new Error('TRIAGE_BIN is unset: run these tests through `go test ./cmd/triage -run AGUIClient`, or set TRIAGE_BIN to a built triage binary');
}

// A test's default deadline; each test sets its own timeout from it.
export const TIMEOUT = 30_000;

// The API keys of the two tenants startServe sets up.
export const KEY_A = 'key-a-acme-0123456789';
export const KEY_B = 'key-b-globex-0123456789';
export const ACME = { 'X-API-Key': KEY_A };
export const GLOBEX = { Authorization: `Bearer ${KEY_B}` };

// What the client writes on the console: the enforcement stage and the
// reducer warn (console.warn) when they strip or ignore material, and a
// run that rejects logs "Agent execution failed:" (console.error). Kept
// here, not printed, unless AGUI_CLIENT_DEBUG is set.
const said = { warn: [], error: [] };
for (const level of ['warn', 'error']) {
  const orig = console[level].bind(console);
  console[level] = (...args) => {
    said[level].push(format(...args));
    if (process.env.AGUI_CLIENT_DEBUG) orig(...args);
  };
}

// watchConsole returns what the client writes on the console from now on;
// clean() asserts it warned of nothing and logged no error but the
// "Agent execution failed" of the rejected runs the test expects.
export function watchConsole() {
  const from = { warn: said.warn.length, error: said.error.length };
  const w = {
    warnings: () => said.warn.slice(from.warn),
    errors: () => said.error.slice(from.error),
    clean(rejected = 0) {
      assert.deepEqual(w.warnings(), [], 'the client warned');
      const errors = w.errors();
      assert.equal(errors.filter((e) => e.startsWith('Agent execution failed: Error: HTTP ')).length, rejected,
        `the client's console errors: ${JSON.stringify(errors)}`);
      assert.equal(errors.length, rejected, `the client's console errors: ${JSON.stringify(errors)}`);
    },
  };
  return w;
}

// The processes the tests started and have not seen end, by pid: killed
// when this test file's process exits or is interrupted.
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

export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'triage-agui-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// agentsFile writes an agents file (YAML) and returns its path.
export function agentsFile(t, yaml) {
  const path = join(tempDir(t), 'agents.yaml');
  writeFileSync(path, yaml);
  return path;
}

// The environment of triage: nothing of the caller's TRIAGE_* settings.
function baseEnv(extra = {}) {
  const env = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT', 'LANG']) {
    if (process.env[k] !== undefined) env[k] = process.env[k];
  }
  return { ...env, ...extra };
}

// startServe runs `triage serve ARGS` on a free port with the two tenants'
// API keys (keys '' for none) and returns its base URL; it is stopped
// after the test (SIGTERM, and it must exit 0 within 10s), unless the test
// stopped it with terminate(), which sends SIGTERM and resolves to how it
// exited ({code, signal}, null if not within ms) and how long it took.
export async function startServe(t, args = [], keys = `acme=${KEY_A},globex=${KEY_B}`) {
  const dir = tempDir(t);
  const child = spawn(BIN, ['serve', '--addr', '127.0.0.1:0', '--db', join(dir, 't.db'), ...args], {
    env: baseEnv(keys ? { TRIAGE_API_KEYS: keys } : {}), stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child.pid);
  const exited = once(child, 'exit');
  exited.then(() => running.delete(child.pid));
  let out = '';
  let logs = '';
  child.stderr.on('data', (b) => {
    logs += b;
    if (process.env.AGUI_CLIENT_DEBUG) process.stderr.write(b);
  });
  let terminated = false;
  t.after(async () => {
    if (terminated) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      return;
    }
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
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`triage serve printed no address in 15s:\n${out}\n${logs}`)), 15_000);
    child.stdout.on('data', (b) => {
      out += b;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`triage serve exited (${code ?? sig}):\n${out}\n${logs}`));
    });
  });
  child.stdout.resume();
  const terminate = async (ms = 30_000) => {
    terminated = true;
    const start = Date.now();
    child.kill('SIGTERM');
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(resolve, ms, null); });
    const r = await Promise.race([exited.then(([code, signal]) => ({ code, signal })), late]);
    clearTimeout(timer);
    return { exit: r, ms: Date.now() - start };
  };
  return { base, runURL: (agentId = 'echo') => `${base}/v1/agents/${agentId}/runs`, stderr: () => logs, terminate };
}

// newAgent makes an HttpAgent for the agent's URL. Its fetch is the
// global one, wrapped to keep the response as it came off the wire:
// agent.wire.status, .headers and .text (a promise of the whole body, or
// of what arrived before the stream broke).
export function newAgent(base, agentId = 'echo', { headers = ACME, messages = [], ...config } = {}) {
  const agent = new HttpAgent({
    url: `${base}/v1/agents/${agentId}/runs`,
    headers,
    initialMessages: messages,
    ...config,
    fetch: async (url, init) => {
      const res = await (config.fetch ?? fetch)(url, init);
      const copy = res.clone();
      agent.wire = { status: res.status, headers: res.headers, text: readAll(copy) };
      return res;
    },
  });
  return agent;
}

async function readAll(res) {
  const dec = new TextDecoder();
  let text = '';
  try {
    for await (const b of res.body) text += dec.decode(b, { stream: true });
  } catch { /* the stream broke (an abort): what came is kept */ }
  return text;
}

// say adds a user message to the agent's conversation.
export function say(agent, content) {
  agent.addMessage({ id: randomUUID(), role: 'user', content });
}

const CALLBACKS = [
  'onRunInitialized', 'onRunFailed', 'onRunFinalized',
  'onRunStartedEvent', 'onRunFinishedEvent', 'onRunErrorEvent', 'onStepStartedEvent', 'onStepFinishedEvent',
  'onTextMessageStartEvent', 'onTextMessageContentEvent', 'onTextMessageEndEvent',
  'onToolCallStartEvent', 'onToolCallArgsEvent', 'onToolCallEndEvent', 'onToolCallResultEvent',
  'onStateSnapshotEvent', 'onStateDeltaEvent', 'onMessagesSnapshotEvent', 'onActivitySnapshotEvent', 'onActivityDeltaEvent',
  'onRawEvent', 'onCustomEvent', 'onReasoningStartEvent', 'onReasoningMessageStartEvent', 'onReasoningMessageContentEvent',
  'onReasoningMessageEndEvent', 'onReasoningEndEvent', 'onSubagentStartedEvent', 'onSubagentFinishedEvent', 'onSubagentErrorEvent',
  'onNewMessage',
];

// recorder is a subscriber that records every callback the client makes,
// in order: rec.calls holds {cb, event, error, message, textMessageBuffer},
// rec.events the events (from onEvent), and rec.on(cb) waits for a call.
// It asserts nothing itself: the client logs and swallows what a callback
// throws.
export function recorder() {
  const waiting = [];
  const rec = {
    calls: [],
    events: [],
    sub: {
      onEvent: ({ event }) => { rec.events.push(event); },
    },
    only: (cb) => rec.calls.filter((c) => c.cb === cb),
    callbacks: () => rec.calls.map((c) => c.cb),
    types: () => rec.events.map((e) => e.type),
    text: () => rec.only('onTextMessageContentEvent').map((c) => c.event.delta).join(''),
    // on resolves when the n-th call of cb is made.
    on: (cb, n = 1) => new Promise((resolve) => {
      waiting.push({ cb, n, resolve });
      notify();
    }),
  };
  const notify = () => {
    for (const w of [...waiting]) {
      if (rec.only(w.cb).length >= w.n) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(rec.only(w.cb)[w.n - 1]);
      }
    }
  };
  for (const cb of CALLBACKS) {
    rec.sub[cb] = (p) => {
      rec.calls.push({ cb, event: p.event, error: p.error, message: p.message, textMessageBuffer: p.textMessageBuffer, outcome: p.outcome });
      notify();
    };
  }
  return rec;
}

// run runs the agent with a recorder: {rec, result, error}, error being
// what runAgent rejected with (undefined when it resolved).
export async function run(agent, params = {}, rec = recorder()) {
  try {
    return { rec, result: await agent.runAgent(params, rec.sub) };
  } catch (error) {
    return { rec, error };
  }
}

// problemOf reads the problem a refused run carries: the client reports
// a response that is not ok as Error("HTTP <status>: <body>") with status,
// and payload the body, parsed only when its content type names
// application/json.
export function problemOf(error) {
  assert.ok(error instanceof Error, `not an Error: ${error}`);
  assert.equal(typeof error.status, 'number', `no status on ${error}`);
  assert.ok(error.message.startsWith(`HTTP ${error.status}: `), error.message);
  return typeof error.payload === 'string' ? JSON.parse(error.payload) : error.payload;
}

// post sends a body to an agent's URL with fetch, as HttpAgent never would.
export async function post(url, body, headers = ACME, contentType = 'application/json') {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': contentType }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

// input is a RunAgentInput with one user message.
export function input(prompt) {
  return {
    threadId: randomUUID(), runId: randomUUID(), state: {}, tools: [], context: [], forwardedProps: {},
    messages: [{ id: randomUUID(), role: 'user', content: prompt }],
  };
}

// metric reads a counter of /metrics: the sum of the samples of name
// whose labels include labels.
export async function metric(base, name, labels = {}) {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

// runs reads triage_runs_total by outcome (and code) for an agent.
export async function runs(base, agent = 'echo') {
  const r = {};
  for (const [k, labels] of [
    ['finished', { outcome: 'finished' }], ['disconnected', { outcome: 'disconnected' }], ['failed', { outcome: 'failed' }],
    ['cancelled', { outcome: 'failed', code: 'CANCELLED' }],
  ]) r[k] = await metric(base, 'triage_runs_total', { agent, ...labels });
  return r;
}

// waitFor polls fn until it returns a truthy value, or fails after ms.
export async function waitFor(what, fn, ms = 5_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms}ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// frames parses an SSE body into its data frames (JSON) and comments.
export function frames(text) {
  const events = [];
  const comments = [];
  for (const block of text.split(/\n\n/)) {
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith(':')) comments.push(line);
    }
    if (data.length) events.push(JSON.parse(data.join('\n')));
  }
  return { events, comments };
}
