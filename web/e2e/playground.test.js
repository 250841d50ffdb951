// The playground, in Chromium, against `triage serve`: an agent of GET
// /v1/agents answers through HttpAgent; a RATE_LIMITED run is the kit's
// toast, whose countdown reaches zero before Retry is enabled; Retry runs
// the agent again on the same conversation; an answer shows as it
// streams.
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
  assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true, 'Send is enabled during the countdown');
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
  await waitFor('the new toast, alone', async () => (await shown.count()) === 1 && /Retry in/.test(await shown.innerText()), 3000);
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
  assert.equal(await page.locator('.run-failed').count(), 0, 'a notice was shown as a failed run');
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
