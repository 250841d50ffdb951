// The dashboard's errors, in Chromium, against `triage serve`: the page
// loads with no console error; errors posted through the API appear live;
// filters and pagination go through GET /v1/errors; the live stream
// resumes with Last-Event-ID after the service restarts; a record opens
// with its report, root cause, actions, occurrences and jobs.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from 'node:http';

import { openBrowser, report, screenshot, startServe, waitFor } from './helpers.js';

/**
 * The page's rows: each record's id and its parts, in the order the table
 * once showed them: title, agent, type, severity, count, last seen, next
 * action (the words only screen readers hear left out).
 */
async function rows(page) {
  return page.$$eval('ul.error-list > li', (lis) =>
    lis.map((li) => {
      const text = (sel) => {
        const el = li.querySelector(sel)?.cloneNode(true);
        for (const h of el?.querySelectorAll('.vh, [aria-hidden="true"], .err-window') ?? []) h.remove();
        return el?.textContent.trim() ?? '';
      };
      const parts = ['[data-field=title]', '[data-field=agent]', '[data-field=type]', '.badge[data-kind=severity]'];
      parts.push('[data-field=count]', '[data-field=seen]', '.badge[data-kind=action]');
      return { id: li.dataset.errorId, cells: parts.map(text) };
    }),
  );
}

/** A report of the database timeout, from another agent and query (another record). */
function another(i) {
  const r = report('db_timeout');
  return { ...r, agent_id: `worker_${String(i).padStart(2, '0')}`, data: { ...r.data, query_id: `q_page_${i}` } };
}

test('the errors page: live, filtered, paginated, resumed', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);

  // The page, its headers, and an empty list.
  const res = await page.goto(`${svc.base}/`);
  assert.equal(res.status(), 200);
  assert.match(res.headers()['content-security-policy'], /script-src 'self'/);
  assert.equal(res.headers()['cache-control'], 'no-cache');
  await page.getByText('Live').waitFor();
  await page.getByText('No errors yet.').waitFor();
  await page.evaluate(() => {
    window.__samePage = true; // gone if the page reloads
  });

  // An error posted through the API appears, without a reload.
  const fb = await svc.post(report('db_timeout'));
  const row = page.locator(`li[data-error-id="${fb.error_id}"]`);
  await row.waitFor();
  const [first] = await rows(page);
  assert.equal(first.id, fb.error_id);
  assert.deepEqual(first.cells.slice(1), ['query_engine', 'query error', 'medium', '1', 'just now', 'resume']);
  assert.equal(await page.evaluate(() => window.__samePage), true, 'the page reloaded');

  // Two more, of other severities and next actions; the same one again
  // counts.
  const outage = await svc.post(report('service_outage'));
  const ambiguous = await svc.post(report('ambiguous_input'));
  await svc.post({ ...report('db_timeout'), timestamp: '2025-08-08T12:25:05Z' });
  await waitFor('three records, the timeout twice', async () => {
    const r = await rows(page);
    return r.length === 3 && r.find((x) => x.id === fb.error_id)?.cells[4] === '2';
  });
  await svc.post(report('chart_incompatible'));
  await svc.post(report('schema_missing'));
  await waitFor('five records', async () => (await rows(page)).length === 5);
  const byId = Object.fromEntries((await rows(page)).map((r) => [r.id, r.cells]));
  assert.deepEqual(byId[outage.error_id].slice(1, 5), ['context_manager', 'system error', 'high', '1']);
  assert.equal(byId[outage.error_id][6], 'escalate');
  assert.deepEqual(byId[ambiguous.error_id].slice(2, 4), ['input error', 'low']);
  assert.equal(byId[ambiguous.error_id][6], 'await user');

  // Filters: each is a query of GET /v1/errors, kept in the URL.
  const listed = () => watch.trouble.requests.filter((r) => r.url().includes('/v1/errors?')).at(-1)?.url() ?? '';
  await page.getByLabel('Severity').selectOption('high');
  await waitFor('the high one only', async () => (await rows(page)).map((r) => r.id).join() === outage.error_id);
  assert.match(listed(), /severity=high/);
  assert.match(page.url(), /#\/\?severity=high$/);
  await page.getByLabel('Severity').selectOption('');
  await page.getByLabel('Agent').fill('input_parser');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitFor('the input parser only', async () => (await rows(page)).map((r) => r.id).join() === ambiguous.error_id);
  assert.match(listed(), /agent_id=input_parser/);
  await page.getByLabel('Agent').fill('');
  await page.locator('select[name=error_type]').selectOption('system_error');
  await page.getByLabel('Since').selectOption('1h');
  await waitFor('system errors of the last hour', async () => (await rows(page)).map((r) => r.id).join() === outage.error_id);
  assert.match(listed(), /error_type=system_error/);
  const since = Date.parse(new URL(listed()).searchParams.get('since'));
  assert.ok(Math.abs(Date.now() - 3600_000 - since) < 60_000, `since ${new Date(since).toISOString()}`);
  await page.locator('select[name=error_type]').selectOption('query_error');
  await page.getByText('No errors match these filters.').waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitFor('all five again', async () => (await rows(page)).length === 5);

  // Pagination: 25 a page, by cursor.
  let newest;
  for (let i = 0; i < 24; i++) newest = await svc.post(another(i));
  await waitFor('a full first page, the newest first', async () => {
    const r = await rows(page);
    return r.length === 25 && r[0].id === newest.error_id;
  });
  const page1 = (await rows(page)).map((r) => r.id);
  await page.getByRole('button', { name: 'Older →' }).click();
  await waitFor('the second page', async () => (await rows(page)).length === 4);
  const page2 = (await rows(page)).map((r) => r.id);
  assert.equal(new Set([...page1, ...page2]).size, 29, 'the pages overlap');
  assert.match(listed(), /cursor=/);
  assert.equal(await page.getByText('Page 2').count(), 1);
  assert.equal(await page.getByRole('button', { name: 'Older →' }).isDisabled(), true);
  await page.getByRole('button', { name: '← Newer' }).click();
  await waitFor('the first page again', async () => (await rows(page)).map((r) => r.id).join() === page1.join());

  // The stream resumes after a restart, from the last event it had: its
  // reconnection is held until the service is back and has saved a new
  // error, which must come in the replay that Last-Event-ID asks for.
  const eventRequests = () => watch.trouble.requests.filter((r) => new URL(r.url()).pathname === '/v1/events');
  const lastId = await page.evaluate(async () => {
    const res = await fetch('/v1/events', { headers: { 'Last-Event-ID': '0' } });
    // The replay's ids: the last one is the stream's last event id.
    const reader = res.body.getReader();
    let text = '';
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const { value } = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r({}), 300))]);
      if (!value) break;
      text += new TextDecoder().decode(value);
    }
    reader.cancel();
    return [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]).at(-1);
  });
  let release;
  const held = new Promise((r) => {
    release = r;
  });
  let heldRequest;
  await page.route('**/v1/events', async (route) => {
    heldRequest = route.request();
    await held;
    await route.continue();
  });
  await svc.restart();
  await page.getByText('Reconnecting…').waitFor();
  await waitFor('the reconnection, held', () => heldRequest !== undefined);
  const late = await svc.post(report('llm_rate_limited'));
  release();
  await page.locator(`li[data-error-id="${late.error_id}"]`).waitFor();
  await page.getByText('Live').waitFor();
  assert.equal(await heldRequest.headerValue('last-event-id'), lastId);
  assert.ok(eventRequests().length >= 2);
  assert.equal(await page.evaluate(() => window.__samePage), true, 'the page reloaded');
  await page.unroute('**/v1/events');

  await watch.check();
});

