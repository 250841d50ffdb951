// The dashboard's accessibility and layout, in Chromium, against `triage
// serve`: axe-core finds no serious or critical violation on any page
// (the errors, a record, the playground with a conversation and a failed
// run's toast, the runs, a failed run with its timeline, the overview, the
// MCP sessions and a session with the record of its failed call, a
// page that is not there, the key dialog asking and
// refusing) in the light and the dark theme at 390 and 1280 px; the key
// dialog keeps Tab and Shift+Tab inside it, closes on Escape and gives the
// focus back; moving to another page moves the focus to its h1 and says
// the page in the tab's title; a skip link leads to the page; and no page
// scrolls sideways at 390, 768, 1280 or 1920 px, with the longest agent and
// query ids the service accepts (128 characters) and a 200-character word
// in the message and the context.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { WIDTHS, checkA11y, checkWidth, forEachView, mcpSession, openBrowser, report, screenshot, startServe, waitFor } from './helpers.js';

const KEY = 'key-acme-0123456789abcdef';

/** The longest ids the service takes (1 to 128 characters), and a 200-character word. */
const LONG_AGENT = `agent_${'a1'.repeat(61)}`;
const LONG_QUERY = `query_${'q2'.repeat(61)}`;
const LONG_WORD = `W${'x'.repeat(199)}`;

/** A report with every long thing at once: ids, message and context. */
function longReport() {
  const r = report('db_timeout');
  return {
    ...r,
    agent_id: LONG_AGENT,
    data: {
      ...r.data,
      query_id: LONG_QUERY,
      message: `Query timed out: ${LONG_WORD}`,
      context: { ...r.data.context, table: LONG_WORD },
    },
  };
}

/** The element that has the focus, as "tag#id: text" (the text cut at 60 characters). */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}: ${(el.textContent || el.getAttribute('aria-label') || el.getAttribute('name') || '').trim().slice(0, 60)}`;
  });
}

/** Whether the focus is inside the open modal dialog. */
function focusInDialog(page) {
  return page.evaluate(() => {
    const d = document.querySelector('dialog[open]');
    return d !== null && d.contains(document.activeElement) && document.activeElement !== d;
  });
}

/** The body's background: the theme the page is in. */
function background(page) {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}
const LIGHT = 'rgb(247, 248, 250)';
const DARK = 'rgb(13, 17, 23)';

/** The pages of a service without keys, each opened and waited for: the name, the hash, and what shows it is ready. */
function pages(fb, sid) {
  return [
    { name: 'errors', hash: '#/', ready: (page) => page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor() },
    {
      name: 'record',
      hash: `#/errors/${fb.error_id}`,
      ready: async (page) => {
        await page.getByTestId('count').waitFor();
        // The context's JSON, open: a long line that must scroll in its box.
        await page.getByText('Context', { exact: true }).click();
        await page.locator('pre.json').waitFor();
      },
    },
    {
      name: 'playground',
      hash: '#/playground',
      ready: async (page) => {
        // A conversation ("You" and the agent's answer) and a failed
        // run's toast.
        const input = page.getByLabel('Message');
        await input.fill(`hello ${LONG_WORD}`);
        await input.press('Enter');
        await page.locator('li[data-role="assistant"]').waitFor();
        await waitFor('the run to end', async () => (await page.getByRole('button', { name: 'Send' }).count()) === 1);
        await input.fill('fail with SERVICE_UNAVAILABLE');
        await input.press('Enter');
        // The toast is shown beside the thread on a wide window, not on a
        // narrow one (the mark in the thread says the same there).
        await page.locator('[data-sonner-toast] [data-triage-error]').first().waitFor({ state: 'attached' });
        await page.locator('.run-failed').waitFor();
      },
    },
    { name: 'runs', hash: '#/runs', ready: (page) => page.locator('[data-run-id]').first().waitFor() },
    {
      // A failed run: its facts, its timeline of events, its fault, and the
      // record it became an occurrence of.
      name: 'run',
      hash: `#/runs/${A11Y_RUN}`,
      ready: async (page) => {
        await page.getByTestId('run-timeline').waitFor();
        await page.getByTestId('run-record-event').waitFor({ timeout: 20_000 });
      },
    },
    { name: 'overview', hash: '#/overview', ready: (page) => page.getByRole('heading', { name: 'Failure rate by agent' }).waitFor() },
    { name: 'sessions', hash: '#/sessions', ready: (page) => page.locator('[data-session-id]').first().waitFor() },
    {
      // An MCP session whose failed call became a record, linked.
      name: 'session',
      hash: `#/sessions/${sid}`,
      ready: (page) => page.getByTestId('session-records').locator('a').first().waitFor({ timeout: 20_000 }),
    },
    { name: 'not found', hash: '#/nowhere', ready: (page) => page.getByRole('heading', { name: 'Not found' }).waitFor() },
  ];
}

