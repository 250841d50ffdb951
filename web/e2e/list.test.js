// The errors list, in Chromium, against `triage serve`: each row reads
// like an issue (its title, agent, query, environment and releases,
// status, a sparkline from one GET /v1/counts for the page, count and
// last seen); sort, search and filters go into the URL and come back from
// it, with the total of matches; rows selected are resolved, ignored and
// assigned in one request each, checked through the API afterward; a row
// is a link the keyboard reaches and opens; no window width from a phone's
// to a desktop's scrolls sideways, even with the longest ids the API
// takes.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openBrowser, report, screenshot, startServe, waitFor } from './helpers.js';

/** The rows as the list shows them: id, status and each data-field's text. */
async function rows(page) {
  return page.$$eval('ul.error-list > li', (lis) =>
    lis.map((li) => {
      const row = { id: li.dataset.errorId, status: li.dataset.status };
      for (const el of li.querySelectorAll('[data-field]')) row[el.dataset.field] = el.textContent.trim();
      const spark = li.querySelector('svg.spark');
      row.spark = spark ? Number(spark.dataset.total) : undefined;
      return row;
    }),
  );
}

/** GETs path of the service's API as JSON. */
async function api(svc, path) {
  const res = await fetch(`${svc.base}${path}`);
  assert.equal(res.status, 200, `GET ${path}: ${res.status}`);
  return res.json();
}

/** A report of name, with a release and an environment (and another timestamp: another delivery). */
function reportIn(name, release, environment, second = 5) {
  const r = report(name);
  return { ...r, release, environment, timestamp: `2025-08-08T12:20:${String(second).padStart(2, '0')}Z` };
}

/** Posts the reports the tests share; returns the error ids by report name. */
async function seed(svc) {
  const ids = {};
  ids.db_timeout = (await svc.post(reportIn('db_timeout', '1.4.0', 'prod', 1))).error_id;
  await svc.post(reportIn('db_timeout', '1.4.1', 'prod', 2));
  await svc.post(reportIn('db_timeout', '1.4.1', 'prod', 3));
  ids.service_outage = (await svc.post(reportIn('service_outage', '1.4.1', 'staging'))).error_id;
  ids.ambiguous_input = (await svc.post(report('ambiguous_input'))).error_id;
  ids.chart_incompatible = (await svc.post(reportIn('chart_incompatible', '1.3.9', 'prod'))).error_id;
  ids.schema_missing = (await svc.post(reportIn('schema_missing', '1.4.1', 'prod'))).error_id;
  return ids;
}

