// The runs and the overview, in Chromium, against `triage serve`: AG-UI
// runs of the default echo agent, finished and failed, appear on the runs
// page as they end (the feed's `run` events); its filters are the query
// of GET /v1/runs and stay in the URL; a run's page shows the timeline of
// its AG-UI events (their outline, no content) and links its record, whose report names the run back; the overview says
// each agent's failure rate and each code's share of the runs, and the
// records new or regressed in its range; no page scrolls sideways at
// 390, 768, 1,280 or 1,920 px, a long id is cut with the whole of it on
// hover and focus.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openBrowser, report, screenshot, startServe, waitFor } from './helpers.js';

/** Runs agent with prompt as runId through POST /v1/agents/{agent}/runs, reading its stream to the end; returns the last event's type. */
async function run(base, runId, prompt, agent = 'echo') {
  const res = await fetch(`${base}/v1/agents/${agent}/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: `t-${runId}`.slice(0, 128),
      runId,
      state: {},
      messages: [{ id: `m-${runId}`, role: 'user', content: prompt }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const types = [...text.matchAll(/"type":"([A-Z_]+)"/g)].map((m) => m[1]);
  return types.at(-1);
}

/** GET path of the API, as JSON. */
async function get(base, path) {
  const res = await fetch(`${base}${path}`);
  const text = await res.text();
  assert.equal(res.status, 200, `GET ${path}: ${text}`);
  return JSON.parse(text);
}

/** The runs page's rows: each run's id, outcome and cells. */
async function rows(page) {
  return page.$$eval('table.runs tbody tr', (trs) =>
    trs.map((tr) => ({
      id: tr.dataset.runId,
      outcome: tr.dataset.outcome,
      cells: [...tr.querySelectorAll('td')].map((td) => td.innerText.trim()),
    })),
  );
}

/** Fails unless the page is no wider than the window (no horizontal scroll). */
async function noSideways(page, what) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${what}: the page is ${scroll}px wide in a ${client}px window`);
}

const LONG = `run-${'long'.repeat(30)}`; // 124 characters: AG-UI ids are at most 128 bytes