/** The run the run page shows: a failed AG-UI run of echo, with a 128-character thread id. */
const A11Y_RUN = 'run-a11y';

/** Runs echo with prompt as A11Y_RUN, reading its stream to the end. */
async function failedRun(base) {
  const res = await fetch(`${base}/v1/agents/echo/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: `t${'h'.repeat(127)}`,
      runId: A11Y_RUN,
      state: {},
      messages: [{ id: 'm1', role: 'user', content: 'fail with RATE_LIMITED after 3s' }],
      tools: [],
      context: [],
      forwardedProps: {},
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(text, /"type":"RUN_ERROR"/);
}

test('axe: no serious or critical violation on any page, light and dark, 390 and 1280 px', { timeout: 150_000 }, async (t) => {
  const svc = await startServe(t);
  const fb = await svc.post(longReport());
  await failedRun(svc.base);
  await svc.post(report('service_outage'));
  await svc.post(report('ambiguous_input'));
  const sid = await mcpSession(svc.base, { client: { name: `client-${'c'.repeat(120)}`, version: '9.9.9' }, ok: 1, fail: 1, close: true });
  const { page, watch } = await openBrowser(t, svc.base);
  // Every page in every view, the failures listed together.
  const failures = [];
  for (const p of pages(fb, sid)) {
    await page.goto(`${svc.base}/${p.hash}`);
    await p.ready(page);
    await forEachView(page, async (v) => {
      assert.equal(await background(page), v.theme === 'light' ? LIGHT : DARK, `${p.name}: the ${v.theme} theme`);
      await checkA11y(page, `${p.name}, ${v.label}`).catch((e) => failures.push(e.message));
    });
  }
  assert.equal(failures.length, 0, failures.join('\n'));
  // The playground's failed run: the refusal is the only console error
  // (Chromium logs the run's 503 answer).
  await watch.check([/Failed to load resource: the server responded with a status of 503/]);
});

test('axe: the key dialog, asking and refusing, light and dark, 390 and 1280 px', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t, { keys: `acme=${KEY}` });
  await svc.post(report('db_timeout'), { 'X-API-Key': KEY });
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  const dialog = page.getByRole('dialog', { name: 'This service needs an API key' });
  await dialog.waitFor();
  const failures = [];
  await forEachView(page, (v) => checkA11y(page, `key dialog asking, ${v.label}`).catch((e) => failures.push(e.message)));
  await dialog.getByLabel('API key').fill('key-wrong-0123456789');
  await dialog.getByRole('button', { name: 'Use this key' }).click();
  await page.getByRole('dialog', { name: 'The API key was refused' }).waitFor();
  await forEachView(page, (v) => checkA11y(page, `key dialog refusing, ${v.label}`).catch((e) => failures.push(e.message)));
  assert.equal(failures.length, 0, failures.join('\n'));
  await watch.check([/Failed to load resource: the server responded with a status of 40[13]/]);
});

test('the key dialog: modal, Tab and Shift+Tab stay inside, Escape closes it, the focus comes back', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t, { keys: `acme=${KEY}` });
  const fb = await svc.post(report('db_timeout'), { 'X-API-Key': KEY });
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  const dialog = page.getByRole('dialog', { name: 'This service needs an API key' });
  await dialog.waitFor();

  // A native modal dialog, labelled by its heading and described by the
  // refusal; the focus starts in the key's field.
  assert.equal(await page.evaluate(() => document.querySelector('dialog')?.matches(':modal')), true);
  assert.equal(await page.locator('form[role="dialog"]').count(), 0);
  assert.equal(await focused(page), 'input: api-key');

  // Tab and Shift+Tab go round the dialog's controls, never to the page
  // behind it (its header's links, its filters).
  await dialog.getByLabel('API key').fill('x');
  const seen = new Set();
  for (const key of [...Array(6).fill('Tab'), ...Array(6).fill('Shift+Tab')]) {
    await page.keyboard.press(key);
    assert.equal(await focusInDialog(page), true, `after ${key}, the focus left the dialog: ${await focused(page)}`);
    seen.add(await focused(page));
  }
  assert.ok(seen.size >= 2, `Tab visited ${[...seen]}`);

  // Escape closes it; the header offers it again; the focus comes back to
  // that button when it closes again.
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  const again = page.getByRole('button', { name: 'Enter API key' });
  await again.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor();
  assert.equal(await focusInDialog(page), true);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await focused(page), 'button: Enter API key');

  // With the right key it closes, and the page's records load; the focus
  // goes to the page (the button it came from is gone).
  await page.keyboard.press('Enter');
  await dialog.getByLabel('API key').fill(KEY);
  await page.keyboard.press('Enter');
  await page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  assert.equal(await page.getByRole('dialog').count(), 0);
  assert.equal(await again.count(), 0);
  assert.match(await focused(page), /^main#main/);
  await watch.check([/Failed to load resource: the server responded with a status of 40[13]/]);
});

test('navigation: the focus goes to the new page’s h1, the tab’s title says the page, a skip link', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const fb = await svc.post(report('db_timeout'));
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/`);
  await page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  assert.equal(await page.title(), 'Errors — Triage');
  // The first load leaves the focus at the top of the document.
  assert.equal(await focused(page), 'body');

  // The skip link: the first Tab, to the page, the URL unchanged.
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'a: Skip to the page');
  await page.keyboard.press('Enter');
  assert.match(await focused(page), /^main#main/);
  assert.equal(new URL(page.url()).hash, '');

  // A record, by keyboard: the focus on its h1, the title the record's.
  const title = await page.evaluate(
    async (id) => (await (await fetch(`/v1/errors/${id}`)).json()).title,
    fb.error_id,
  );
  const link = page.locator(`li[data-error-id="${fb.error_id}"] a.err-title`);
  await link.focus();
  await page.keyboard.press('Enter');
  await waitFor('the focus on the record’s h1', async () => (await focused(page)) === `h1#error-title: ${title.trim().slice(0, 60)}`);
  assert.ok(title, 'the record has a title');
  await waitFor('the record’s title', async () => (await page.title()) === `${title} — Triage`);

  // The header's links.
  await page.getByRole('link', { name: 'Playground' }).click();
  await waitFor('the focus on the playground’s h1', async () => (await focused(page)) === 'h1#playground-title: Playground');
  assert.equal(await page.title(), 'Playground — Triage');
  await page.getByRole('link', { name: 'Errors' }).click();
  await waitFor('the focus on the errors’ h1', async () => (await focused(page)) === 'h1#errors-title: Errors');
  assert.equal(await page.title(), 'Errors — Triage');

  // A filter changes the URL, not the page: the focus stays on it.
  const severity = page.getByLabel('Severity');
  await severity.focus();
  await severity.selectOption('high');
  await waitFor('the filter in the URL', async () => /severity=high/.test(page.url()));
  await page.locator('ul.error-list > li').first().waitFor({ state: 'detached' });
  assert.equal(await severity.evaluate((el) => el === document.activeElement), true, `the focus moved to ${await focused(page)}`);

  // The back button, and a page that is not there.
  await page.evaluate(() => {
    window.location.hash = '#/nowhere';
  });
  await waitFor('the focus on Not found', async () => (await focused(page)) === 'h1#missing-title: Not found');
  assert.equal(await page.title(), 'Not found — Triage');
  await page.goBack();
  await waitFor('the errors again', async () => (await page.title()) === 'Errors — Triage');
  await watch.check();
});

