// The API key, in Chromium, against `triage serve` with API keys: the page
// asks for one when the service answers 401, shows the 403 problem's
// message for a wrong one, sends a right one in X-API-Key, and keeps it in
// the tab's sessionStorage only.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { openBrowser, report, screenshot, startServe } from './helpers.js';

const KEY = 'key-acme-0123456789abcdef';

test('the API key: asked for, refused, accepted, kept in the tab', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t, { keys: `acme=${KEY}` });
  const fb = await svc.post(report('db_timeout'), { 'X-API-Key': KEY });
  const { context, page, watch } = await openBrowser(t, svc.base);

  // The page itself needs no key; the API answers 401, and the page asks.
  const res = await page.goto(`${svc.base}/`);
  assert.equal(res.status(), 200);
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'This service needs an API key' }).waitFor();
  assert.equal(
    await dialog.getByRole('alert').innerText(),
    'An API key is required: send it in the X-API-Key header, or in the Authorization header with the scheme Bearer.',
  );
  await page.getByText('Paused: API key needed').waitFor();

  // A wrong key: the 403 problem's message.
  await dialog.getByLabel('API key').fill('key-wrong-0123456789');
  await dialog.getByRole('button', { name: 'Use this key' }).click();
  await dialog.getByRole('heading', { name: 'The API key was refused' }).waitFor();
  const alert = dialog.getByRole('alert');
  assert.equal(await alert.innerText(), 'The API key is not valid.');
  assert.equal(await alert.getAttribute('data-code'), 'TENANT_UNAUTHORIZED');
  await screenshot(page, 'dashboard-api-key-refused');

  // The right key: the records, live.
  await dialog.getByLabel('API key').fill(KEY);
  await dialog.getByRole('button', { name: 'Use this key' }).click();
  await page.locator(`li[data-error-id="${fb.error_id}"]`).waitFor();
  await page.getByText('Live').waitFor();
  assert.equal(await dialog.count(), 0);
  const later = await svc.post(report('service_outage'), { 'X-API-Key': KEY });
  await page.locator(`li[data-error-id="${later.error_id}"]`).waitFor();

  // What went out: no key, the wrong one, then the right one, in
  // X-API-Key; never in the URL.
  const api = watch.trouble.requests.filter((r) => new URL(r.url()).pathname.startsWith('/v1/'));
  const keys = await Promise.all(api.map((r) => r.headerValue('x-api-key')));
  assert.ok(keys.includes(null) && keys.includes('key-wrong-0123456789') && keys.at(-1) === KEY, JSON.stringify(keys));
  assert.ok(api.every((r) => !r.url().includes(KEY)));

  // Kept in this tab's sessionStorage only: not in localStorage, not in
  // a cookie; a reload keeps it, another tab has to ask.
  assert.deepEqual(
    await page.evaluate(() => ({ session: { ...sessionStorage }, local: localStorage.length, cookie: document.cookie })),
    { session: { 'triage.apiKey': KEY }, local: 0, cookie: '' },
  );
  assert.deepEqual(await context.cookies(), []);
  await page.reload();
  await page.locator(`li[data-error-id="${later.error_id}"]`).waitFor();
  assert.equal(await dialog.count(), 0);
  const other = await context.newPage();
  await other.goto(`${svc.base}/`);
  await other.getByRole('heading', { name: 'This service needs an API key' }).waitFor();

  // Forgotten on request.
  await page.getByRole('button', { name: 'Forget API key' }).click();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);

  // The refusals are the only console errors: Chromium logs each 401 and
  // 403 answer.
  await watch.check([/Failed to load resource: the server responded with a status of 40[13]/]);
});
