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
  plugins: [sonnerStylesheet()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // One script, the app with React, @ag-ui/client and its schemas:
    // about 630 kB, 170 kB gzipped; loaded once, then cached for good.
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
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
