// The record page as a team triages on it, in Chromium against a real
// `triage serve`: its title as the heading and its id copyable; its status
// changed through the page's form (checked through the API) with the
// history that follows, and a refused change shown as the problem's
// message; the chart of its occurrences; 153 identical reports as one line,
// ×153, that expands; every job reachable, page after page; the run that
// produced a failure linked to its page and its trace id shown; a stored
// message that contradicts its fault's retryability said so; and no
// horizontal scroll at 390, 768, 1,280 and 1,920 px.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { openBrowser, screenshot, startServe, tempDir, waitFor } from './helpers.js';

// A policy whose one rule escalates every report (a job each: an
// escalation posted to the test's webhook) and says what the service's
// default policy said of a PAYLOAD_TOO_LARGE before it was fixed: the
// stored feedback contradicts its fault, as records stored then do.
const POLICY = `version: 1
max_attempts: 1000
rules:
  - name: always_escalate
    default: true
    actions: [escalate]
    next_action: escalate
    severity: high
    message: >-
      This service is temporarily unavailable; please try again in a few minutes.
`;

const N = 153;
const LONG_QUERY = `q_${'x'.repeat(120)}`;

/** The report every one of the N occurrences sends, at second i. */
function report(i) {
  return {
    agent_id: 'ingest_agent',
    timestamp: new Date(Date.UTC(2026, 11, 2, 10, 0, i)).toISOString(),
    status: 'error',
    release: '1.4.2',
    environment: 'production',
    data: {
      error_code: 'PAYLOAD_TOO_LARGE',
      message: 'The upload is over the 10 MiB limit.',
      query_id: LONG_QUERY,
      context: { table: 'uploads' },
      fault: { code: 'PAYLOAD_TOO_LARGE' },
    },
  };
}

