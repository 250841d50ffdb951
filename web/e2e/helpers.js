// Shared helpers of the dashboard's browser tests: they start the triage
// binary (TRIAGE_BIN) as `triage serve` on a free loopback port, drive
// Debian's Chromium (TRIAGE_TEST_CHROMIUM) through playwright-core, and
// watch the page for what must never happen: a console error, an uncaught
// exception, a Content-Security-Policy violation, a request to anything
// but the service. Every process a test starts is stopped by the test's
// cleanup, and by this process's exit as a backstop.
//
// Run them through `go test ./cmd/triage -run Dashboard`, which builds the
// binary and sets the variables; TRIAGE_SCREENSHOTS names the directory
// the screenshots go to (docs/img to refresh the documentation's).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const BIN = process.env.TRIAGE_BIN;
export const CHROMIUM = process.env.TRIAGE_TEST_CHROMIUM;
if (!BIN || !CHROMIUM) {
  throw new Error('TRIAGE_BIN or TRIAGE_TEST_CHROMIUM is unset: run these tests through `go test ./cmd/triage -run Dashboard`');
}
const SHOTS = process.env.TRIAGE_SCREENSHOTS;

/** The repository's root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A report of the CLI's golden runs (cmd/triage/internal/cli/testdata/handle/NAME.json), parsed. */
export function report(name) {
  return JSON.parse(readFileSync(join(ROOT, 'cmd/triage/internal/cli/testdata/handle', `${name}.json`), 'utf8'));
}

// The processes the tests started and have not seen end, by pid.
const running = new Set();
function killAll() {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    killAll();
    process.exit(130);
  });
}

// A test's cleanups, run after it in the reverse order of their
// registration (t.after runs hooks in order): the browser closes before
// its profile is removed and before the service it talks to stops.
const cleanups = new WeakMap();
export function defer(t, fn) {
  let stack = cleanups.get(t);
  if (!stack) {
    stack = [];
    cleanups.set(t, stack);
    t.after(async () => {
      const failures = [];
      while (stack.length > 0) {
        try {
          await stack.pop()();
        } catch (e) {
          failures.push(e);
        }
      }
      if (failures.length > 0) throw failures[0];
    });
  }
  stack.push(fn);
}

/** Resolves to what p resolves to, or rejects when it takes longer than ms. */
export function within(ms, what, p) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms}ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'triage-e2e-'));
  defer(t, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// The environment of triage: nothing of the caller's TRIAGE_* settings.
function baseEnv(extra = {}) {
  const env = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    if (process.env[k] !== undefined) env[k] = process.env[k];
  }
  return { ...env, ...extra };
}

/**
 * Starts `triage serve` on a free port with a fresh database: args are
 * extra flags, keys the TRIAGE_API_KEYS ('' for none), env more
 * variables. Returns {base, post, restart, stop, start}: restart stops the
 * service and starts it again on the same port and database (what a
 * browser's stream sees as a restart). It is stopped after the test, and
 * must exit 0 within 10s of SIGTERM.
 */
export async function startServe(t, { args = [], keys = '', env = {} } = {}) {
  const dir = tempDir(t);
  const db = join(dir, 't.db');
  let addr = '127.0.0.1:0';
  let child;
  let logs = '';
  const start = async () => {
    child = spawn(BIN, ['serve', '--addr', addr, '--db', db, ...args], {
      env: baseEnv({ ...(keys ? { TRIAGE_API_KEYS: keys } : {}), ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const c = child;
    running.add(c.pid);
    c.exited = once(c, 'exit').then(() => running.delete(c.pid));
    c.stderr.on('data', (b) => {
      logs += b;
      if (process.env.TRIAGE_E2E_DEBUG) process.stderr.write(b);
    });
    let out = '';
    const base = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`triage serve printed no address in 15s:\n${out}\n${logs}`)), 15_000);
      c.stdout.on('data', (b) => {
        out += b;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && /Dashboard at /.test(out)) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      c.once('exit', (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`triage serve exited (${code ?? sig}):\n${out}\n${logs}`));
      });
    });
    c.stdout.resume();
    addr = base.replace('http://', '');
    return base;
  };
  const stop = async () => {
    const c = child;
    if (c.exitCode !== null || c.signalCode !== null) {
      assert.fail(`triage serve ended on its own (${c.exitCode ?? c.signalCode}):\n${logs}`);
    }
    c.kill('SIGTERM');
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(resolve, 10_000, 'late');
    });
    const r = await Promise.race([c.exited, late]);
    clearTimeout(timer);
    if (r === 'late') {
      c.kill('SIGKILL');
      await c.exited;
      assert.fail(`triage serve did not stop within 10s of SIGTERM:\n${logs}`);
    }
    assert.equal(c.exitCode, 0, `triage serve stopped with ${c.exitCode ?? c.signalCode}:\n${logs}`);
  };
  const base = await start();
  let stopped = false;
  defer(t, async () => {
    if (!stopped) await stop();
  });
  return {
    base,
    logs: () => logs,
    /** POSTs a report to /v1/errors and returns the feedback. */
    post: async (body, headers = {}) => {
      const res = await fetch(`${base}/v1/errors`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.ok(res.status === 201 || res.status === 200, `POST /v1/errors: ${res.status} ${text}`);
      return JSON.parse(text);
    },
    restart: async () => {
      await stop();
      await start();
    },
    stop: async () => {
      stopped = true;
      await stop();
    },
    /** Starts the service again after stop(), on the same port and database. */
    start: async () => {
      await start();
      stopped = false;
    },
  };
}

