// The playground, in Chromium, against `triage serve`: an agent of GET
// /v1/agents answers through HttpAgent; a RATE_LIMITED run is the kit's
// toast, whose countdown reaches zero before Retry is enabled; Retry runs
// the agent again on the same conversation; an answer shows as it
// streams. Each failed prompt is marked in the thread, under it, with the
// kit's message, and the latest with a Retry that waits for the countdown;
// the toast keeps clear of the thread (beside it on a wide window, not
// shown on a narrow one); the composer stays in the window at 390 px. After
// the service restarts, the playground works again without a reload. The
// errors page does not load the playground's chunk, and its scripts are
// under 100 KB gzipped.
//
// Retry is honest: it re-sends the conversation as it stands (the last
// user message). The default echo agent fails "fail with RATE_LIMITED
// after 3s" every time it is sent (a script: it has no state), so its
// Retry is seen failing again, with a new countdown. A Retry that succeeds
// needs an agent whose rate limit passes: an OpenAI provider agent, run by
// the service through the OpenAI SDK against a fake OpenAI API that this
// test serves on loopback, which answers the first request 429 with
// Retry-After: 3 (as OpenAI words it) and the next one with an answer.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';

import { defer, openBrowser, screenshot, startServe, tempDir, waitFor } from './helpers.js';

/** The toast the kit shows for code (sonner's, with the kit's description), not one leaving. */
function toastOf(page, code) {
  return page.locator('[data-sonner-toast][data-removed="false"]', { has: page.locator(`[data-triage-error="${code}"]`) });
}

/**
 * Waits for the toast's countdown to go down to zero, one second at a
 * time from at most from, checking that Retry is disabled meanwhile, and
 * returns the Retry button, enabled. The page itself records each text
 * the toast shows (a MutationObserver), so that a slow test machine
 * polling from outside cannot miss a second.
 */
async function countDown(toast, from) {
  const retry = toast.getByRole('button', { name: 'Retry' });
  await toast.evaluate((el) => {
    const seen = [];
    const read = () => {
      const text = el.querySelector('[data-triage-error]')?.textContent ?? '';
      const m = /Retry in (\d+)s/.exec(text);
      if (m && seen.at(-1)?.n !== Number(m[1])) {
        seen.push({ n: Number(m[1]), disabled: el.querySelector('button[data-action]')?.disabled });
      }
    };
    read();
    new MutationObserver(read).observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
    el.__countdown = seen;
  });
  await waitFor('the countdown to reach zero', async () =>
    (await toast.evaluate((el) => el.querySelector('[data-triage-error]')?.textContent ?? '')).includes('You can retry now.'),
  (from + 3) * 1000);
  const record = await toast.evaluate((el) => el.__countdown);
  const seen = record.map((r) => r.n);
  assert.ok(seen.length > 0 && seen[0] <= from, `the countdown from ${from}: ${seen}`);
  assert.deepEqual(seen, Array.from({ length: seen[0] }, (_, i) => seen[0] - i), `the countdown skipped a second: ${seen}`);
  for (const r of record) assert.equal(r.disabled, true, `Retry is enabled at ${r.n}s`);
  assert.equal(await retry.isEnabled(), true);
  return retry;
}

/** The text of the conversation's messages, by role. */
async function conversation(page) {
  return page.$$eval('.messages .message', (ms) => ms.map((m) => `${m.dataset.role}: ${m.querySelector('.text').textContent}`));
}

/** The thread in order: the messages, and the marks of failures ("failed: CODE") and notices. */
async function thread(page) {
  return page.$$eval('.messages > li', (items) =>
    items.flatMap((li) => {
      if (li.classList.contains('message')) return [`${li.dataset.role}: ${li.querySelector('.text').textContent}`];
      if (li.classList.contains('run-failed')) return [`failed: ${li.dataset.code}`];
      if (li.classList.contains('run-notice')) return [`notice: ${li.querySelector('.text').textContent}`];
      return [];
    }),
  );
}

/** Whether two boxes (boundingBox()) overlap. */
function overlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