test('the record page: title, status and history, chart, ×153, jobs paged, run and trace, widths', { timeout: 180_000 }, async (t) => {
  // The webhook the escalations are posted to: it takes every one.
  let escalations = 0;
  const hook = createServer((req, res) => {
    req.resume();
    escalations++;
    res.writeHead(200).end();
  });
  await new Promise((resolve) => hook.listen(0, '127.0.0.1', resolve));
  t.after(() => hook.close());
  const dir = tempDir(t);
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, POLICY);
  const svc = await startServe(t, {
    args: ['--rate-limit', '-1', '--policy', policy, '--webhook', `http://127.0.0.1:${hook.address().port}/hook`, '--escalation-throttle', '-1s'],
  });
  const api = async (method, path, body) => {
    const res = await fetch(`${svc.base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

  // 153 identical reports but for their time.
  let id;
  for (let i = 0; i < N; i++) {
    const r = await api('POST', '/v1/errors', report(i));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    id ??= r.body.error_id;
    assert.equal(r.body.error_id, id);
  }
  const rec = await api('GET', `/v1/errors/${id}`);
  assert.equal(rec.body.occurrence_count, N);
  assert.ok(rec.body.more_jobs && rec.body.jobs_next_cursor, 'more jobs than a record carries');

  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/#/errors/${id}`);

  // The title is the heading; the id is shown small, and copyable.
  await page.getByRole('heading', { level: 1, name: 'PAYLOAD_TOO_LARGE: The upload is over the 10 MiB limit.' }).waitFor();
  assert.equal(await page.getByTestId('record-id').innerText(), id);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.base });
  await page.getByRole('button', { name: 'Copy ID' }).click();
  await page.getByText('Copied.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), id);

  const section = (name) => page.getByRole('region', { name, exact: true });

  // The releases, and the stored message that contradicts its fault.
  assert.match(await page.locator('.facts').first().innerText(), /First release\s+1\.4\.2[\s\S]*Last release\s+1\.4\.2/);
  const told = section('What the user is told');
  assert.match(await told.innerText(), /Retryable\s+no/);
  assert.match(await told.getByTestId('contradiction').innerText(), /Contradiction: the message invites a retry, but the fault is not retryable/);

  // The chart: one series of the last 24 hours, by hour, counting all 153.
  const chart = section('Occurrences over time').getByRole('img');
  await chart.waitFor();
  assert.equal(await chart.getAttribute('data-bucket'), 'hour');
  assert.equal(await chart.getAttribute('data-total'), String(N));
  assert.match(await chart.getAttribute('aria-label'), /^153 occurrences from .*, by hour; at most 153 in one hour\.$/);

  // ×N: one line for the loaded occurrences, growing as older pages load,
  // to ×153; it expands to a row each.
  const occ = section('Occurrences');
  const groups = occ.locator('tbody.group');
  assert.equal(await groups.count(), 1);
  assert.equal(await occ.getByRole('button', { name: /^×20 / }).count(), 1);
  // Each click waits for its page: the group grows past what it held (a
  // click before the last page answered could find the button gone).
  const held = async () => Number(await groups.first().getAttribute('data-count'));
  while (await occ.getByRole('button', { name: 'Older occurrences' }).count()) {
    const before = await held();
    await occ.getByRole('button', { name: 'Older occurrences' }).click();
    await waitFor('a page of occurrences', async () => (await held()) > before);
  }
  const times = occ.getByRole('button', { name: /^×153 identical occurrences/ });
  await times.waitFor();
  assert.equal(await groups.count(), 1);
  assert.match(await occ.getByTestId('occ-shown').innerText(), /^All 153, as 1 line/);
  assert.equal(await times.getAttribute('aria-expanded'), 'false');
  assert.equal(await occ.locator('tr.member').count(), 0);
  await times.click();
  assert.equal(await times.getAttribute('aria-expanded'), 'true');
  assert.equal(await occ.locator('tr.member').count(), N);
  assert.equal(await occ.locator('tr.group-row td.num').innerText(), `1–${N}`);
  await times.click();
  assert.equal(await occ.locator('tr.member').count(), 0);

  // Every job reachable: the record's latest 20, then older pages to the
  // first, each once.
  const jobs = section('Jobs');
  const ids = async () => (await jobs.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.dataset.jobId))));
  assert.equal((await ids()).length, 20);
  assert.doesNotMatch(await jobs.innerText(), /Older jobs are not shown/);
  while (await jobs.getByRole('button', { name: 'Older jobs' }).count()) {
    const before = (await ids()).length;
    await jobs.getByRole('button', { name: 'Older jobs' }).click();
    await waitFor('a page of jobs', async () => (await ids()).length > before);
  }
  const all = await ids();
  assert.equal(all.length, N, 'one escalation job per occurrence');
  assert.equal(new Set(all).size, N);
  assert.deepEqual(all, [...all].sort((a, b) => b - a), 'the latest first');

  // A refused change: the problem's message, naming the member at fault.
  const status = section('Status');
  await status.getByLabel('Action').selectOption('ignore_until_count');
  await status.getByLabel('More occurrences').fill('1000001');
  await status.getByRole('button', { name: 'Apply', exact: true }).click();
  const refused = status.getByRole('alert');
  await refused.waitFor();
  assert.match(await refused.innerText(), /INVALID_REQUEST, HTTP 422/);
  assert.match(await refused.innerText(), /ignore\.count/);

  // Resolve in a release, with a note; then assign: the API says so, and
  // the history lists both, the latest first.
  assert.equal(await status.getByTestId('status').innerText(), 'unresolved');
  await status.getByLabel('Action').selectOption('resolve_in_release');
  await status.getByLabel('Release').fill('1.4.3');
  await status.getByLabel('Note (optional)').fill('fixed by the upload limit check');
  await status.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitFor('resolved', async () => (await status.getByTestId('status').innerText()) === 'resolved');
  assert.match(await status.innerText(), /resolved\s+in 1\.4\.3/);
  let after = await api('GET', `/v1/errors/${id}`);
  assert.equal(after.body.status, 'resolved');
  assert.deepEqual(after.body.resolution, { in_release: '1.4.3' });
  await status.getByLabel('Action').selectOption('assign');
  await status.getByLabel('Assignee (empty: no one)').fill('ana');
  await status.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitFor('assigned', async () => /assigned to ana/.test(await status.innerText()));
  after = await api('GET', `/v1/errors/${id}`);
  assert.equal(after.body.assignee, 'ana');
  const history = section('History').locator('ol.history > li');
  await waitFor('two transitions', async () => (await history.count()) === 2);
  assert.match(await history.nth(0).innerText(), /operator[\s\S]*resolved → resolved[\s\S]*assignee ana/);
  assert.match(await history.nth(1).innerText(), /operator[\s\S]*unresolved → resolved\s+in 1\.4\.3[\s\S]*fixed by the upload limit check/);
  const api_history = await api('GET', `/v1/errors/${id}/history`);
  assert.equal(api_history.body.transitions.length, 2);
  assert.equal(api_history.body.transitions[1].note, 'fixed by the upload limit check');

  // No horizontal scroll at any width, the long query wrapped, its full
  // text its title.
  const query = page.locator('.facts .cut', { hasText: LONG_QUERY }).first();
  assert.equal(await query.getAttribute('title'), LONG_QUERY);
  for (const width of [390, 768, 1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await times.click();
    const { scroll, client } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    assert.ok(scroll <= client, `${width} px: the page is ${scroll} px wide, its window ${client}`);
    await times.click();
  }
  // The page as it opens, for docs/dashboard.md: the top of it.
  await page.setViewportSize({ width: 1280, height: 1280 });
  await page.reload();
  await page.getByRole('heading', { level: 1 }).waitFor();
  await section('Occurrences over time').getByRole('img').waitFor();
  await section('History').locator('ol.history > li').nth(1).waitFor();
  await screenshot(page, 'dashboard-error');

  // The refused change's 422, which Chromium logs.
  await watch.check([/status of 422/]);
});

