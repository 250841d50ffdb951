// The workspace's packages as their users get them: `npm pack` makes the
// tarballs of @triage/kit and @triage/client (their prepack builds them),
// and each is installed where a user would install it:
//
// - the kit into a fresh create-vite React + TypeScript app
//   (testdata/create-vite-react-ts: what `npm create vite@9.3.0 --
//   --template react-ts` wrote, default settings, with its lockfile), whose
//   App (testdata/kit-app/App.tsx) runs triage serve's echo agent through
//   HttpAgent and shows its failure with the kit; the template's own
//   `npm run build` (tsc -b, then vite build) must pass, and the built app,
//   in Chromium, must show the failure, its countdown and a Retry that
//   looks disabled until the countdown ends (the kit's CSS, no toast
//   library), and report the failure to the service with the client's
//   tarball, from the browser. The gzip bytes the kit adds to the app's
//   bundle are measured against the same app without it (and the client's
//   against the app with the kit).
// - the client into an empty Node project, where a TypeScript script,
//   type-checked against the installed package under Node's own module
//   resolution, reports an error to a real triage serve and reads it back.
//
// The sizes are printed (ℹ lines); docs/kit.md quotes them. Run through
// `go test ./cmd/triage -run TestPackagesInstall`, which builds the binary
// and sets TRIAGE_BIN and TRIAGE_TEST_CHROMIUM; the installs need the npm
// registry (or npm's cache).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

import { defer, openBrowser, ROOT, startServe, tempDir, waitFor } from '../e2e/helpers.js';

const WEB = join(ROOT, 'web');
const TEMPLATE = join(WEB, 'testdata', 'create-vite-react-ts');
const KIT_APP = join(WEB, 'testdata', 'kit-app');
// The versions of the kit's peers the app installs (web/package.json pins the same).
const pins = JSON.parse(readFileSync(join(WEB, 'package.json'), 'utf8')).dependencies;

const run = promisify(execFile);

/** Runs npm with args in cwd; its output is kept for the failure message. */
async function npm(cwd, ...args) {
  try {
    const { stdout } = await run('npm', args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
      maxBuffer: 64 << 20,
    });
    return stdout;
  } catch (e) {
    assert.fail(`npm ${args.join(' ')} in ${cwd} failed:\n${e.stdout}\n${e.stderr}`);
  }
}

// The tarballs, packed once for both tests.
let packing;
function pack() {
  packing ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'triage-packages-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    const out = await npm(WEB, 'pack', '--json', '--pack-destination', dir, '-w', '@triage/kit', '-w', '@triage/client');
    const byName = Object.fromEntries(JSON.parse(out).map((p) => [p.name, { ...p, path: join(dir, p.filename) }]));
    for (const p of Object.values(byName)) {
      console.log(`ℹ tarball ${p.filename}: ${p.size} bytes (${p.unpackedSize} unpacked, ${p.entryCount} files)`);
    }
    return byName;
  })();
  return packing;
}

/** The gzip bytes (level 9) of the JS and CSS a Vite build wrote under dist/assets. */
function bundleBytes(app) {
  const assets = join(app, 'dist', 'assets');
  let raw = 0;
  let gzip = 0;
  for (const name of readdirSync(assets).filter((n) => /\.(js|css)$/.test(n))) {
    const data = readFileSync(join(assets, name));
    raw += data.length;
    gzip += gzipSync(data, { level: 9 }).length;
  }
  return { raw, gzip };
}

/**
 * Serves a Vite build (dist/) on a loopback port, and passes /v1/… to
 * the service at upstream, streaming (as a production app's reverse proxy
 * would): the page and the agent are on one origin. Stopped after the test.
 */