test('the playground: the echo agent answers, and fails with RATE_LIMITED', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/#/playground`);
  // The registry: the default one, echo.
  await page.getByLabel('Agent').waitFor();
  assert.deepEqual(await page.getByLabel('Agent').locator('option').allInnerTexts(), ['echo (script)']);

  // An answer.
  await page.getByLabel('Message').fill('hello there, agent');
  await page.getByRole('button', { name: 'Send' }).click();
  await waitFor('the answer', async () => (await conversation(page)).at(-1) === 'assistant: You said: hello there, agent');

  // A rate-limited run: the kit's warning toast, counting down from 3. The
  // page records the first countdown a toast shows as it appears, so that
  // a slow machine reading it a second late still sees where it began.
  await page.evaluate(() => {
    window.__firstCountdown = null;
    const read = () => {
      const m = /Retry in (\d+)s/.exec(document.querySelector('[data-sonner-toast] [data-triage-error]')?.textContent ?? '');
      if (m && window.__firstCountdown === null) window.__firstCountdown = Number(m[1]);
    };
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByLabel('Message').fill('fail with RATE_LIMITED after 3s');
  await page.getByRole('button', { name: 'Send' }).click();
  const toast = toastOf(page, 'RATE_LIMITED');
  await toast.waitFor();
  assert.equal(await toast.getAttribute('data-type'), 'warning');
  await waitFor('the first countdown', async () => (await page.evaluate(() => window.__firstCountdown)) !== null);
  assert.equal(await page.evaluate(() => window.__firstCountdown), 3, 'the countdown did not begin at the retry delay, 3s');
  assert.equal(await page.locator('.run-failed').getAttribute('data-code'), 'RATE_LIMITED');
  assert.deepEqual((await thread(page)).slice(-2), ['user: fail with RATE_LIMITED after 3s', 'failed: RATE_LIMITED']);
  assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true, 'Send is enabled during the countdown');
  // On a wide window the toast is beside the thread, not over it.
  assert.equal(await toast.isVisible(), true);
  const toastBox = await toast.boundingBox();
  assert.ok(!overlap(toastBox, await page.locator('.chat').boundingBox()), 'the toast covers the conversation');
  await screenshot(page, 'playground-rate-limited');
  const retry = await countDown(toast, 3);

  // Retry runs the agent again on the same conversation: the script fails
  // that message every time, so the retry fails again, counting down anew.
  const runs = () => watch.trouble.requests.filter((r) => r.method() === 'POST' && r.url().endsWith('/v1/agents/echo/runs'));
  assert.equal(runs().length, 2);
  await retry.click();
  await waitFor('the retried run', () => runs().length === 3);
  const retried = JSON.parse(runs()[2].postData());
  assert.equal(retried.messages.at(-1).content, 'fail with RATE_LIMITED after 3s');
  assert.deepEqual(retried.messages.map((m) => m.content), JSON.parse(runs()[1].postData()).messages.map((m) => m.content));
  // One toast, the new one: the first one went when Retry was used.
  const shown = page.locator('[data-sonner-toast][data-removed="false"]');
  // (Both texts in one read: the old toast may still be there between a
  // count and a strict innerText.)
  await waitFor('the new toast, alone', async () => {
    const texts = await shown.allInnerTexts();
    return texts.length === 1 && /Retry in/.test(texts[0]);
  }, 3000);
  await countDown(toastOf(page, 'RATE_LIMITED'), 3);
  assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true, 'Send without a message');
  // The conversation goes on.
  await page.getByLabel('Message').fill('and now?');
  await page.getByRole('button', { name: 'Send' }).click();
  await waitFor('the answer', async () => (await conversation(page)).at(-1) === 'assistant: You said: and now?');
  await toastOf(page, 'RATE_LIMITED').waitFor({ state: 'detached' });

  // A notice (seed 001's user_error, a CUSTOM event): a toast of its own,
  // and the answer still comes.
  await page.getByLabel('Message').fill('warn with SERVICE_UNAVAILABLE after 5s');
  await page.getByRole('button', { name: 'Send' }).click();
  const notice = page.locator('[data-sonner-toast]', { hasText: 'Service temporarily unavailable. Please try again later.' });
  await notice.waitFor();
  assert.equal(await notice.getAttribute('data-type'), 'warning');
  assert.match(await notice.innerText(), /Trying again in 5s may help/);
  await waitFor('the answer after the notice', async () =>
    (await conversation(page)).at(-1) === 'assistant: You said: warn with SERVICE_UNAVAILABLE after 5s');
  // The thread: the failed prompt marked once (its retry failed the same
  // way), and the notice under its prompt, not as a failure.
  assert.deepEqual(await thread(page), [
    'user: hello there, agent',
    'assistant: You said: hello there, agent',
    'user: fail with RATE_LIMITED after 3s',
    'failed: RATE_LIMITED',
    'user: and now?',
    'assistant: You said: and now?',
    'user: warn with SERVICE_UNAVAILABLE after 5s',
    'notice: Service temporarily unavailable. Please try again later. Trying again in 5s may help.',
    'assistant: You said: warn with SERVICE_UNAVAILABLE after 5s',
  ]);
  assert.equal(await page.locator('.run-failed[data-latest="true"]').count(), 0, 'a notice was shown as a failed run');
  await watch.check();
});