/** Chromium's flags: headless, and none of its own connections (the machine's network refuses them). */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Opens Chromium with a fresh profile and a page watched for trouble:
 * watch.check(allowed) fails the test on a console error (but those
 * matching allowed), an uncaught exception, a CSP violation, or a request
 * to anything but base. Closed after the test.
 */
export async function openBrowser(t, base) {
  const profile = tempDir(t);
  const context = await within(
    30_000,
    'launching Chromium',
    chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 720 },
      locale: 'en-GB',
      timezoneId: 'UTC',
      colorScheme: 'light',
    }),
  );
  defer(t, () => within(15_000, 'closing Chromium', context.close()));
  const trouble = { console: [], errors: [], foreign: [], requests: [] };
  // Recorded in the page before its own scripts run (init scripts are not
  // subject to the page's policy).
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const watchPage = (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') trouble.console.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => trouble.errors.push(String(e)));
    page.on('request', (r) => {
      trouble.requests.push(r);
      if (!r.url().startsWith(`${base}/`)) trouble.foreign.push(r.url());
    });
  };
  context.on('page', watchPage);
  const page = context.pages()[0] ?? (await context.newPage());
  watchPage(page);
  const watch = {
    trouble,
    /** Fails on anything that went wrong in the pages since they opened; allowed lists console errors expected. */
    async check(allowed = []) {
      const unexpected = trouble.console.filter((m) => !allowed.some((re) => re.test(m)));
      assert.deepEqual(unexpected, [], 'console errors or warnings');
      assert.deepEqual(trouble.errors, [], 'uncaught exceptions');
      assert.deepEqual(trouble.foreign, [], 'requests outside the service');
      for (const p of context.pages()) {
        assert.deepEqual(await p.evaluate(() => window.__csp), [], 'Content-Security-Policy violations');
      }
    },
  };
  return { context, page, watch };
}

/** Saves a screenshot of page as NAME.png in TRIAGE_SCREENSHOTS, when set (fullPage: all of it, not the viewport). */
export async function screenshot(page, name, { fullPage = false } = {}) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(join(SHOTS, `${name}.png`), await page.screenshot({ animations: 'disabled', caret: 'hide', fullPage }));
}

/** Polls fn until it returns a truthy value, or fails after ms. */
export async function waitFor(what, fn, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${ms}ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Accessibility and layout, for every page's test (docs/dashboard.md,
// "Accessibility and layout"):
//
//	await checkA11y(page, 'errors, dark, 390px');   // axe-core: no serious or critical violation
//	await checkWidth(page, 'errors, 390px');        // no sideways scroll of the page
//	await forEachView(page, async (view) => { … });  // both themes × 390 and 1280 px

/** axe-core's script (pinned in web/package.json), read once. */
let axeSource;

/** The impacts checkA11y fails on. */
export const A11Y_FAIL_ON = ['serious', 'critical'];

/**
 * Runs axe-core on the page as it is now (all of axe's rules but the
 * experimental ones: WCAG 2.0–2.2 A and AA and best practices) and fails
 * on any serious or critical violation, listing each: its rule, impact,
 * help, and the elements (selector and axe's summary of what is wrong).
 * label names the page and state in the failure ("errors, dark, 390px").
 * options.exclude lists selectors axe leaves out (for a part another test
 * owns; say why where you use it). Finite animations are waited for first
 * (a row's flash, a toast sliding in), so that colours are read at rest.
 * Returns every violation, minor and moderate ones too.
 *
 * axe is evaluated in the page through the DevTools protocol (not a
 * <script> element), so the page's Content-Security-Policy neither blocks
 * it nor reports it.
 */
export async function checkA11y(page, label, { exclude = [] } = {}) {
  axeSource ??= readFileSync(join(ROOT, 'web/node_modules/axe-core/axe.min.js'), 'utf8');
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
          .map((a) => a.finished.catch(() => {})),
      ),
      new Promise((r) => setTimeout(r, 5000)),
    ]),
  );
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async (exclude) => {
    const context = exclude.length > 0 ? { exclude: exclude.map((s) => [s]) } : document;
    const r = await window.axe.run(context, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
    }));
  }, exclude);
  const failing = violations.filter((v) => A11Y_FAIL_ON.includes(v.impact));
  if (failing.length > 0) {
    const list = failing
      .map(
        (v) =>
          `- ${v.id} (${v.impact}): ${v.help}\n` +
          v.nodes
            .slice(0, 5)
            .map((n) => `    ${n.target}\n      ${(n.summary ?? '').replace(/\n/g, '\n      ')}`)
            .join('\n') +
          (v.nodes.length > 5 ? `\n    … and ${v.nodes.length - 5} more` : ''),
      )
      .join('\n');
    assert.fail(`${label}: ${failing.length} serious or critical accessibility violation(s) (axe-core):\n${list}`);
  }
  return violations;
}

