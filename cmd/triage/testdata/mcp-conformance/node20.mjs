// Run the conformance suite on Node 20: its CLI imports fs.globSync (added
// in Node 22) for its tier-check command only, which Triage's tests do not
// run. Node 20 has no such export, so the import fails before any scenario
// runs; this hook gives the suite's own module an fs that has one (it throws
// if ever called). Loaded with `node --import ./node20.mjs`.
import { register } from 'node:module';
import * as fs from 'node:fs';

if (typeof fs.globSync !== 'function') {
  register('./node20-hooks.mjs', import.meta.url);
}
