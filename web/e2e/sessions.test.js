// The MCP sessions, in Chromium, against `triage serve`: a session opened
// at /mcp by a raw client, two of its three tool calls failed, then
// closed, is listed on the sessions page (client, outcome, calls, failed,
// opened, duration) under the header's Sessions link; its page, opened by
// the keyboard, says its facts and links the record its failures became;
// the record page links the session back (an MCP session the service
// recorded), and a framework adapter's session (a report naming a
// session_id) to the errors filtered by it; 390 px is a card layout, no
// page scrolls sideways at 390 or 1,280 px.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkWidth, mcpSession, openBrowser, report, screenshot, startServe, waitFor } from './helpers.js';

/** GET path of the API, as JSON. */
async function get(base, path) {
  const res = await fetch(`${base}${path}`);
  const text = await res.text();
  assert.equal(res.status, 200, `GET ${path}: ${text}`);
  return JSON.parse(text);
}

/** The element that has the focus, as "tag#id". */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}` : 'none';
  });
}

test('the MCP sessions, a session, and the record ↔ session links', { timeout: 120_000 }, async (t) => {
  const svc = await startServe(t);
  const sid = await mcpSession(svc.base, { ok: 1, fail: 2, close: true });
  const open = await mcpSession(svc.base, { client: { name: 'still-open', version: '0.1' } });
  // The failures' records: a job after each call.
  const records = await waitFor(
    'the session’s failures recorded',
    async () => {
      const page = await get(svc.base, `/v1/errors?session_id=${encodeURIComponent(sid)}`);
      return page.records.length === 1 ? page.records : null;
    },
    30_000,
  );
  const recordId = records[0].error_id;
  const closed = await get(svc.base, `/v1/sessions/${sid}`);
  assert.equal(closed.outcome, 'closed');
  assert.deepEqual([closed.client_name, closed.client_version, closed.calls, closed.failed_calls], ['e2e-client', '1.2.3', 3, 2]);

  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  await page.getByRole('link', { name: 'Sessions' }).click();
  await page.waitForURL(/#\/sessions$/);
  await waitFor('the focus on the sessions’ h1', async () => (await focused(page)) === 'h1#sessions-title');
  assert.equal(await page.title(), 'Sessions — Triage');
  assert.equal(await page.locator('nav[aria-label="Pages"] a[aria-current="page"]').innerText(), 'Sessions');
  const row = page.locator(`tr[data-session-id="${sid}"]`);
  await row.waitFor();
  const cells = (await row.locator('td').allInnerTexts()).map((s) => s.trim());
  assert.equal(cells[1], 'e2e-client 1.2.3');
  assert.equal(cells[2], 'closed');
  assert.deepEqual(cells.slice(3, 5), ['3', '2']);
  assert.match(cells[5], /^(just now|\d+s ago|\d+ min ago)$/);
  assert.match(cells[6], /^\d+(\.\d)? (ms|s)$/);
  // The latest opened first; the open one says so.
  assert.deepEqual(await page.locator('table.sessions tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.sessionId)), [open, sid]);
  assert.equal(await page.locator(`tr[data-session-id="${open}"]`).getAttribute('data-outcome'), 'open');
  // The outcome filter is GET /v1/sessions' query, in the URL.
  await page.getByLabel('Outcome').selectOption('open');
  await waitFor('the open session only', async () => (await page.locator('table.sessions tbody tr').count()) === 1);
  assert.match(page.url(), /#\/sessions\?outcome=open$/);
  await page.getByRole('link', { name: 'Clear' }).click();
  await waitFor('both again', async () => (await page.locator('table.sessions tbody tr').count()) === 2);
  await screenshot(page, 'dashboard-sessions');

  // A session's page, by the keyboard: its facts, its record linked.
  await row.locator('td.session a').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`#/sessions/${sid}$`));
  await waitFor('the focus on the session’s h1', async () => (await focused(page)) === 'h1#session-title');
  assert.equal(await page.title(), `Session ${sid} — Triage`);
  assert.equal(await page.getByTestId('session-calls').innerText(), '3, 2 failed');
  assert.match(await page.locator('.facts').innerText(), /Outcome\s+closed/);
  const recordLink = page.getByTestId('session-records').locator(`a[href="#/errors/${recordId}"]`);
  await recordLink.waitFor();
  await screenshot(page, 'dashboard-session', { fullPage: true });

  // Its record names the session back, linked to its page.
  await recordLink.click();
  await page.waitForURL(new RegExp(`#/errors/${recordId}$`));
  const back = page.getByTestId('session-link');
  await waitFor('the session linked as an MCP session', async () => (await back.getAttribute('data-session-kind')) === 'mcp');
  assert.equal(await back.getAttribute('href'), `#/sessions/${sid}`);
  await back.click();
  await page.waitForURL(new RegExp(`#/sessions/${sid}$`));
  await page.getByTestId('session-calls').waitFor();

  // A framework adapter's session: no MCP session record, so the record
  // page links the errors filtered by it.
  const r = report('db_timeout');
  const fb = await svc.post({ ...r, data: { ...r.data, context: { ...r.data.context, session_id: 'lc-session-7' } } });
  await page.goto(`${svc.base}/#/errors/${fb.error_id}`);
  const other = page.getByTestId('session-link');
  await other.waitFor();
  assert.equal(await other.getAttribute('data-session-kind'), 'errors');
  assert.equal(await other.getAttribute('href'), '#/?session_id=lc-session-7');
  await other.click();
  await page.waitForURL(/#\/\?session_id=lc-session-7$/);
  await page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  assert.equal(await page.locator('ul.error-list > li').count(), 1);
  assert.equal(await page.getByLabel('Session').inputValue(), 'lc-session-7');

  // 390 px: each session a card, its cells labelled; nothing sideways.
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [hash, ready] of [
      ['#/sessions', 'table.sessions'],
      [`#/sessions/${sid}`, '[data-testid="session-records"]'],
    ]) {
      await page.goto(`${svc.base}/${hash}`);
      await page.locator(ready).waitFor();
      await checkWidth(page, `${hash} at ${width}px`);
    }
  }
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(`${svc.base}/#/sessions`);
  const card = page.locator(`tr[data-session-id="${sid}"] td`).nth(1);
  await card.waitFor();
  assert.equal(await card.evaluate((el) => getComputedStyle(el).display), 'flex');
  assert.equal(await card.evaluate((el) => getComputedStyle(el, '::before').content), '"Client"');
  // An unknown session is the API's 404.
  await page.goto(`${svc.base}/#/sessions/never-opened`);
  await page.locator('.problem[data-code="NOT_FOUND"]').waitFor();
  await watch.check([/404/]);
});
