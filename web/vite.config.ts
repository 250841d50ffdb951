import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';

import { defaultClientConditions, defaultServerConditions, type Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// One Vite project for the whole of web/: the dashboard (src/dashboard,
// built from index.html into dist/, which package web embeds) and the
// workspace's packages (packages/kit, packages/client), which the dashboard
// imports by name ("@triage/kit") from their sources: the "triage-source"
// export condition, which only this workspace sets, points at src/ (a
// package's published exports point at its build, dist/). Vitest runs
// every *.test.ts(x) under src and packages/*/src in jsdom; the browser
// tests (e2e/) run under node --test, from go test ./cmd/triage.
//
// The build is deterministic (the same sources and lockfile give the same
// bytes; a Go test rebuilds and compares) and self-contained: every asset
// under dist/assets with its content's hash in its name, nothing inlined
// as a data: URL, no source maps, no module preload polyfill.
export default defineConfig({
  base: './',
  publicDir: false,
  resolve: { conditions: ['triage-source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['triage-source', ...defaultServerConditions] } },
  plugins: [sonnerStylesheet(), brotli()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // The app with React (about 300 kB, 92 kB gzipped), and the
    // playground with @ag-ui/client and its schemas in a chunk of its own,
    // loaded when it is first shown (LazyPlayground.tsx); each cached for
    // good.
    chunkSizeWarningLimit: 512,
    rolldownOptions: {
      // Brotli at its best quality (the brotli plugin below) is most of the
      // build's time, on purpose: no report of the plugins' timings.
      checks: { pluginTimings: false },
      onwarn(warning, warn) {
        // sonner's "use client" is for React Server Components; this is
        // a client-only app.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.id?.includes('/sonner/')) return;
        warn(warning);
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'packages/*/src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
});

/**
 * sonner inserts its stylesheet at run time, as a <style> element, which
 * the dashboard's Content-Security-Policy (style-src 'self') refuses. The
 * dashboard imports the same rules from sonner/dist/styles.css instead
 * (bundled into the dashboard's own stylesheet), and this plugin removes
 * the insertion from sonner's module in the build. It fails the build when
 * the insertion is not where it expects it (another sonner version), so
 * the page never runs it by surprise.
 */
function sonnerStylesheet(): Plugin {
  const module = /[\\/]node_modules[\\/]sonner[\\/]dist[\\/]index\.mjs$/;
  const insertion = /^__insertCSS\(".*"\);$/gm;
  let seen = false;
  return {
    name: 'triage:sonner-stylesheet',
    apply: 'build',
    transform(code, id) {
      if (!module.test(id)) return null;
      const found = code.match(insertion)?.length ?? 0;
      if (found !== 1) this.error(`sonner: expected one __insertCSS("…") call in ${id}, found ${found}`);
      seen = true;
      return { code: code.replace(insertion, '/* stylesheet: sonner/dist/styles.css */'), map: null };
    },
    buildEnd(err) {
      if (!err && !seen) this.error('sonner: its module was not transformed; the build would insert its stylesheet at run time');
    },
  };
}

/** The files worth compressing, by extension (text; images are compressed already). */
const compressible = /\.(?:html|js|css|svg|json|txt)$/;

/**
 * Writes NAME.br beside each text file of the build: Brotli at its best
 * (quality 11, text mode), which package web serves to a browser that
 * takes br (web/handler.go). Only where it saves a tenth or more. Node's
 * own zlib module (no dependency); Brotli's output depends only on its
 * input, its parameters and the library's version (1.1.0 in Node 20 to 24),
 * so the build stays deterministic. Gzip is not written here: package web
 * makes it with Go's compress/gzip when it starts (the same bytes on every
 * machine).
 */
function brotli(): Plugin {
  let outDir = '';
  return {
    name: 'triage:brotli',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async writeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
      const compress = promisify(brotliCompress);
      // On libuv's threads, the files at once.
      await Promise.all(
        walk(outDir)
          .filter((file) => compressible.test(file))
          .map(async (file) => {
            const body = readFileSync(file);
            const br = await compress(body, {
              params: {
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
              },
            });
            if (br.length <= body.length * 0.9) writeFileSync(`${file}.br`, br);
          }),
      );
    },
  };
}