test('one error: report, root cause, actions, occurrences and jobs', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);
  // The agent's callback refuses its retry (404), so that the retry is a
  // job the page follows to its end.
  const callback = createServer((req, res) => { req.resume(); res.writeHead(404).end(); });
  await new Promise((resolve) => callback.listen(0, '127.0.0.1', resolve));
  t.after(() => callback.close());
  const put = await fetch(`${svc.base}/v1/agents/query_engine`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ callback_url: `http://127.0.0.1:${callback.address().port}/retry` }),
  });
  assert.equal(put.status, 200);
  const fb = await svc.post(report('db_timeout'));
  assert.equal(fb.retry.by, 'callback');
  await page.goto(`${svc.base}/`);
  await page.locator(`li[data-error-id="${fb.error_id}"] a.err-title`).click();
  assert.match(page.url(), new RegExp(`#/errors/${fb.error_id}$`));
  await page.getByRole('heading', { level: 1, name: 'DB_TIMEOUT: Query timed out after 30s' }).waitFor();
  assert.equal(await page.getByTestId('record-id').innerText(), fb.error_id);

  const section = (name) => page.getByRole('region', { name, exact: true });
  // The report and the feedback.
  assert.equal(await section('Report').locator('.message').innerText(), 'Query timed out after 30s');
  assert.match(await section('Report').innerText(), /DB_TIMEOUT/);
  assert.equal(await page.locator('.user-message').innerText(), fb.user_message);
  assert.match(await section('What the user is told').innerText(), /TIMEOUT \(HTTP 504\)/);
  // The root cause, with its evidence.
  assert.match(await section('Root cause').innerText(), /scope\s+\(80% confidence\)/i);
  assert.deepEqual(await section('Root cause').locator('li').allInnerTexts(), fb.root_cause.evidence);
  // The recovery: suggestions, and the automated actions.
  assert.deepEqual(await section('Recovery').locator('code').allInnerTexts(), fb.automated_actions);
  // The occurrence, with each action's outcome.
  const occurrences = section('Occurrences').locator('tbody tr.group-row');
  assert.equal(await occurrences.count(), 1);
  const outcomes = await occurrences.first().locator('.outcomes li').allInnerTexts();
  assert.deepEqual(outcomes.map((o) => o.split(/\s+/).slice(0, 2).join(' ')), ['retry:2 done', 'use_cache:false skipped', 'reduce_scope:date_range=12m done']);

  // The retry job: scheduled, then run (the callback answers 404, so its
  // attempt fails for good: River cancels it); the page follows its
  // state. River's leader makes a scheduled job available every 5 s.
  const job = section('Jobs').locator('tbody tr').first();
  assert.match(await job.innerText(), /retry/);
  await page.locator('tr[data-job-state="cancelled"]').waitFor({ timeout: 20_000 });
  assert.match(await job.innerText(), /answered 404/);
  assert.match(await job.innerText(), /1 of 5/);
  assert.doesNotMatch(await job.innerText(), /succeeded/);

  // The same error again: the page counts it, live, with its attempt.
  await svc.post({ ...report('db_timeout'), timestamp: '2025-08-08T12:25:05Z' });
  await waitFor('two occurrences', async () => (await page.getByTestId('count').innerText()) === '2');
  // Identical but for its time: one line, ×2, attempts 1 and 2.
  await waitFor('the second occurrence grouped', async () => /×2/.test(await occurrences.first().innerText()));
  assert.equal(await occurrences.count(), 1);
  assert.equal(await occurrences.first().locator('td.num').innerText(), '1–2');

  // An error that is not there is the API's 404 problem.
  await page.goto(`${svc.base}/#/errors/err_0000000000000000`);
  await page.getByText('No such error.').waitFor();
  await watch.check([/Failed to load resource: the server responded with a status of 404/]);
});