test('the record of a failed AG-UI run links to the run and shows its trace', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const runId = `run-${'r'.repeat(90)}`;
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const res = await fetch(`${svc.base}/v1/agents/echo/runs`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    },
    body: JSON.stringify({
      threadId: 't1',
      runId,
      messages: [{ id: 'm1', role: 'user', content: 'fail with PAYLOAD_TOO_LARGE' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  assert.match(await res.text(), /RUN_ERROR/);
  // The failure becomes an occurrence in a job after the run's end.
  const errorId = await waitFor('the run recorded', async () => {
    const r = await fetch(`${svc.base}/v1/runs/${encodeURIComponent(runId)}`);
    return r.ok ? (await r.json()).error_id : undefined;
  }, 20_000);

  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/#/errors/${errorId}`);
  await page.getByRole('heading', { level: 1, name: /^PAYLOAD_TOO_LARGE/ }).waitFor();
  const origin = page.getByRole('region', { name: 'Where it came from', exact: true });
  const link = origin.getByTestId('run-link');
  assert.equal(await link.getAttribute('href'), `#/runs/${runId}`);
  assert.equal(await link.getAttribute('title'), runId);
  assert.equal(await origin.getByTestId('trace-id').innerText(), traceId);
  // The service's own message agrees with the fault now: no retry invited.
  const told = page.getByRole('region', { name: 'What the user is told', exact: true });
  assert.match(await told.innerText(), /Retryable\s+no/);
  assert.doesNotMatch(await told.locator('.user-message').innerText(), /temporarily|try again (later|shortly|in\b)/i);
  assert.equal(await told.getByTestId('contradiction').count(), 0);
  await page.setViewportSize({ width: 390, height: 800 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  assert.equal(wide, false, 'the long run id widens the page at 390 px');
  await link.click();
  assert.match(page.url(), new RegExp(`#/runs/${runId}$`));
  await watch.check();
});
