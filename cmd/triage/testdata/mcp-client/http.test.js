// `triage serve`'s /mcp endpoint over streamable HTTP, behind API keys,
// driven by the official TypeScript client's StreamableHTTPClientTransport:
// a whole session with the answer streamed over SSE, a failure, tenant
// isolation, and the connection refused without a key.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { KEY_A, KEY_B, TIMEOUT, connectHTTP, expectFailure, fails, ok, progress, startServe, text } from './helpers.js';

test('triage serve: /mcp over streamable HTTP with API keys', { timeout: 60_000 }, async (t) => {
  const { url } = await startServe(t);

  await t.test('a whole session with X-API-Key', { timeout: TIMEOUT }, async (t) => {
    const { client, transport } = await connectHTTP(t, url, { 'X-API-Key': KEY_A });
    assert.equal(client.getServerVersion()?.name, 'triage-bridge');
    assert.ok(transport.sessionId, 'no Mcp-Session-Id');
    const { tools } = await client.listTools();
    assert.equal(tools.length, 12, tools.map((x) => x.name).join(', '));

    assert.deepEqual((await ok(client, 'agents_discover', {})).agents.map((a) => a.id), ['echo']);
    const s = await ok(client, 'sessions_create', { agentId: 'echo' });
    assert.equal(s.state, 'idle');
    const pr = progress(t);
    const p = await ok(client, 'sessions_prompt', { sessionId: s.sessionId, prompt: 'over http' }, { onprogress: pr.onprogress });
    assert.equal(p.text, 'You said: over http');
    assert.equal(p.stopReason, 'end_turn');
    const chunks = pr.chunks(client);
    assert.equal(chunks.map((n) => n.message).join(''), p.text, JSON.stringify(chunks));
    assert.deepEqual(chunks.map((n) => n.progress), [1, 2, 3, 4]);

    const st = await ok(client, 'sessions_status', { sessionId: s.sessionId });
    assert.equal(st.prompts, 1);
    assert.equal(st.state, 'idle');
    assert.equal((await ok(client, 'sessions_close', { sessionId: s.sessionId })).closed, true);
    assert.equal((await ok(client, 'sessions_close', { sessionId: s.sessionId })).closed, true);
    const d = await ok(client, 'tasks_delegate', { agentId: 'echo', prompt: 'in one call' });
    assert.equal(d.text, 'You said: in one call');
    assert.equal(d.state, 'closed');
    assert.deepEqual(client.errors, [], 'the client reported errors');
    await transport.terminateSession();
  });

  await t.test('failures are isError results over HTTP too', { timeout: TIMEOUT }, async (t) => {
    const { client } = await connectHTTP(t, url, { 'X-API-Key': KEY_A });
    const nf = await fails(client, 'sessions_prompt', { sessionId: 'abc-123', prompt: 'hi' });
    expectFailure(nf.error, {
      type: 'UPSTREAM', code: 'SESSION_NOT_FOUND', retryable: false, sessionValid: false,
      message: 'Session not found: abc-123', recovery: 'sessions_create',
    });
    assert.ok(nf.text.startsWith("Failed to submit prompt to session 'abc-123':\n"), nf.text);
    const rl = await fails(client, 'tasks_delegate', { agentId: 'echo', prompt: 'fail with RATE_LIMITED after 7s' });
    expectFailure(rl.error, { type: 'UPSTREAM', code: 'RATE_LIMITED', retryable: true, sessionValid: false, recovery: 'tasks_delegate' });
    assert.equal(rl.error.retryAfter, 7);
    assert.ok(rl.text.includes('retryable after 7s'), rl.text);
  });

  await t.test("another tenant cannot see acme's session", { timeout: TIMEOUT }, async (t) => {
    const acme = (await connectHTTP(t, url, { 'X-API-Key': KEY_A })).client;
    const globex = (await connectHTTP(t, url, { Authorization: `Bearer ${KEY_B}` })).client;
    const { sessionId: id } = await ok(acme, 'sessions_create', { agentId: 'echo' });
    for (const [tool, args] of [
      ['sessions_status', { sessionId: id }],
      ['sessions_prompt', { sessionId: id, prompt: 'mine now' }],
      ['sessions_cancel', { sessionId: id }],
    ]) {
      const { error } = await fails(globex, tool, args);
      expectFailure(error, {
        type: 'UPSTREAM', code: 'SESSION_NOT_FOUND', retryable: false, sessionValid: false, message: `Session not found: ${id}`,
      });
    }
    // Closing it is silent, and closes nothing.
    assert.equal((await ok(globex, 'sessions_close', { sessionId: id })).closed, true);
    assert.equal((await ok(acme, 'sessions_status', { sessionId: id })).state, 'idle');
    assert.equal((await ok(acme, 'sessions_prompt', { sessionId: id, prompt: 'still mine' })).text, 'You said: still mine');
  });

  // The error store's tools: what acme reports, acme finds and reads (its
  // root cause, its report), and globex does not see. Each answer's text is
  // written for a model; its structured content matches the tool's output
  // schema (the client checks it).
  await t.test("the error store's tools, with the tenant's rights", { timeout: TIMEOUT }, async (t) => {
    const acme = (await connectHTTP(t, url, { 'X-API-Key': KEY_A })).client;
    const globex = (await connectHTTP(t, url, { 'X-API-Key': KEY_B })).client;
    const call = async (client, name, args) => {
      const res = await client.callTool({ name, arguments: args });
      assert.notEqual(res.isError, true, `${name} failed: ${text(res)}`);
      return { out: res.structuredContent, text: text(res) };
    };
    const rep = await call(acme, 'errors_report', {
      agentId: 'planner', queryId: 'q_ts_1', message: 'Query timed out after 30s', errorType: 'query_error', errorCode: 'DB_TIMEOUT',
      context: { table: 'orders', password: 'hunter2hunter2' },
    });
    assert.match(rep.out.errorId, /^\S+$/);
    assert.ok(rep.text.startsWith(`Reported as error ${rep.out.errorId}\nRoot cause: `), rep.text);
    const found = await call(acme, 'errors_search', { agentId: 'planner', limit: 5 });
    assert.deepEqual(found.out.errors.map((e) => e.errorId), [rep.out.errorId]);
    const got = await call(acme, 'errors_get', { errorId: rep.out.errorId });
    assert.equal(got.out.analysis.rootCause.cause, rep.out.rootCause.cause);
    assert.equal(got.out.report.message, 'Query timed out after 30s');
    assert.equal(got.out.report.context.table, 'orders');
    assert.ok(!JSON.stringify(got.out).includes('hunter2') && !got.text.includes('hunter2'), 'a secret came back');
    assert.ok(got.text.includes('Message: Query timed out after 30s'), got.text);

    const nf = await fails(globex, 'errors_get', { errorId: rep.out.errorId });
    assert.equal(nf.error.code, 'NOT_FOUND');
    assert.ok(nf.text.startsWith(`Failed to get error '${rep.out.errorId}':`), nf.text);
    // globex's own records (its failed calls of the tests before) only.
    const theirsFound = (await call(globex, 'errors_search', {})).out.errors;
    assert.ok(!theirsFound.some((e) => e.errorId === rep.out.errorId || e.agentId === 'planner'), JSON.stringify(theirsFound));
    const bad = await fails(acme, 'errors_search', { severity: 'dire' });
    assert.equal(bad.error.code, 'INVALID_REQUEST');
    const upd = await call(acme, 'errors_update', { errorId: rep.out.errorId, status: 'resolved', note: 'fixed in #12' });
    assert.equal(upd.out.status, 'resolved');
    assert.deepEqual((await call(acme, 'errors_search', { status: 'resolved' })).out.errors.map((e) => [e.errorId, e.status]),
      [[rep.out.errorId, 'resolved']]);
    const theirs = await fails(globex, 'errors_update', { errorId: rep.out.errorId, status: 'ignored' });
    assert.equal(theirs.error.code, 'NOT_FOUND');
    const regressed = await fails(acme, 'errors_update', { errorId: rep.out.errorId, status: 'regressed' });
    assert.equal(regressed.error.code, 'INVALID_REQUEST');
    assert.deepEqual(acme.errors, [], 'the client reported errors');
  });

  // No key is 401; a key the server does not know is 403 (the key was
  // read, and refused), each with the server's problem+json as the message.
  for (const [name, headers, status, code] of [
    ['no key', {}, 401, ''],
    ['a wrong key', { 'X-API-Key': 'wrong-key-0123456789' }, 403, 'TENANT_UNAUTHORIZED'],
  ]) {
    await t.test(`${name}: the connection fails with ${status}`, { timeout: TIMEOUT }, async (t) => {
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
      const client = new Client({ name: 'triage-mcp-client-test', version: '1.0.0' });
      t.after(() => client.close());
      await assert.rejects(client.connect(transport), (err) => {
        assert.ok(err instanceof StreamableHTTPError, `${err?.constructor?.name}: ${err}`);
        assert.equal(err.code, status, String(err));
        assert.match(err.message, /^Streamable HTTP error: Error POSTing to endpoint: \{/);
        assert.ok(err.message.includes(`"status":${status}`), err.message);
        if (code) assert.ok(err.message.includes(`"code":"${code}"`), err.message);
        return true;
      });
    });
  }
});