test('the errors list: titles, sparklines, sort, search and filters in the URL, total', { timeout: 90_000 }, async (t) => {
  const svc = await startServe(t);
  const ids = await seed(svc);
  const { page, watch } = await openBrowser(t, svc.base);
  const requests = (re) => watch.trouble.requests.filter((r) => re.test(r.url()));
  const listed = () => requests(/\/v1\/errors\?/).at(-1)?.url() ?? '';

  // The feed opens while the page's first read is under way: the read is
  // not cancelled for it (the page reads again once it has its rows).
  const cancelled = [];
  // (Only the list's reads: a sparklines' counts read for rows that were
  // read again is superseded by the next one, as it should be.)
  page.on('requestfailed', (r) => /\/v1\/errors\?/.test(r.url()) && cancelled.push(r.url()));
  await page.goto(`${svc.base}/`);
  await page.getByText('Live').waitFor();
  await waitFor('five rows, with their sparklines', async () => {
    const r = await rows(page);
    return r.length === 5 && r.every((x) => x.spark !== undefined);
  });
  await waitFor('the read again after the feed opened', async () => requests(/\/v1\/errors\?/).length >= 2);
  assert.deepEqual(cancelled, []);

  // Each row's main line is the record's title (code and message), the
  // link to the record; under it its agent, query, environment, releases,
  // status, type, severity; its count and when it was last seen.
  const summaries = (await api(svc, '/v1/errors')).records;
  const byId = Object.fromEntries((await rows(page)).map((r) => [r.id, r]));
  for (const s of summaries) {
    const r = byId[s.error_id];
    assert.equal(r.title, s.title, `${s.error_id}'s title`);
    assert.equal(r.agent, `agent ${s.agent_id}`);
    assert.equal(r.query, `query ${s.query_id}`);
    assert.equal(r.status, 'unresolved');
    assert.equal(r.count, `${s.occurrence_count} occurrences`);
    assert.match(r.seen, /^last seen (just now|\d+s ago)$/);
  }
  const timeout = byId[ids.db_timeout];
  assert.equal(timeout.title, 'DB_TIMEOUT: Query timed out after 30s');
  assert.equal(timeout.environment, 'environment env prod');
  assert.equal(timeout.release, 'release 1.4.0 → 1.4.1');
  assert.equal(timeout.type, 'query error');
  assert.equal(timeout.spark, 3, 'the sparkline counts its three occurrences');
  assert.equal(byId[ids.ambiguous_input].environment, undefined, 'a record without an environment shows none');
  const link = page.locator(`li[data-error-id="${ids.db_timeout}"] a.err-title`);
  assert.equal(await link.getAttribute('href'), `#/errors/${ids.db_timeout}`);
  assert.match(await link.getAttribute('title'), /^DB_TIMEOUT: Query timed out after 30s\nagent query_engine · query q_456\nprod · release 1\.4\.0 → 1\.4\.1\nfirst seen /);
  // The sparklines: at most one GET /v1/counts for each read of the list
  // (which reads again once the live feed opens), of all its records, never
  // one a row.
  const sparks = requests(/\/v1\/counts\?/);
  assert.ok(sparks.length >= 1 && sparks.length <= requests(/\/v1\/errors\?/).length, sparks.map((r) => r.url()).join('\n'));
  for (const s of sparks) {
    const q = new URL(s.url()).searchParams;
    assert.equal(q.get('by'), 'record');
    assert.deepEqual(q.getAll('error_id').sort(), Object.values(ids).sort());
  }
  // The total of matches.
  assert.equal(await page.getByTestId('total').innerText(), '5 matches');
  await screenshot(page, 'dashboard-errors');

  // Sort by occurrences: the timeout (3) first; in the URL and the query.
  await page.getByLabel('Sort').selectOption('count');
  await waitFor('sorted by count', async () => (await rows(page))[0]?.id === ids.db_timeout && /sort=count/.test(listed()));
  assert.match(page.url(), /#\/\?sort=count$/);
  await page.getByLabel('Sort').selectOption('first_seen');
  await waitFor('sorted by first seen', async () => (await rows(page))[0]?.id === ids.schema_missing);
  assert.match(listed(), /sort=first_seen/);
  await page.getByLabel('Sort').selectOption('');
  await waitFor('sorted by last seen again', async () => !/sort=/.test(page.url()) && !/sort=/.test(listed()));

  // The search: words of the title, code, agent or query.
  await page.getByLabel('Search', { exact: true }).fill('timed out');
  await page.getByLabel('Search', { exact: true }).press('Enter');
  await waitFor('the timeout alone', async () => (await rows(page)).map((r) => r.id).join() === ids.db_timeout);
  assert.equal(new URL(listed()).searchParams.get('q'), 'timed out');
  assert.match(page.url(), /#\/\?q=timed\+out$/);
  assert.equal(await page.getByTestId('total').innerText(), '1 match');
  await page.getByLabel('Search', { exact: true }).fill('');

  // Environment and release: the API's filters.
  await page.getByLabel('Environment').fill('staging');
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await waitFor('staging alone', async () => (await rows(page)).map((r) => r.id).join() === ids.service_outage);
  assert.equal(new URL(listed()).searchParams.get('environment'), 'staging');
  await page.getByLabel('Environment').fill('');
  await page.getByLabel('Release').fill('1.4.0');
  await page.getByLabel('Release').press('Enter');
  await waitFor('release 1.4.0: the timeout, first seen in it', async () => (await rows(page)).map((r) => r.id).join() === ids.db_timeout);
  await page.getByLabel('Release').fill('1.4.1');
  await page.getByLabel('Release').press('Enter');
  await waitFor('release 1.4.1: three records', async () => (await rows(page)).length === 3);
  assert.equal(await page.getByTestId('total').innerText(), '3 matches');

  // Every filter at once, from the URL: the form shows them and the query
  // carries them; a reload keeps them.
  const hash = '#/?q=query&status=unresolved&agent_id=query_engine&error_type=query_error&severity=medium&environment=prod&release=1.4.1&since=24h&sort=count';
  await page.goto(`${svc.base}/${hash}`);
  await waitFor('the timeout, from the URL', async () => (await rows(page)).map((r) => r.id).join() === ids.db_timeout);
  const sent = new URL(listed()).searchParams;
  for (const [k, v] of Object.entries({ q: 'query', status: 'unresolved', agent_id: 'query_engine', error_type: 'query_error', severity: 'medium', environment: 'prod', release: '1.4.1', sort: 'count', window: '24h' })) {
    assert.equal(sent.get(k), v, `the query's ${k}`);
  }
  assert.ok(Math.abs(Date.now() - 24 * 3600_000 - Date.parse(sent.get('since'))) < 60_000);
  const form = page.getByRole('search', { name: 'Filters' });
  assert.equal(await form.getByLabel('Search', { exact: true }).inputValue(), 'query');
  assert.equal(await form.getByLabel('Status').inputValue(), 'unresolved');
  assert.equal(await form.getByLabel('Agent').inputValue(), 'query_engine');
  assert.equal(await form.getByLabel('Type').inputValue(), 'query_error');
  assert.equal(await form.getByLabel('Severity').inputValue(), 'medium');
  assert.equal(await form.getByLabel('Environment').inputValue(), 'prod');
  assert.equal(await form.getByLabel('Release').inputValue(), '1.4.1');
  assert.equal(await form.getByLabel('Since').inputValue(), '24h');
  assert.equal(await form.getByLabel('Sort').inputValue(), 'count');
  // Sorted by count in a range, a row says its count in the range.
  assert.equal((await rows(page))[0].count, '3 occurrences (3 in range)');
  await page.reload();
  await waitFor('the same, after a reload', async () => (await rows(page)).map((r) => r.id).join() === ids.db_timeout);
  assert.equal(new URL(page.url()).hash, hash);

  // The agent field suggests the agents that reported.
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitFor('all five again', async () => (await rows(page)).length === 5);
  assert.match(page.url(), /#\/\?sort=count$/, 'Clear keeps the sort');
  await page.getByLabel('Agent').focus();
  await waitFor('suggestions', async () => (await page.locator('#agent-suggestions option').count()) === 4);
  const agents = await page.locator('#agent-suggestions option').evaluateAll((os) => os.map((o) => o.value).sort());
  assert.deepEqual(agents, ['context_manager', 'input_parser', 'query_engine', 'visualization_agent']);

  // Live: a new error comes in without a reload, the total with it.
  const late = await svc.post(report('llm_rate_limited'));
  await page.locator(`li[data-error-id="${late.error_id}"]`).waitFor();
  await waitFor('six matches', async () => (await page.getByTestId('total').innerText()) === '6 matches');

  await watch.check();
});

test('bulk changes: the record page’s actions, applied to the rows selected', { timeout: 120_000 }, async (t) => {
  const svc = await startServe(t);
  const ids = await seed(svc);
  const { page, watch } = await openBrowser(t, svc.base);
  const changes = () => watch.trouble.requests.filter((r) => r.url().endsWith('/v1/errors/changes'));
  const lastChange = () => JSON.parse(changes().at(-1).postData());
  const record = (id) => api(svc, `/v1/errors/${id}`);
  const status = async (id) => (await record(id)).status;
  const check = (id) => page.locator(`li[data-error-id="${id}"] input[type=checkbox]`);
  const announce = page.getByTestId('announce');
  // The bulk form is the record page's (ChangeForm): the same actions.
  const bulk = page.getByRole('form', { name: 'Change the selected errors' });
  const action = bulk.getByLabel('Action');
  const apply = bulk.getByRole('button', { name: 'Apply to selected' });

  await page.goto(`${svc.base}/`);
  await waitFor('five rows', async () => (await rows(page)).length === 5);
  assert.equal(await apply.isDisabled(), true, 'nothing selected, nothing to apply');
  assert.deepEqual(await action.locator('option').allInnerTexts(), [
    'Resolve',
    'Resolve in release…',
    'Resolve in the next release',
    'Ignore forever',
    'Ignore for a time…',
    'Ignore until it occurs N more times…',
    'Unresolve',
    'Assign…',
  ]);

  // Two rows selected, resolved in one request.
  await check(ids.db_timeout).check();
  await check(ids.service_outage).check();
  assert.equal(await page.getByTestId('selected').innerText(), '2 selected');
  assert.equal(await check(ids.db_timeout).getAttribute('aria-labelledby'), `select-${ids.db_timeout} title-${ids.db_timeout}`);
  await screenshot(page, 'dashboard-errors-bulk');
  await apply.click();
  await announce.filter({ hasText: 'Resolved 2 errors.' }).waitFor();
  // The button, disabled with nothing selected, gives the focus to the select-all box.
  await waitFor('the focus on select-all', async () => page.evaluate(() => document.activeElement?.closest('label')?.textContent === 'Select all on this page'));
  assert.equal(changes().length, 1);
  assert.deepEqual(lastChange(), {
    change: { status: 'resolved' },
    filter: { error_ids: [ids.db_timeout, ids.service_outage] },
  });
  assert.equal(await status(ids.db_timeout), 'resolved');
  assert.equal(await status(ids.service_outage), 'resolved');
  assert.equal(await status(ids.schema_missing), 'unresolved');
  await waitFor('the list says so', async () => {
    const r = Object.fromEntries((await rows(page)).map((x) => [x.id, x.status]));
    return r[ids.db_timeout] === 'resolved' && r[ids.service_outage] === 'resolved';
  });
  assert.equal(await page.getByTestId('selected').innerText(), '0 selected');

  // All on the page, ignored for good: the two resolved ones change too.
  await page.getByLabel('Select all on this page').check();
  assert.equal(await page.getByTestId('selected').innerText(), '5 selected');
  await action.selectOption('ignore');
  await apply.click();
  await announce.filter({ hasText: 'Ignored 5 errors.' }).waitFor();
  assert.deepEqual(lastChange().change, { status: 'ignored' });
  const ignored = await api(svc, '/v1/errors?status=ignored');
  assert.equal(ignored.total, 5);
  // Ignored again: nothing changes, and the page says so.
  await page.getByLabel('Select all on this page').check();
  await apply.click();
  await announce.filter({ hasText: 'Ignored 0 errors; 5 already were ignored.' }).waitFor();

  // One assigned, by keyboard: space selects, the assignee is typed, Enter assigns.
  await check(ids.chart_incompatible).focus();
  await page.keyboard.press('Space');
  assert.equal(await check(ids.chart_incompatible).isChecked(), true);
  await action.selectOption('assign');
  await bulk.getByLabel('Assignee').fill('ana');
  await bulk.getByLabel('Assignee').press('Enter');
  await announce.filter({ hasText: 'Assigned 1 error to ana.' }).waitFor();
  assert.deepEqual(lastChange().change, { assignee: 'ana' });
  assert.equal((await record(ids.chart_incompatible)).assignee, 'ana');
  assert.equal((await record(ids.schema_missing)).assignee, undefined);
  await waitFor('the row shows its assignee', async () => (await rows(page)).find((r) => r.id === ids.chart_incompatible)?.assignee === 'assigned to @ana');

  // Resolved in a release, with a note.
  await check(ids.db_timeout).check();
  await check(ids.schema_missing).check();
  await action.selectOption('resolve_in_release');
  await bulk.getByLabel('Release', { exact: true }).fill('1.4.2');
  await bulk.getByLabel('Note (optional)').fill('fixed by #12');
  await apply.click();
  await announce.filter({ hasText: 'Resolved 2 errors in 1.4.2.' }).waitFor();
  assert.deepEqual(lastChange().change, { status: 'resolved', resolution: { in_release: '1.4.2' }, note: 'fixed by #12' });
  for (const id of [ids.db_timeout, ids.schema_missing]) {
    const r = await record(id);
    assert.equal(r.status, 'resolved');
    assert.equal(r.resolution?.in_release, '1.4.2');
  }
  await bulk.getByLabel('Note (optional)').fill('');

  // Resolved in the next release (one of its releases was reported).
  await check(ids.service_outage).check();
  await action.selectOption('resolve_next_release');
  await apply.click();
  await announce.filter({ hasText: 'Resolved 1 error in the next release.' }).waitFor();
  assert.deepEqual(lastChange().change, { status: 'resolved', resolution: { in_next_release: true } });
  assert.equal((await record(ids.service_outage)).resolution?.in_next_release, true);

  // Ignored for a time.
  await check(ids.db_timeout).check();
  await action.selectOption('ignore_for');
  await bulk.getByLabel('For', { exact: true }).selectOption({ label: '1 hour' });
  await apply.click();
  await announce.filter({ hasText: 'Ignored 1 error for 1 hour.' }).waitFor();
  assert.deepEqual(lastChange().change, { status: 'ignored', ignore: { seconds: 3600 } });
  const until = Date.parse((await record(ids.db_timeout)).ignore?.until);
  assert.ok(Math.abs(until - Date.now() - 3600_000) < 120_000, `ignored until ${until}`);

  // Ignored until it occurs 10 more times within an hour.
  await check(ids.schema_missing).check();
  await action.selectOption('ignore_until_count');
  await bulk.getByLabel('More occurrences').fill('10');
  await bulk.getByLabel('Within').selectOption({ label: '1 hour' });
  await apply.click();
  await announce.filter({ hasText: 'Ignored 1 error until 10 more within 1 hour.' }).waitFor();
  assert.deepEqual(lastChange().change, { status: 'ignored', ignore: { count: 10, window_seconds: 3600 } });
  assert.equal((await record(ids.schema_missing)).ignore?.count, 10);

  // A change the service refuses is its problem, as on the record page:
  // the message and the member at fault; the selection stays.
  await check(ids.schema_missing).check();
  await bulk.getByLabel('More occurrences').fill('1000001');
  await apply.click();
  const refused = page.locator('.bulk .problem[role="alert"]');
  await refused.waitFor();
  assert.match(await refused.innerText(), /ignore\.count/);
  assert.match(await announce.innerText(), /^The change was not made/);
  assert.equal(await check(ids.schema_missing).isChecked(), true);
  assert.equal((await record(ids.schema_missing)).ignore?.count, 10);
  await check(ids.schema_missing).uncheck();

  // The status filter: the unresolved, none now; the ignored, four.
  await page.getByLabel('Status').selectOption('unresolved');
  await page.getByText('No errors match these filters.').waitFor();
  assert.equal(await page.getByTestId('total').innerText(), '0 matches');
  await page.getByLabel('Status').selectOption('ignored');
  await waitFor('the four ignored', async () => (await rows(page)).length === 4);

  await watch.check([/Failed to load resource: the server responded with a status of 422/]);
});

test('a row is a link: the keyboard reaches and opens it, a click anywhere on it opens it', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const ids = await seed(svc);
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  await waitFor('five rows', async () => (await rows(page)).length === 5);

  // Tab from the last control before the list, the bulk form's note (its
  // button, disabled with nothing selected, is passed over): the first
  // row's box, then its title, the row's link.
  const first = (await rows(page))[0];
  await page.getByLabel('Note (optional)').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('li')?.dataset.errorId), first.id);
  assert.equal(await page.evaluate(() => document.activeElement?.type), 'checkbox');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.className), 'err-title');
  // Focused, the row is outlined and shows what it cuts.
  const row = page.locator(`li[data-error-id="${first.id}"]`);
  assert.notEqual(await row.evaluate((li) => getComputedStyle(li).outlineStyle), 'none');
  assert.equal(await row.locator('.err-title').evaluate((a) => getComputedStyle(a).whiteSpace), 'normal');
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`#/errors/${first.id}$`));

  // Back, and a click on the row's numbers (not its title) opens it too.
  await page.goBack();
  await waitFor('five rows', async () => (await rows(page)).length === 5);
  const seen = await page.locator(`li[data-error-id="${ids.schema_missing}"] .err-seen`).boundingBox();
  await page.mouse.click(seen.x + seen.width / 2, seen.y + seen.height / 2);
  await page.waitForURL(new RegExp(`#/errors/${ids.schema_missing}$`));
  // But a click on its box selects it, and stays.
  await page.goBack();
  await waitFor('five rows', async () => (await rows(page)).length === 5);
  await page.locator(`li[data-error-id="${ids.schema_missing}"] input[type=checkbox]`).click();
  assert.doesNotMatch(page.url(), /#\/errors\//);
  assert.equal(await page.getByTestId('selected').innerText(), '1 selected');

  await watch.check();
});

