// Real payloads for the kit's tests, read from the Go packages' golden
// files (go test ./wire/... -update rewrites them), so that the kit is
// tested on exactly what Triage writes.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: web/src/test is three levels below it. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Reads a file under the repository's root. */
export function repoFile(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** The JSON of each data: frame of an SSE golden file under wire/agui/testdata. */
export function sseEvents(name: string): Record<string, unknown>[] {
  return repoFile(`wire/agui/testdata/${name}`)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}

/** The last RUN_ERROR event of an SSE golden file under wire/agui/testdata. */
export function runError(name: string): Record<string, unknown> {
  const e = sseEvents(name).filter((e) => e.type === 'RUN_ERROR').at(-1);
  if (e === undefined) throw new Error(`${name} has no RUN_ERROR`);
  return e;
}

/** A problem response recorded under wire/problem/testdata: its status, headers and body. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function problemResponse(name: string): RecordedResponse {
  const text = repoFile(`wire/problem/testdata/${name}`);
  const [head = '', body = ''] = text.split(/\r?\n\r?\n/, 2);
  const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[0]), headers, body: body.trim() };
}