/**
 * Fails when the page scrolls sideways at its current width: the
 * document is wider than the window. The failure lists the widest
 * elements that reach past the window's right edge (a table, a long id),
 * ignoring those inside a box that scrolls or clips them.
 */
export async function checkWidth(page, label) {
  const r = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const right = el.getBoundingClientRect().right;
      if (right > width + 1 && !clipped(el)) {
        const id = el.id ? `#${el.id}` : '';
        const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
        out.push({ el: `${el.tagName.toLowerCase()}${id}${cls}`, right: Math.round(right) });
      }
    }
    out.sort((a, b) => b.right - a.right);
    return { width, scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 8) };
  });
  assert.ok(
    r.scrollWidth <= r.width,
    `${label}: the page scrolls sideways (${r.scrollWidth}px of content in a ${r.width}px window); past the edge: ${JSON.stringify(r.out)}`,
  );
}

/** The themes and widths every page is checked in: light and dark (prefers-color-scheme), 390 px (a phone) and 1280 px. */
export const VIEWS = [
  { theme: 'light', width: 390 },
  { theme: 'light', width: 1280 },
  { theme: 'dark', width: 390 },
  { theme: 'dark', width: 1280 },
];

/** The widths the layout must hold at, with no sideways scroll of the page. */
export const WIDTHS = [390, 768, 1280, 1920];

/**
 * Calls fn({theme, width, label}) with the page in each of VIEWS (its
 * colour scheme emulated, its viewport resized), then puts the page back
 * in the light theme at 1280 px.
 */
export async function forEachView(page, fn, views = VIEWS) {
  try {
    for (const v of views) {
      await page.emulateMedia({ colorScheme: v.theme });
      await page.setViewportSize({ width: v.width, height: 800 });
      await fn({ ...v, label: `${v.theme}, ${v.width}px` });
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 720 });
  }
}

/**
 * Opens an MCP session at base's /mcp as a raw client would (initialize
 * with clientInfo, then notifications/initialized), makes fail tool calls
 * that fail (sessions_create with an agent the registry does not have)
 * and ok calls that do not (agents_discover), and closes it (DELETE) when
 * close; returns its Mcp-Session-Id.
 */
export async function mcpSession(base, { client = { name: 'e2e-client', version: '1.2.3' }, fail = 0, ok = 0, close = false, headers = {} } = {}) {
  const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
  const post = async (sid, body) => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...h, ...(sid ? { 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-06-18' } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.status === 200 || res.status === 202, `POST /mcp ${body.method}: ${res.status} ${text}`);
    return { res, text };
  };
  const init = await post('', {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: client },
  });
  const sid = init.res.headers.get('Mcp-Session-Id');
  assert.ok(sid, `initialize gave no session: ${init.text}`);
  await post(sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 2;
  for (let i = 0; i < ok; i++) await post(sid, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'agents_discover', arguments: {} } });
  for (let i = 0; i < fail; i++) {
    const { text } = await post(sid, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'sessions_create', arguments: { agentId: 'nobody' } } });
    assert.match(text, /"isError":true/);
  }
  if (close) {
    const res = await fetch(`${base}/mcp`, { method: 'DELETE', headers: { ...h, 'Mcp-Session-Id': sid } });
    assert.equal(res.status, 204, await res.text());
  }
  return sid;
}