test('no sideways scroll at 390, 768, 1280 and 1920 px, with the longest ids the API takes', { timeout: 90_000 }, async (t) => {
  const svc = await startServe(t);
  await seed(svc);
  // Identifiers are at most 128 characters, a release 200, an
  // environment 64; a title is cut at 200 bytes.
  const long = {
    ...report('db_timeout'),
    agent_id: `agent_${'x'.repeat(122)}`,
    environment: `env-${'e'.repeat(60)}`,
    release: `1.0.0+${'r'.repeat(194)}`,
    data: { ...report('db_timeout').data, query_id: `q_${'9'.repeat(126)}`, error_code: `CODE_${'Z'.repeat(123)}`, message: `a${'b'.repeat(300)} and more words after it` },
  };
  const fb = await svc.post(long);
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  await page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  await waitFor('six rows', async () => (await rows(page)).length === 6);

  for (const width of [390, 768, 1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // The boxes of the page's parts (text cut inside them may run on,
    // clipped: scrollWidth counts what shows).
    const m = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      widest: Math.max(...[...document.querySelectorAll('main, header, .filters, .bulk, .error-list, .error-list > li, .err-main, .err-stats, .pager')].map((e) => e.getBoundingClientRect().right)),
    }));
    assert.ok(m.scroll <= m.client, `${width}px: the page is ${m.scroll}px wide`);
    assert.ok(m.widest <= width + 0.5, `${width}px: an element reaches ${m.widest}px`);
    // The long row: its title cut to one line (two on a narrow window).
    const title = page.locator(`li[data-error-id="${fb.error_id}"] .err-title`);
    const box = await title.boundingBox();
    const lines = width < 760 ? 2 : 1;
    assert.ok(box.height < lines * 25, `${width}px: the title is ${box.height}px high, over ${lines} line(s)`);
    if (width === 390) {
      // A card: the numbers under the text, not beside it.
      const li = page.locator(`li[data-error-id="${fb.error_id}"]`);
      const main = await li.locator('.err-main').boundingBox();
      const stats = await li.locator('.err-stats').boundingBox();
      assert.ok(stats.y >= main.y + main.height - 1, 'at 390px, the numbers are under the title');
      await screenshot(page, 'dashboard-errors-narrow', { fullPage: true });
      // The filters but the search and the sort fold under a button.
      const status = page.getByRole('search', { name: 'Filters' }).getByLabel('Status');
      assert.equal(await status.isVisible(), false);
      const more = page.getByRole('button', { name: 'Filters' });
      assert.equal(await more.getAttribute('aria-expanded'), 'false');
      await more.click();
      assert.equal(await more.getAttribute('aria-expanded'), 'true');
      assert.equal(await status.isVisible(), true);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), 'the filters unfolded at 390px scroll sideways');
      await more.click();
    } else {
      assert.equal(await page.getByRole('button', { name: 'Filters' }).isVisible(), false, `${width}px: the filters do not fold`);
    }
  }
  // Focused, the long row shows its title whole (wrapped), still within the page.
  await page.setViewportSize({ width: 390, height: 900 });
  await page.locator(`li[data-error-id="${fb.error_id}"] .err-title`).focus();
  const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(m.scroll <= m.client, `focused at 390px: the page is ${m.scroll}px wide`);

  await watch.check();
});