async function serveApp(t, dist, upstream) {
  const target = new URL(upstream);
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };
  const server = createServer((req, res) => {
    if (req.url.startsWith('/v1/')) {
      const out = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
      return;
    }
    const path = new URL(req.url, 'http://x').pathname;
    const file = join(dist, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(t, () => new Promise((resolve) => server.close(resolve)));
  defer(t, () => server.closeAllConnections());
  return `http://127.0.0.1:${server.address().port}`;
}

test('the kit installs into a fresh create-vite React-TS app, which type-checks, builds, shows a failing run and reports it with the client', { timeout: 280_000 }, async (t) => {
  const [packed, service] = await Promise.all([pack(), startServe(t)]);
  const app = join(tempDir(t), 'app');
  cpSync(TEMPLATE, app, { recursive: true });
  await npm(app, 'ci');

  // The bundle of the template as it is, then of the same app with
  // @ag-ui/client, then with the kit too.
  await npm(app, 'exec', '--no', '--', 'vite', 'build', '--logLevel', 'warn');
  const template = bundleBytes(app);
  await npm(app, 'install', packed['@triage/kit'].path, `@ag-ui/client@${pins['@ag-ui/client']}`, `@ag-ui/core@${pins['@ag-ui/core']}`);
  // No toast library came with it: sonner is an optional peer.
  assert.equal(existsSync(join(app, 'node_modules', 'sonner')), false, 'installing the kit installed sonner');
  copyFileSync(join(KIT_APP, 'Baseline.tsx'), join(app, 'src', 'App.tsx'));
  await npm(app, 'exec', '--no', '--', 'vite', 'build', '--logLevel', 'warn');
  const agui = bundleBytes(app);
  copyFileSync(join(KIT_APP, 'App.tsx'), join(app, 'src', 'App.tsx'));
  copyFileSync(join(KIT_APP, 'report-none.ts'), join(app, 'src', 'report.ts'));
  await npm(app, 'exec', '--no', '--', 'vite', 'build', '--logLevel', 'warn');
  const kit = bundleBytes(app);
  console.log(`ℹ bundle gzip bytes: template ${template.gzip}, with @ag-ui/client ${agui.gzip}, with the kit too ${kit.gzip}`);
  console.log(`ℹ the kit adds ${kit.gzip - agui.gzip} gzip bytes (${kit.raw - agui.raw} minified) to an app with @ag-ui/client; kit and @ag-ui/client together add ${kit.gzip - template.gzip}`);
  assert.ok(kit.gzip > agui.gzip, 'the kit added nothing to the bundle: is it in the App?');

  // The app as the test opens it: it also reports each failed run with
  // @triage/client, from the browser. The template's build: tsc -b
  // (erasableSyntaxOnly, noUnusedLocals, …), then vite build.
  await npm(app, 'install', packed['@triage/client'].path);
  copyFileSync(join(KIT_APP, 'report-client.ts'), join(app, 'src', 'report.ts'));
  await npm(app, 'run', 'build');
  const client = bundleBytes(app);
  console.log(`ℹ @triage/client adds ${client.gzip - kit.gzip} gzip bytes (${client.raw - kit.raw} minified) to that app`);

  // The built app, served with the service behind /v1, in Chromium.
  const base = await serveApp(t, join(app, 'dist'), service.base);
  const { page, watch } = await openBrowser(t, base);
  await page.goto(`${base}/`);
  await page.getByRole('button', { name: 'Run' }).click();
  const alert = page.locator('.triage-error[data-triage-error="RATE_LIMITED"]');
  await alert.waitFor({ timeout: 15_000 });
  assert.equal(await alert.getAttribute('role'), 'alert');
  assert.equal(await alert.getAttribute('data-tone'), 'warning');
  assert.match(await alert.textContent(), /Request rate limit exceeded\. Please wait before retrying\./);
  assert.match(await alert.getByRole('timer').textContent(), /^Retry in [1-3]s$/);
  const retry = alert.getByRole('button', { name: 'Retry' });
  assert.equal(await retry.isDisabled(), true);
  // The kit's CSS: a disabled Retry looks disabled, with no CSS of the app's.
  const look = () => retry.evaluate((b) => ({ opacity: getComputedStyle(b).opacity, cursor: getComputedStyle(b).cursor }));
  assert.deepEqual(await look(), { opacity: '0.5', cursor: 'not-allowed' });
  assert.notEqual(await alert.evaluate((a) => getComputedStyle(a).backgroundColor), 'rgba(0, 0, 0, 0)', 'the alert has no background: styles.css is not applied');
  await waitFor('Retry enabled after the countdown', async () => !(await retry.isDisabled()), 10_000);
  assert.match(await alert.textContent(), /You can retry now\./);
  assert.deepEqual(await look(), { opacity: '1', cursor: 'pointer' });
  await retry.click();
  await waitFor('the retried run', async () => (await page.getByTestId('runs').textContent()) === '2');
  // The retry fails the same way: the alert is back, counting down again.
  await alert.getByRole('timer').waitFor({ timeout: 15_000 });
  // The client reported the failed run from the page: its record is there.
  const id = await waitFor('the run reported', async () => (await page.getByTestId('reported').count()) > 0 && page.getByTestId('reported').first().textContent(), 15_000);
  const record = await (await fetch(`${service.base}/v1/errors/${id}`)).json();
  assert.equal(record.agent_id, 'kit-app');
  assert.equal(record.report.data.error_code, 'RATE_LIMITED');
  // HttpAgent logs nothing for a RUN_ERROR; the page has no other trouble.
  await watch.check();
});

test('the client installs into an empty Node project, reports an error to triage serve and reads it back', { timeout: 180_000 }, async (t) => {
  const [packed, service] = await Promise.all([pack(), startServe(t)]);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'reporter', private: true, type: 'module' }));
  await npm(dir, 'install', packed['@triage/client'].path);
  // No runtime dependency: the client is all node_modules holds.
  assert.deepEqual(readdirSync(join(dir, 'node_modules')).filter((n) => !n.startsWith('.')), ['@triage']);

  writeFileSync(
    join(dir, 'report.ts'),
    `import { TriageClient, TriageProblem, type ReportInput } from '@triage/client';

// No @types/node in this project: the one Node global the script reads.
declare const process: { argv: string[] };
const triage = new TriageClient({ baseUrl: process.argv[2] ?? '' });
// The same key must come with the same body: the timestamp is set here, as
// report() would fill in a new one on each call.
const report: ReportInput = {
  timestamp: new Date().toISOString(),
  agent_id: 'nightly-etl',
  data: { query_id: 'load-orders', message: 'upstream returned 503 Service Unavailable', error_type: 'system_error' },
  tags: { stack: 'typescript' },
};
const feedback = await triage.report(report, { idempotencyKey: 'etl-2026-12-03' });
const again = await triage.report(report, { idempotencyKey: 'etl-2026-12-03' });
const record = await triage.get(feedback.error_id);
const page = await triage.list({ agent_id: 'nightly-etl', limit: 10 });
let missing: { code: string; status: number } | undefined;
try {
  await triage.get('no-such-error');
} catch (e) {
  if (e instanceof TriageProblem) missing = { code: e.code, status: e.status };
}
let invalid: { code: string; fields: readonly { field: string }[] } | undefined;
try {
  await triage.report({ agent_id: '', data: { query_id: '', message: '' } });
} catch (e) {
  if (e instanceof TriageProblem) invalid = { code: e.code, fields: e.fields };
}
console.log(JSON.stringify({ feedback, again, record, page, missing, invalid }));
`,
  );
  // Type-checked as a Node project would (module nodenext: the package's
  // exports and .d.ts under Node's resolution), with web's TypeScript.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', lib: ['es2022', 'dom'], types: [], strict: true, erasableSyntaxOnly: true, outDir: '.' },
      files: ['report.ts'],
    }),
  );
  const tsc = join(WEB, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}\n${e.stderr}`);
  }
  let out;
  try {
    const { stdout } = await run(process.execPath, [join(dir, 'report.js'), service.base], { cwd: dir });
    out = JSON.parse(stdout);
  } catch (e) {
    assert.fail(`report.js failed:\n${e.stdout}\n${e.stderr}\n${service.logs()}`);
  }
  assert.ok(out.feedback.error_id, 'no error_id');
  assert.notEqual(out.feedback.duplicate, true, 'a new report answered as a duplicate');
  // The repeat with the same key got the first answer again, and the
  // service recorded one occurrence.
  assert.deepEqual(out.again, out.feedback);
  assert.equal(out.record.occurrence_count, 1, 'the same Idempotency-Key was recorded twice');
  assert.equal(out.record.report.data.message, 'upstream returned 503 Service Unavailable');
  assert.equal(out.record.error_id, out.feedback.error_id);
  assert.equal(out.record.agent_id, 'nightly-etl');
  assert.ok(out.page.records.some((r) => r.error_id === out.feedback.error_id), 'the listing lacks the record');
  assert.deepEqual(out.missing, { code: 'NOT_FOUND', status: 404 });
  assert.equal(out.invalid?.code, 'INVALID_REQUEST');
  assert.ok(out.invalid.fields.length > 0, 'INVALID_REQUEST without fields');
});