test('the runs, a run and the overview', { timeout: 120_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);

  await page.goto(`${svc.base}/#/runs`);
  await page.getByText('Live').waitFor();
  await page.getByText('No runs yet.').waitFor();
  assert.equal(await page.locator('nav[aria-label="Pages"] a[aria-current="page"]').innerText(), 'Runs');

  // Runs end, and appear without a reload: two finished, two failed (a
  // rate limit, a timeout), and one with a long id.
  assert.equal(await run(svc.base, 'run-ok-1', 'hello'), 'RUN_FINISHED');
  assert.equal(await run(svc.base, 'run-rate', 'fail with RATE_LIMITED after 3s'), 'RUN_ERROR');
  assert.equal(await run(svc.base, 'run-ok-2', 'hi there'), 'RUN_FINISHED');
  assert.equal(await run(svc.base, 'run-timeout', 'fail with TIMEOUT'), 'RUN_ERROR');
  assert.equal(await run(svc.base, LONG, 'fail with SERVICE_UNAVAILABLE'), 'RUN_ERROR');
  // Each run is listed live when it starts and again when it ends: wait
  // for the five ends (a run's end may reach the page after its start's
  // row, and after the next run's).
  await waitFor('five runs, listed live with their ends', async () => {
    const r = await rows(page);
    return r.length === 5 && r.every((x) => x.outcome !== 'running');
  });
  const listed = await rows(page);
  assert.deepEqual(
    listed.map((r) => [r.id, r.outcome]),
    [
      [LONG, 'failed'],
      ['run-timeout', 'failed'],
      ['run-ok-2', 'finished'],
      ['run-rate', 'failed'],
      ['run-ok-1', 'finished'],
    ],
  );
  const rate = listed.find((r) => r.id === 'run-rate');
  assert.equal(rate.cells[1], 'echo');
  assert.equal(rate.cells[2], 'failed');
  assert.match(rate.cells[3], /^RATE_LIMITED/);
  assert.match(rate.cells[4], /^\d+(\.\d)? (ms|s)$/);
  assert.equal(rate.cells[5], 'just now');

  // Each failed run becomes an occurrence of a record (a job after its
  // end), and the list links it once it is.
  const linked = await waitFor(
    'the failed runs linked to their records',
    async () => {
      const runs = (await get(svc.base, '/v1/runs?outcome=failed')).runs;
      return runs.length === 3 && runs.every((r) => r.error_id) ? runs : null;
    },
    30_000,
  );
  const timeoutRecord = linked.find((r) => r.run_id === 'run-timeout').error_id;
  const rateRecord = linked.find((r) => r.run_id === 'run-rate').error_id;
  await page.goto(`${svc.base}/#/runs`);
  await page.locator('tr[data-run-id="run-timeout"] a', { hasText: 'record' }).waitFor();
  await screenshot(page, 'dashboard-runs');

  // Filters: each is a query of GET /v1/runs, kept in the URL.
  const lastList = () => watch.trouble.requests.filter((r) => r.url().includes('/v1/runs?')).at(-1)?.url() ?? '';
  await page.getByLabel('Outcome').selectOption('failed');
  await waitFor('the failed runs only', async () => (await rows(page)).every((r) => r.outcome === 'failed') && (await rows(page)).length === 3);
  assert.match(lastList(), /outcome=failed/);
  assert.match(page.url(), /#\/runs\?outcome=failed$/);
  await page.getByLabel('Code').fill('RATE_LIMITED');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitFor('the rate-limited run only', async () => (await rows(page)).map((r) => r.id).join() === 'run-rate');
  assert.match(lastList(), /outcome=failed&code=RATE_LIMITED/);
  assert.match(page.url(), /#\/runs\?outcome=failed&code=RATE_LIMITED$/);
  // The URL alone is the view: a reload keeps it.
  await page.reload();
  await waitFor('the filtered view after a reload', async () => (await rows(page)).map((r) => r.id).join() === 'run-rate');
  assert.equal(await page.getByLabel('Code').inputValue(), 'RATE_LIMITED');
  await page.getByLabel('Since').selectOption('1h');
  await waitFor('since in the URL', async () => /since=1h/.test(page.url()));
  await waitFor('since a time in the query', async () => /since=\d{4}-\d\d-\d\dT/.test(lastList()));
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitFor('all five again', async () => (await rows(page)).length === 5);
  assert.match(page.url(), /#\/runs$/);

  // Pages of runs by cursor: 25 a page, so 21 more runs make two.
  for (let i = 0; i < 21; i++) await run(svc.base, `run-more-${String(i).padStart(2, '0')}`, `hello ${i}`);
  await waitFor('a full first page', async () => (await rows(page)).length === 25);
  await page.getByRole('button', { name: 'Older →' }).click();
  await waitFor('the second page', async () => (await rows(page)).map((r) => r.id).join() === 'run-ok-1');
  assert.match(page.url(), /#\/runs\?cursor=/);
  await page.getByRole('button', { name: '← Newer' }).click();
  await waitFor('back to the first page', async () => (await rows(page)).length === 25);

  // A run's page, opened from the list by the keyboard: its facts, its
  // events, its record linked.
  await page.locator('tr[data-run-id="run-timeout"] td.run a').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/runs\/run-timeout$/);
  await page.getByRole('heading', { name: 'Run run-timeout' }).waitFor();
  const events = page.getByRole('list', { name: "The run's events, oldest first" });
  await events.waitFor();
  const eventText = await events.innerText();
  assert.match(eventText, /RUN_STARTED[\s\S]*echo started on thread t-run-timeout/);
  assert.match(eventText, /RUN_ERROR[\s\S]*TIMEOUT/);
  assert.match(eventText, /recorded\s+as an occurrence of record/);
  // The timeline is the outline of the run's AG-UI stream the service kept
  // with its end (GET /v1/runs/{run_id}'s events): each event's type and
  // time after the start, the step, the RUN_ERROR's code; then its record.
  const timeoutRun = await get(svc.base, '/v1/runs/run-timeout');
  assert.deepEqual(timeoutRun.events.map((e) => e.type), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR']);
  const timeline = page.getByTestId('run-timeline');
  const entries = async () => timeline.locator(':scope > li').evaluateAll((lis) => lis.map((li) => [li.dataset.type ?? '', li.innerText.replace(/\s+/g, ' ').trim()]));
  const shown = await entries();
  assert.deepEqual(shown.map(([type]) => type), ['RUN_STARTED', 'STEP_STARTED', 'RUN_ERROR', '']);
  assert.match(shown[0][1], /^RUN_STARTED \+?\d/);
  assert.match(shown[1][1], /step echo/);
  assert.match(shown[2][1], /code TIMEOUT/);
  assert.match(shown[3][1], /^recorded as an occurrence of record/);
  assert.equal(await timeline.locator('time').first().getAttribute('datetime'), timeoutRun.events[0].at);
  assert.equal(await page.getByTestId('run-record').innerText(), timeoutRecord);
  assert.match(await page.locator('.facts').first().innerText(), /Outcome\s+failed/);

  // Its record, and back: the record's report names the run
  // (data.context.run_id), which the record page links by #/runs/{run_id}.
  await page.getByTestId('run-record-event').click();
  await page.waitForURL(new RegExp(`#/errors/${timeoutRecord}$`));
  await page.locator('#error-title').waitFor();
  const record = await get(svc.base, `/v1/errors/${timeoutRecord}`);
  assert.equal(record.report.data.context.run_id, 'run-timeout');
  await page.getByText('Context', { exact: true }).click();
  await page.locator('pre.json', { hasText: '"run_id": "run-timeout"' }).waitFor();
  await page.goto(`${svc.base}/#/runs/run-timeout`);
  await page.getByRole('heading', { name: 'Run run-timeout' }).waitFor();

  // A finished run: its answer's length, no record; its message's content
  // events are one line, counted, and none of its text is kept.
  await page.goto(`${svc.base}/#/runs/run-ok-1`);
  await page.getByText(/RUN_FINISHED/).waitFor();
  assert.match(await events.innerText(), /answered \d+ bytes/);
  assert.equal(await page.getByTestId('run-record').innerText(), '—');
  const okRun = await get(svc.base, '/v1/runs/run-ok-1');
  const okTypes = ['RUN_STARTED', 'STEP_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'STEP_FINISHED', 'RUN_FINISHED'];
  assert.deepEqual(okRun.events.map((e) => e.type), okTypes);
  assert.deepEqual((await entries()).map(([type]) => type), okTypes);
  const content = okRun.events[3];
  assert.match((await entries())[3][1], new RegExp(`^TEXT_MESSAGE_CONTENT${content.count > 1 ? ` ×${content.count}` : ''} \\+`));
  assert.match((await entries())[2][1], new RegExp(`role assistant message ${content.message_id}`));
  assert.doesNotMatch(JSON.stringify(okRun), /You said/);
  assert.doesNotMatch(await page.locator('main').innerText(), /You said/);
  await screenshot(page, 'dashboard-run', { fullPage: true });

  // A long stream keeps its first and last 100 events and says how many
  // between were not kept (here the service's answer for a run made up,
  // as such a stream would be stored).
  await page.route('**/v1/runs/run-long', (route) => {
    const at = (ms) => new Date(Date.parse(okRun.started_at) + ms).toISOString();
    const ev = (i) => ({ type: i % 2 ? 'STEP_FINISHED' : 'STEP_STARTED', at: at(i), count: 1, step_name: `step-${i}` });
    const body = { ...okRun, run_id: 'run-long', events: [...Array(100).keys()].map(ev).concat([...Array(100).keys()].map((i) => ev(i + 5100))), events_omitted: 5000 };
    return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  });
  await page.goto(`${svc.base}/#/runs/run-long`);
  await page.getByTestId('events-omitted').waitFor();
  assert.equal(await page.getByTestId('events-omitted').innerText(), '5,000 events not kept (a run keeps its first and last 100)');
  const long = await entries();
  assert.equal(long.length, 201);
  assert.match(long[99][1], /step step-99/);
  assert.equal(long[100][0], '');
  assert.match(long[101][1], /step step-5100/);
  await page.unroute('**/v1/runs/run-long');
  // An unknown run is the API's 404.
  await page.goto(`${svc.base}/#/runs/never-ran`);
  await page.locator('.problem[data-code="NOT_FOUND"]').waitFor();

  // A record regressed: reported, resolved, reported again.
  const fb = await svc.post(report('db_timeout'));
  const patch = await fetch(`${svc.base}/v1/errors/${fb.error_id}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'resolved' }),
  });
  assert.equal(patch.status, 200, await patch.text());
  await svc.post({ ...report('db_timeout'), timestamp: '2025-08-08T12:25:05Z' });
  assert.equal((await get(svc.base, `/v1/errors/${fb.error_id}`)).status, 'regressed');

  // The overview: echo's failure rate (3 failed of 26 ended runs), the
  // codes' shares of the runs (one failed run each), the records new and
  // regressed.
  await page.goto(`${svc.base}/#/overview`);
  assert.equal(await page.locator('nav[aria-label="Pages"] a[aria-current="page"]').innerText(), 'Overview');
  const echo = page.locator('[data-testid="agent-rates"] tr[data-agent="echo"]');
  await echo.waitFor();
  // The row may be drawn before the runs' totals have counted the last
  // run's end: wait for them, then hold them to the figures.
  const echoCells = async () => (await echo.locator('th, td').allInnerTexts()).slice(0, 4).map((s) => s.trim());
  await waitFor("echo's totals, the last run counted", async () => (await echoCells())[1] === '26');
  assert.deepEqual(await echoCells(), ['echo', '26', '3', '12 %']);
  assert.equal(await page.getByTestId('runs-total').innerText(), '26');
  const codes = page.getByTestId('code-rates');
  // The runs' three codes, then the report's (DB_TIMEOUT), of no run.
  const codeRows = async () =>
    codes.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].slice(0, 3).map((c) => c.innerText.trim())),
    );
  await waitFor('four codes', async () => (await codeRows()).length === 4);
  assert.deepEqual(await codeRows(), [
    ['RATE_LIMITED', '1', '3.8 %'],
    ['SERVICE_UNAVAILABLE', '1', '3.8 %'],
    ['TIMEOUT', '1', '3.8 %'],
    [report('db_timeout').data.error_code, '0', '0 %'],
  ]);
  // The occurrences over time say themselves in words.
  const spark = codes.locator('tr[data-code="TIMEOUT"] svg.spark');
  assert.match(await spark.getAttribute('aria-label'), /^1 occurrence in 25 hours; at most 1 in one hour, from /);
  assert.equal(await spark.getAttribute('role'), 'img');
  // New: the runs' three records and the report's; regressed: the report's.
  const fresh = page.getByTestId('new-records');
  await waitFor('four new records', async () => (await fresh.locator('li').count()) === 4);
  for (const id of [timeoutRecord, rateRecord, fb.error_id]) assert.equal(await fresh.locator(`li[data-error-id="${id}"]`).count(), 1);
  const regressed = page.getByTestId('regressed-records');
  await regressed.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  assert.equal(await regressed.locator('li').count(), 1);
  await screenshot(page, 'dashboard-overview', { fullPage: true });

  // Live: a new failed run counts at once, and the figures stay shown
  // while they are read again (the table is never taken away).
  await page.evaluate(() => {
    window.__blanked = false;
    new MutationObserver(() => {
      if (!document.querySelector('[data-testid="agent-rates"]')) window.__blanked = true;
    }).observe(document.querySelector('main'), { subtree: true, childList: true });
  });
  await run(svc.base, 'run-live', 'fail with TIMEOUT');
  await waitFor('the overview read again', async () => (await page.getByTestId('runs-total').innerText()) === '27');
  assert.equal(await page.evaluate(() => window.__blanked), false, 'the rates vanished while read again');
  // The range is in the URL, and the series go by day over 30 days.
  const lastCounts = () => watch.trouble.requests.filter((r) => r.url().includes('/v1/counts?')).at(-1)?.url() ?? '';
  await page.getByRole('link', { name: '30d' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/overview\?range=30d$/);
  await waitFor('day buckets', async () => /bucket=day/.test(lastCounts()));
  assert.equal(await page.getByRole('link', { name: '30d' }).getAttribute('aria-current'), 'true');

  // No page scrolls sideways; a long id is cut, whole on hover and focus.
  for (const width of [390, 768, 1280, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [hash, loaded] of [
      ['#/runs', 'table.runs'],
      [`#/runs/${LONG}`, '.run-events'],
      ['#/overview', '[data-testid="regressed-records"] li'],
      ['#/runs?outcome=failed', 'table.runs'],
    ]) {
      await page.goto(`${svc.base}/${hash}`);
      await page.locator(loaded).first().waitFor();
      await noSideways(page, `${hash} at ${width}px`);
    }
  }
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${svc.base}/#/runs?outcome=failed`);
  const longLink = page.locator(`tr[data-run-id="${LONG}"] td.run a`);
  await longLink.waitFor();
  const cut = longLink.locator('.cut');
  assert.equal(await cut.getAttribute('title'), LONG);
  assert.ok(await cut.evaluate((el) => el.scrollWidth > el.clientWidth), 'the long id is not cut');
  await longLink.focus();
  assert.equal(await cut.evaluate((el) => getComputedStyle(el).whiteSpace), 'normal');
  await noSideways(page, 'the long id focused, at 390px');

  await watch.check([/404/]);
});