/** A fake of OpenAI's chat completions API: 429 for the first request, then a streamed answer. */
async function fakeOpenAI(t) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (b) => (body += b));
    req.on('end', () => {
      const r = JSON.parse(body);
      requests.push({ path: req.url, auth: req.headers.authorization, messages: r.messages });
      if (requests.length === 1) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '3' });
        res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests.', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const chunk = (delta, finish = null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }));
      // A word every 150ms: slow enough for the page to show each.
      const words = ['The ', 'rate ', 'limit ', 'has ', 'passed.'];
      const next = () => {
        const w = words.shift();
        if (w !== undefined) {
          res.write(chunk({ content: w }));
          setTimeout(next, 150);
          return;
        }
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
      };
      next();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  defer(t, () => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests };
}

test('the playground: Retry after a provider rate limit succeeds, the answer streamed', { timeout: 60_000 }, async (t) => {
  const openai = await fakeOpenAI(t);
  const agents = join(tempDir(t), 'agents.yaml');
  writeFileSync(
    agents,
    `agents:
  - id: echo
    kind: script
  - id: llm
    kind: openai
    description: An OpenAI model (a fake of the API, here).
    model: fake-model
    apiKeyEnv: TRIAGE_E2E_OPENAI_KEY
    baseURL: ${openai.url}
`,
  );
  const svc = await startServe(t, { args: ['--agents', agents], env: { TRIAGE_E2E_OPENAI_KEY: 'sk-test-0123456789' } });
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/#/playground?agent=llm`);
  await page.getByText('An OpenAI model').waitFor();
  assert.deepEqual(await page.getByLabel('Agent').locator('option').allInnerTexts(), ['echo (script)', 'llm (openai)']);

  await page.getByLabel('Message').fill('Summarize the sales');
  await page.getByRole('button', { name: 'Send' }).click();
  const toast = toastOf(page, 'RATE_LIMITED');
  await toast.waitFor();
  assert.match(await toast.innerText(), /Retry in 3s/);
  const retry = await countDown(toast, 3);
  // The answer streams: the page shows it as it grows.
  await page.evaluate(() => {
    window.__texts = [];
    new MutationObserver(() => {
      const a = [...document.querySelectorAll('.message.assistant .text')].at(-1);
      if (a && window.__texts.at(-1) !== a.textContent) window.__texts.push(a.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await retry.click();
  await waitFor('the answer', async () => (await conversation(page)).at(-1) === 'assistant: The rate limit has passed.');
  const texts = await page.evaluate(() => window.__texts);
  assert.ok(texts.length >= 3, `the answer came in ${texts.length} piece(s): ${JSON.stringify(texts)}`);
  assert.ok(texts.every((s, i) => i === 0 || s.startsWith(texts[i - 1])), JSON.stringify(texts));
  await toast.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Send' }).waitFor(); // the run is over
  assert.equal(await page.locator('.run-failed').count(), 0);
  assert.deepEqual(await conversation(page), ['user: Summarize the sales', 'assistant: The rate limit has passed.']);
  // The provider was asked twice, the same conversation, with the key.
  assert.equal(openai.requests.length, 2);
  for (const r of openai.requests) {
    assert.equal(r.path, '/v1/chat/completions');
    assert.equal(r.auth, 'Bearer sk-test-0123456789');
    assert.deepEqual(r.messages.map((m) => m.content), ['Summarize the sales']);
  }
  await screenshot(page, 'playground-retried');
  await watch.check();
});

/**
 * Waits for the countdown of a failure's mark in the thread to go down to
 * zero from at most from, Retry disabled meanwhile (recorded in the page,
 * as countDown does for the toast), and returns its Retry, enabled.
 */
async function markCountDown(mark, from) {
  const retry = mark.getByRole('button', { name: 'Retry' });
  await mark.evaluate((el) => {
    const seen = [];
    const read = () => {
      const m = /Retry in (\d+)s/.exec(el.querySelector('[role="timer"]')?.textContent ?? '');
      if (m && seen.at(-1)?.n !== Number(m[1])) seen.push({ n: Number(m[1]), disabled: el.querySelector('button')?.disabled });
    };
    read();
    new MutationObserver(read).observe(el, { subtree: true, childList: true, characterData: true, attributes: true });
    el.__countdown = seen;
  });
  await waitFor('the mark\'s countdown to reach zero', async () => (await mark.innerText()).includes('You can retry now.'), (from + 3) * 1000);
  const record = await mark.evaluate((el) => el.__countdown);
  const seen = record.map((r) => r.n);
  assert.ok(seen.length > 0 && seen[0] <= from, `the countdown from ${from}: ${seen}`);
  assert.deepEqual(seen, Array.from({ length: seen[0] }, (_, i) => seen[0] - i), `the countdown skipped a second: ${seen}`);
  for (const r of record) assert.equal(r.disabled, true, `Retry is enabled at ${r.n}s`);
  assert.equal(await retry.isEnabled(), true);
  return retry;
}

/** Asserts that the composer is wholly in the window, and the page does not scroll sideways. */
async function composerInView(page, what) {
  const box = await page.locator('.composer').boundingBox();
  const { width, height, scrollWidth } = await page.evaluate(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
  }));
  assert.ok(box && box.y >= 0 && box.y + box.height <= height + 0.5, `${what}: the composer is at ${JSON.stringify(box)}, the window ${height} px high`);
  assert.ok(scrollWidth <= width, `${what}: the page is ${scrollWidth} px wide in a ${width} px window`);
  return box;
}

test('the playground at 390 px: failures marked in the thread, retried from there; the composer in view', { timeout: 90_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${svc.base}/#/playground`);
  await page.getByLabel('Message').waitFor();
  await composerInView(page, 'on load');
  assert.equal(await page.evaluate(() => window.scrollY), 0);

  // A rate-limited prompt: marked under it, with the kit's title and
  // message, and a Retry that waits for the countdown. The toast would
  // cover the thread at this width: it is not shown.
  const runs = () => watch.trouble.requests.filter((r) => r.method() === 'POST' && r.url().endsWith('/v1/agents/echo/runs'));
  await page.getByLabel('Message').fill('fail with RATE_LIMITED after 3s');
  await page.getByRole('button', { name: 'Send' }).click();
  const mark = page.locator('.run-failed[data-code="RATE_LIMITED"]');
  await mark.waitFor();
  assert.deepEqual(await thread(page), ['user: fail with RATE_LIMITED after 3s', 'failed: RATE_LIMITED']);
  assert.match(await mark.innerText(), /Failed: Rate Limited/);
  assert.match(await mark.innerText(), /Request rate limit exceeded/);
  await toastOf(page, 'RATE_LIMITED').waitFor({ state: 'attached' });
  assert.equal(await toastOf(page, 'RATE_LIMITED').isVisible(), false, 'the toast is shown over the thread at 390 px');
  await composerInView(page, 'with a failure');
  await screenshot(page, 'playground-failed-inline');
  const retry = await markCountDown(mark, 3);

  // Retry from the thread: the same conversation again; echo fails it
  // again, so the prompt is marked again, once.
  assert.equal(runs().length, 1);
  await retry.click();
  await waitFor('the retried run', () => runs().length === 2);
  assert.deepEqual(JSON.parse(runs()[1].postData()).messages.map((m) => m.content), ['fail with RATE_LIMITED after 3s']);
  await markCountDown(page.locator('.run-failed[data-code="RATE_LIMITED"]'), 3);
  assert.deepEqual(await thread(page), ['user: fail with RATE_LIMITED after 3s', 'failed: RATE_LIMITED']);

  // Another prompt that fails, for good: marked under it too, without a
  // Retry; the earlier mark keeps its place and loses its Retry.
  await page.getByLabel('Message').fill('fail with PAYLOAD_TOO_LARGE');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.run-failed[data-code="PAYLOAD_TOO_LARGE"]').waitFor();
  assert.deepEqual(await thread(page), [
    'user: fail with RATE_LIMITED after 3s',
    'failed: RATE_LIMITED',
    'user: fail with PAYLOAD_TOO_LARGE',
    'failed: PAYLOAD_TOO_LARGE',
  ]);
  assert.match(await page.locator('.run-failed[data-code="PAYLOAD_TOO_LARGE"]').innerText(), /Retrying would fail the same way/);
  assert.equal(await page.locator('.run-failed').getByRole('button', { name: 'Retry' }).count(), 0);

  // A thread longer than the window: the composer stays at its bottom, the
  // newest answer above it, without scrolling by hand.
  for (let i = 1; i <= 8; i++) {
    await page.getByLabel('Message').fill(`message number ${i}, long enough to wrap on a phone`);
    await page.getByRole('button', { name: 'Send' }).click();
    await waitFor(`answer ${i}`, async () => (await conversation(page)).at(-1) === `assistant: You said: message number ${i}, long enough to wrap on a phone`);
  }
  const { scrollHeight, innerHeight } = await page.evaluate(() => ({ scrollHeight: document.documentElement.scrollHeight, innerHeight: window.innerHeight }));
  assert.ok(scrollHeight > innerHeight * 1.5, `the thread is not longer than the window (${scrollHeight} px)`);
  const composer = await composerInView(page, 'with a long thread');
  const last = await page.locator('.messages .message').last().boundingBox();
  assert.ok(last.y + last.height <= composer.y + 1 && last.y >= 0, `the newest answer is at ${JSON.stringify(last)}, the composer at ${composer.y}`);
  // Scrolled back to the top, the composer is still there.
  await page.evaluate(() => window.scrollTo(0, 0));
  await composerInView(page, 'scrolled to the top');
  await screenshot(page, 'playground-narrow');
  await watch.check();
});

test('the playground after the service restarts: no reload needed', { timeout: 90_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);
  await page.goto(`${svc.base}/#/`);
  await page.getByText('Live').waitFor();
  await page.evaluate(() => {
    window.__samePage = true;
  });
  const chunks = () => watch.trouble.requests.filter((r) => /\/assets\/Playground-[\w-]+\.js$/.test(r.url()));

  // The service is down when the playground is first opened: its chunk
  // cannot be fetched. Once the service is back (Live), it is.
  await svc.stop();
  await page.getByText('Reconnecting…').waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByText('The playground could not be loaded').waitFor();
  await svc.start();
  await page.getByText('Live').waitFor();
  await page.getByLabel('Message').waitFor();
  await page.getByLabel('Message').fill('hello again');
  await page.getByRole('button', { name: 'Send' }).click();
  await waitFor('the answer', async () => (await conversation(page)).at(-1) === 'assistant: You said: hello again');
  assert.ok(chunks().length >= 1);

  // The chunk is loaded, and the service is down when the playground is
  // opened again: its agents cannot be read ("could not be reached").
  // Once it is back, they are.
  await page.getByRole('link', { name: 'Errors' }).click();
  await svc.stop();
  await page.getByText('Reconnecting…').waitFor();
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByText('The service could not be reached').waitFor();
  assert.equal(await page.getByLabel('Message').count(), 0);
  await svc.start();
  await page.getByText('Live').waitFor();
  await page.getByLabel('Message').waitFor();
  assert.equal(await page.getByText('The service could not be reached').count(), 0);

  // A prompt sent while the service is down is marked in the thread; once
  // it is back, Retry runs it, and the next prompt goes through.
  await svc.stop();
  await page.getByText('Reconnecting…').waitFor();
  await page.getByLabel('Message').fill('are you there?');
  await page.getByRole('button', { name: 'Send' }).click();
  const mark = page.locator('.run-failed[data-code="TRANSPORT_ERROR"]');
  await mark.waitFor();
  assert.deepEqual(await thread(page), ['user: are you there?', 'failed: TRANSPORT_ERROR']);
  await svc.start();
  await page.getByText('Live').waitFor();
  await mark.getByRole('button', { name: 'Retry' }).click();
  await waitFor('the retried answer', async () => (await conversation(page)).at(-1) === 'assistant: You said: are you there?');
  assert.deepEqual(await thread(page), ['user: are you there?', 'assistant: You said: are you there?']);
  await page.getByLabel('Message').fill('and now?');
  await page.getByRole('button', { name: 'Send' }).click();
  await waitFor('the next answer', async () => (await conversation(page)).at(-1) === 'assistant: You said: and now?');
  assert.equal(await page.evaluate(() => window.__samePage), true, 'the page reloaded');
  // What Chromium logs of the requests refused while the service was down
  // (or reset as it went down: a connection still in its listen queue
  // when the process exits was never accepted, so it has no answer to
  // get), and what @ag-ui/client logs of the run that could not reach it.
  await watch.check([/net::ERR_CONNECTION_REFUSED/, /net::ERR_CONNECTION_RESET/, /^error: Agent execution failed: TypeError: Failed to fetch\n/]);
});

/** The length of path's body from base as sent with Accept-Encoding coding (compressed, as it travels). */
async function sentSize(base, path, coding) {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { 'Accept-Encoding': coding } }, (res) => {
      let n = 0;
      res.on('data', (b) => (n += b.length));
      res.on('end', () => {
        if (res.statusCode !== 200 || (res.headers['content-encoding'] ?? '') !== (coding === 'identity' ? '' : coding)) {
          reject(new Error(`GET ${path} (${coding}): ${res.statusCode} ${res.headers['content-encoding']}`));
        } else resolve(n);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

test('the errors page loads no playground nor runs pages: its scripts are under 100 KB gzipped', { timeout: 60_000 }, async (t) => {
  const svc = await startServe(t);
  const { page, watch } = await openBrowser(t, svc.base);
  const scripts = () =>
    watch.trouble.requests.map((r) => new URL(r.url()).pathname).filter((p) => p.startsWith('/assets/') && p.endsWith('.js'));
  await page.goto(`${svc.base}/#/`);
  await page.getByText('Live').waitFor();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  // The live stream keeps the network busy: a second of quiet instead.
  await new Promise((r) => setTimeout(r, 1000));
  const first = [...new Set(scripts())];
  assert.ok(first.length >= 1, 'no script was loaded');
  assert.deepEqual(first.filter((p) => /Playground/.test(p)), [], 'the errors page loaded the playground');
  // Nor the runs pages: Runs.tsx and Run.tsx are a chunk of their own (LazyRuns.tsx).
  assert.deepEqual(first.filter((p) => /\/assets\/runs-[\w-]+\.js$/.test(p)), [], 'the errors page loaded the runs pages');
  // As sent: Brotli to Chromium; gzip and identity measured too.
  const sizes = {};
  for (const coding of ['identity', 'gzip', 'br']) {
    sizes[coding] = 0;
    for (const p of first) sizes[coding] += await sentSize(svc.base, p, coding);
  }
  t.diagnostic(`the errors page's first load: ${first.length} scripts, ${sizes.identity} bytes, ${sizes.gzip} gzipped, ${sizes.br} as Brotli`);
  assert.ok(sizes.gzip < 100_000, `the errors page's scripts are ${sizes.gzip} bytes gzipped`);
  assert.ok(sizes.br < sizes.gzip);
  const index = watch.trouble.requests.find((r) => new URL(r.url()).pathname === first[0]);
  assert.equal((await index.response()).headers()['content-encoding'], 'br', 'Chromium was not sent Brotli');

  // The playground is a chunk of its own, loaded when it is opened.
  await page.getByRole('link', { name: 'Playground' }).click();
  await page.getByLabel('Message').waitFor();
  const playground = [...new Set(scripts())].filter((p) => !first.includes(p));
  assert.equal(playground.filter((p) => /\/assets\/Playground-[\w-]+\.js$/.test(p)).length, 1, `the playground's scripts: ${playground}`);
  let chunk = 0;
  for (const p of playground) chunk += await sentSize(svc.base, p, 'gzip');
  t.diagnostic(`the playground's chunk: ${chunk} bytes gzipped`);

  // The runs pages are a chunk loaded when one is first opened: once, for
  // the list and a run's page both.
  const loaded = [...new Set(scripts())];
  await page.getByRole('link', { name: 'Runs' }).click();
  await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
  await page.locator('table.runs, .empty').first().waitFor();
  const runs = [...new Set(scripts())].filter((p) => !loaded.includes(p));
  assert.equal(runs.filter((p) => /\/assets\/runs-[\w-]+\.js$/.test(p)).length, 1, `the runs pages' scripts: ${runs}`);
  let runsChunk = 0;
  for (const p of runs) runsChunk += await sentSize(svc.base, p, 'gzip');
  t.diagnostic(`the runs pages' chunk: ${runsChunk} bytes gzipped`);
  await page.goto(`${svc.base}/#/runs/never-ran`);
  await page.locator('.problem[data-code="NOT_FOUND"]').waitFor();
  await watch.check([/Failed to load resource: the server responded with a status of 404/]);
});
