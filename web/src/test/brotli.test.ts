// @vitest-environment node
//
// The Brotli files the build writes beside the dashboard's text files
// (vite.config.ts) are those files: package web serves NAME.br for NAME to
// a browser that takes br, and Go's standard library has no Brotli reader
// to check that with (web/handler_test.go checks that the bytes served
// are the file's).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';

import { expect, test } from 'vitest';

const dist = join(import.meta.dirname, '..', '..', 'dist');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

test('each .br of dist/ is its file, compressed, and each script and stylesheet has one', () => {
  const files = walk(dist);
  const brs = files.filter((f) => f.endsWith('.br'));
  for (const br of brs) {
    const plain = br.slice(0, -'.br'.length);
    expect(files, `${br} has no file`).toContain(plain);
    const body = readFileSync(plain);
    expect(brotliDecompressSync(readFileSync(br)).equals(body), `${br} is not ${plain}`).toBe(true);
    expect(readFileSync(br).length).toBeLessThan(body.length);
  }
  const text = files.filter((f) => /\.(?:js|css|html)$/.test(f));
  expect(text.length).toBeGreaterThan(2);
  for (const f of text) expect(brs, `${f} has no .br`).toContain(`${f}.br`);
});