test('layout: no page scrolls sideways at 390, 768, 1280 and 1920 px, with 128-character ids and a 200-character word', { timeout: 90_000 }, async (t) => {
  const svc = await startServe(t);
  const fb = await svc.post(longReport());
  await failedRun(svc.base);
  await svc.post(report('service_outage'));
  const sid = await mcpSession(svc.base, { client: { name: `client-${'c'.repeat(120)}`, version: '9.9.9' }, fail: 1 });
  const { page, watch } = await openBrowser(t, svc.base);
  for (const p of pages(fb, sid)) {
    await page.goto(`${svc.base}/${p.hash}`);
    await p.ready(page);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await checkWidth(page, `${p.name}, ${width}px`);
      // The header stays inside the window, wrapped if it must.
      const header = await page.locator('header.top').boundingBox();
      assert.ok(header.width <= width, `${p.name}, ${width}px: the header is ${header.width}px wide`);
      if (width === 390 && (p.name === 'errors' || p.name === 'record')) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await screenshot(page, `dashboard-${p.name}-390`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  }
  // The long ids wrap on the errors page, whole (not cut) in the text.
  await page.goto(`${svc.base}/`);
  await page.setViewportSize({ width: 390, height: 800 });
  const row = page.locator(`li[data-error-id="${fb.error_id}"]`);
  await row.waitFor();
  assert.match(await row.innerText(), new RegExp(LONG_AGENT));
  await checkWidth(page, 'errors, 390px, again');
  await watch.check([/Failed to load resource: the server responded with a status of 503/]);
});
