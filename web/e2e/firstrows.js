// Time to first rows: how long the errors page takes, in Chromium, from
// the navigation's start to its first row on screen, against `triage
// serve` on a store given to it (FIRSTROWS_DB; the benchmark
// BenchmarkDashboardFirstRows in cmd/triage fills one with 100,000 records
// and runs this). Not a test: a measure, run by hand.
//
// Each run opens a new browser context (an empty cache: a first visit),
// loads /#/, and then reloads it (a later visit: the page revalidated,
// the assets from the cache). The page itself records when the first row
// is in the document and when the frame after it is painted
// (requestAnimationFrame), in performance.now() time, whose origin is the
// navigation's start. Prints one JSON line: each run's times in
// milliseconds, and the list request's duration.
//
// FIRSTROWS_THROTTLE=KBITS,RTT has Chromium emulate a slower network (its
// DevTools network conditions: KBITS kbit/s down and up, RTT ms of
// latency; Lighthouse's "slow 4G" is 1600,150), where the weight of the
// scripts shows.
//
//	TRIAGE_BIN=… TRIAGE_TEST_CHROMIUM=/usr/bin/chromium FIRSTROWS_DB=… node e2e/firstrows.js

import { spawn } from 'node:child_process';

import { chromium } from 'playwright-core';

const { TRIAGE_BIN: bin, TRIAGE_TEST_CHROMIUM: chromiumPath, FIRSTROWS_DB: db } = process.env;
const runs = Number(process.env.FIRSTROWS_RUNS ?? 5);
const throttle = process.env.FIRSTROWS_THROTTLE?.split(',').map(Number);
if (!bin || !chromiumPath || !db) throw new Error('set TRIAGE_BIN, TRIAGE_TEST_CHROMIUM and FIRSTROWS_DB');

const serve = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--db', db], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME },
  stdio: ['ignore', 'pipe', 'inherit'],
});
process.on('exit', () => serve.kill('SIGKILL'));
const base = await new Promise((resolve, reject) => {
  let out = '';
  const timer = setTimeout(() => reject(new Error(`triage serve printed no address in 60s:\n${out}`)), 60_000);
  serve.stdout.on('data', (b) => {
    out += b;
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m && /Dashboard at /.test(out)) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
  serve.once('exit', (code) => reject(new Error(`triage serve exited (${code}):\n${out}`)));
});
serve.stdout.resume();

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});

/** Loads (or reloads) the errors page and returns when its first row was there and painted. */
async function measure(page, load) {
  await load();
  await page.waitForFunction(() => window.__firstRow !== null, null, { timeout: 60_000 });
  return page.evaluate(() => {
    const list = performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === '/v1/errors');
    return { ...window.__firstRow, list: list ? Math.round(list.duration) : null, rows: document.querySelectorAll('[data-error-id]').length };
  });
}

const result = { cold: [], warm: [] };
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' });
  await context.addInitScript(() => {
    window.__firstRow = null;
    const seen = () => {
      if (window.__seen || !document.querySelector('[data-error-id]')) return;
      window.__seen = true;
      const inDocument = performance.now();
      requestAnimationFrame(() => {
        window.__firstRow = { inDocument: Math.round(inDocument), painted: Math.round(performance.now()) };
      });
    };
    new MutationObserver(seen).observe(document, { subtree: true, childList: true });
  });
  const page = await context.newPage();
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    const [kbits, rtt] = throttle;
    const bytes = (kbits * 1000) / 8;
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: rtt, downloadThroughput: bytes, uploadThroughput: bytes });
  }
  result.cold.push(await measure(page, () => page.goto(`${base}/#/`)));
  result.warm.push(await measure(page, () => page.reload()));
  await context.close();
}
await browser.close();
serve.kill('SIGTERM');
console.log(JSON.stringify(result));
