// CORS, in Chromium: a page served from another loopback origin (a tiny
// static server this test starts on another port) reports an error,
// lists the records, reads a problem and streams an AG-UI run from
// `triage serve --cors-origins ORIGIN` with fetch, reading the SSE body
// itself; the same page is refused by the browser when CORS is off, and
// a page on an origin the list does not name is refused while it is on.
// "Refused" means what a browser does: fetch rejects with a TypeError,
// Chromium logs the CORS error, and the preflighted request never reaches
// the service (nothing is recorded).

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { defer, openBrowser, report, startServe, waitFor } from './helpers.js';

const KEY = 'key-acme-0123456789abcdef';

// The page: docs/service.md's browser example (CORS), as a page would
// hold it. window.triage(api, key) returns its calls.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Another origin's app</title></head>
<body><main><h1>Another origin's app</h1></main>
<script>
window.triage = (api, key) => {
  const headers = { Authorization: 'Bearer ' + key };

  // Report an error; a retry sends the same Idempotency-Key.
  async function reportError(report, idempotencyKey = crypto.randomUUID()) {
    const res = await fetch(api + '/v1/errors', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify(report),
    });
    return { status: res.status, replayed: res.headers.get('Idempotent-Replayed'), body: await res.json() };
  }

  async function listErrors(query) {
    const res = await fetch(api + '/v1/errors?' + new URLSearchParams(query), { headers });
    return { status: res.status, body: await res.json() };
  }

  // A problem (RFC 9457) and the headers a client reads off it.
  async function withoutKey() {
    const res = await fetch(api + '/v1/errors');
    return { status: res.status, type: res.headers.get('Content-Type'), authenticate: res.headers.get('WWW-Authenticate'), body: await res.json() };
  }

  // Run an agent as AG-UI events over SSE: fetch, and read the stream.
  async function run(agent, text) {
    const res = await fetch(api + '/v1/agents/' + agent + '/runs', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId: 'thread-1', runId: crypto.randomUUID(), state: {}, tools: [], context: [], forwardedProps: {},
        messages: [{ id: 'm1', role: 'user', content: text }],
      }),
    });
    if (!res.ok) throw new Error('run: ' + res.status);
    const events = [];
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\\n\\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\\n');
        if (data) events.push(JSON.parse(data));
      }
    }
    return { type: res.headers.get('Content-Type'), events };
  }

  return { reportError, listErrors, withoutKey, run };
};
</script></body></html>`;

/** Serves PAGE at / on a free loopback port (another origin than the service's); stopped after the test. */
async function startPage(t) {
  const server = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  defer(t, () => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${server.address().port}`;
}

/** What the service recorded for the tenant, asked from Node (no CORS there). */
async function recorded(svc) {
  const res = await fetch(`${svc.base}/v1/errors`, { headers: { 'X-API-Key': KEY } });
  assert.equal(res.status, 200);
  const runs = await fetch(`${svc.base}/v1/runs`, { headers: { 'X-API-Key': KEY } });
  assert.equal(runs.status, 200);
  return { errors: (await res.json()).total, runs: (await runs.json()).runs.length };
}

/** Calls fn in page with the service's address; resolves to its result, or to {refused: message} when fetch rejects. */
function call(page, base, fn, ...args) {
  return page.evaluate(
    async ({ base, key, fn, args }) => {
      try {
        return await window.triage(base, key)[fn](...args);
      } catch (e) {
        return { refused: `${e.name}: ${e.message}` };
      }
    },
    { base, key: KEY, fn, args },
  );
}

const CORS_BLOCKED = /blocked by CORS policy/;

