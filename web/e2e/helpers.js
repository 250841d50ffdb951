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