test('CORS on: a page on a listed origin reports, lists, reads problems and streams a run', { timeout: 90_000 }, async (t) => {
  const origin = await startPage(t);
  const stranger = await startPage(t); // another port: an origin the list does not name
  const svc = await startServe(t, { keys: `acme=${KEY}`, args: ['--cors-origins', origin] });
  const { context, page, watch } = await openBrowser(t, origin);
  await page.goto(`${origin}/`);

  // Report: preflighted (JSON, Authorization, Idempotency-Key), then 201;
  // the same key again is the stored answer, and the page can read
  // Idempotent-Replayed (an exposed header).
  const r = report('db_timeout');
  const first = await call(page, svc.base, 'reportError', r, 'browser-report-1');
  assert.equal(first.status, 201, JSON.stringify(first));
  assert.match(first.body.error_id, /^err_/);
  assert.equal(first.replayed, null);
  const again = await call(page, svc.base, 'reportError', r, 'browser-report-1');
  assert.equal(again.body.error_id, first.body.error_id);
  assert.equal(again.replayed, 'true');

  const list = await call(page, svc.base, 'listErrors', { agent_id: r.agent_id });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.records.map((s) => s.error_id), [first.body.error_id]);

  // A problem is readable too: its status, type, body and WWW-Authenticate.
  const refused = await call(page, svc.base, 'withoutKey');
  assert.equal(refused.status, 401);
  assert.equal(refused.type, 'application/problem+json');
  assert.equal(refused.body.code, 'TENANT_REQUIRED');
  assert.match(refused.authenticate, /^Bearer/);

  // An AG-UI run, streamed: every event, to RUN_FINISHED; and a failing
  // run's RUN_ERROR with its retry delay.
  const ok = await call(page, svc.base, 'run', 'echo', 'hello from another origin');
  assert.equal(ok.type, 'text/event-stream');
  const types = ok.events.map((e) => e.type);
  assert.equal(types[0], 'RUN_STARTED');
  assert.equal(types.at(-1), 'RUN_FINISHED');
  const text = ok.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('');
  assert.equal(text, 'You said: hello from another origin');
  const failed = await call(page, svc.base, 'run', 'echo', 'fail with RATE_LIMITED after 7s');
  const last = failed.events.at(-1);
  assert.equal(last.type, 'RUN_ERROR');
  assert.equal(last.code, 'RATE_LIMITED');
  assert.equal(last.metadata.retry_after, 7);
  // The report's record, and the failed run's (every failure is one; it
  // is saved as the run ends).
  await waitFor('the failed run recorded', async () => JSON.stringify(await recorded(svc)) === '{"errors":2,"runs":2}');

  // A page on an origin the list does not name: the browser refuses it,
  // and the preflighted report never reaches the service.
  const other = await context.newPage();
  await other.goto(`${stranger}/`);
  const blocked = await call(other, svc.base, 'reportError', report('service_outage'));
  assert.match(blocked.refused ?? JSON.stringify(blocked), /^TypeError: Failed to fetch/);
  const blockedRun = await call(other, svc.base, 'run', 'echo', 'hello');
  assert.match(blockedRun.refused ?? JSON.stringify(blockedRun), /^TypeError: Failed to fetch/);
  assert.deepEqual(await recorded(svc), { errors: 2, runs: 2 });

  // The only console errors are the 401 the page asked for and the
  // stranger's CORS refusals.
  const unexpected = watch.trouble.console.filter(
    (m) => !CORS_BLOCKED.test(m) && !/Failed to load resource: the server responded with a status of 401/.test(m) && !/net::ERR_FAILED/.test(m),
  );
  assert.deepEqual(unexpected, []);
  assert.ok(watch.trouble.console.some((m) => CORS_BLOCKED.test(m) && m.includes(stranger)), watch.trouble.console.join('\n'));
  assert.deepEqual(watch.trouble.errors, []);
});

test('CORS off (the default): the browser refuses every call of a page on another origin', { timeout: 60_000 }, async (t) => {
  const origin = await startPage(t);
  const svc = await startServe(t, { keys: `acme=${KEY}` });
  const { page, watch } = await openBrowser(t, origin);
  await page.goto(`${origin}/`);

  for (const [fn, args] of [
    ['reportError', [report('db_timeout')]],
    ['listErrors', [{}]],
    ['run', ['echo', 'hello']],
  ]) {
    const got = await call(page, svc.base, fn, ...args);
    assert.match(got.refused ?? JSON.stringify(got), /^TypeError: Failed to fetch/, fn);
  }
  // The preflighted calls never reached the service.
  assert.deepEqual(await recorded(svc), { errors: 0, runs: 0 });
  const blocked = watch.trouble.console.filter((m) => CORS_BLOCKED.test(m));
  assert.equal(blocked.length, 3, watch.trouble.console.join('\n'));
  assert.deepEqual(watch.trouble.errors, []);
});
