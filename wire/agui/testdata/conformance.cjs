// Validates the events wire/agui writes against the official AG-UI 1.0
// packages. Run by TestConformance (conformance_test.go):
//
//   node conformance.cjs DIR CASES.json
//
// DIR is a directory prepared with
//   npm install --prefix DIR @ag-ui/core@1.0.0 zod@4.6.7
// and optionally @ag-ui/client@1.0.0 as well. CASES.json holds
//   {"events":  [{"name", "event", "valid"}],      // one event each
//    "streams": [{"name", "events", "ok", "rejectAt", "reason"}]}  // whole streams
//
// Every event is parsed with @ag-ui/core/schemas' EventSchemas; a valid one
// must parse, keep its metadata intact and keep every member it sent; an
// invalid one (a negative control) must be rejected. When @ag-ui/client is
// installed, every stream also goes through the client's own pipeline
// stages, enforceEvents (which strips unknown members) and verifyEvents
// (the ordering rules): an "ok" stream must pass with nothing stripped and
// RUN_ERROR metadata intact, any other stream must be rejected, at event
// "rejectAt" and, when "reason" is given, with exactly that message.
//
// Prints one line per failure and a summary; exits 1 on any failure.
"use strict";

const fs = require("fs");
const { isDeepStrictEqual } = require("util");

const [dir, casesFile] = process.argv.slice(2);
if (!dir || !casesFile) {
  console.error("usage: node conformance.cjs DIR CASES.json");
  process.exit(2);
}
const load = (id) => require(require.resolve(id, { paths: [dir] }));

const coreVersion = load("@ag-ui/core/package.json").version;
const zodVersion = load("zod/package.json").version;
if (coreVersion !== "1.0.0") {
  console.error(`FAIL @ag-ui/core in ${dir} is ${coreVersion}, want 1.0.0`);
  process.exit(1);
}
const { EventSchemas } = load("@ag-ui/core/schemas");

const cases = JSON.parse(fs.readFileSync(casesFile, "utf8"));
const failures = [];
let metadataChecked = 0;
let runErrors = 0;
let runErrorMetadata = 0;

for (const c of cases.events) {
  const r = EventSchemas.safeParse(c.event);
  if (!c.valid) {
    if (r.success) failures.push(`${c.name}: accepted, but it is a negative control that must be rejected`);
    continue;
  }
  if (!r.success) {
    failures.push(`${c.name}: rejected by EventSchemas: ${JSON.stringify(r.error.issues)}`);
    continue;
  }
  if (c.event.type === "RUN_ERROR") runErrors++;
  if (c.event.metadata !== undefined) {
    metadataChecked++;
    if (c.event.type === "RUN_ERROR") runErrorMetadata++;
    if (!isDeepStrictEqual(r.data.metadata, c.event.metadata)) {
      failures.push(`${c.name}: metadata changed by EventSchemas: ${JSON.stringify(r.data.metadata)}`);
    }
  }
  for (const key of Object.keys(c.event)) {
    if (!(key in r.data)) failures.push(`${c.name}: member ${key} lost by EventSchemas`);
  }
}

let client = null;
try {
  client = load("@ag-ui/client");
} catch {
  // optional
}

async function checkStreams() {
  if (!client) return 0;
  const { of, lastValueFrom, toArray, tap } = load("rxjs");
  let checked = 0;
  for (const s of cases.streams) {
    const warnings = [];
    const warn = console.warn;
    console.warn = (...args) => warnings.push(args.join(" "));
    let out;
    let err;
    let accepted = 0;
    try {
      out = await lastValueFrom(
        of(...s.events).pipe(client.enforceEvents(), client.verifyEvents(), tap(() => accepted++), toArray()),
      );
    } catch (e) {
      err = e;
    } finally {
      console.warn = warn;
    }
    checked++;
    if (!s.ok) {
      if (!err) {
        failures.push(`${s.name}: @ag-ui/client accepted a stream that must be rejected`);
      } else if (s.rejectAt !== undefined && s.rejectAt >= 0 && accepted !== s.rejectAt) {
        failures.push(`${s.name}: @ag-ui/client rejected event ${accepted}, the Verifier event ${s.rejectAt}: ${err.message}`);
      } else if (s.reason && err.message !== s.reason) {
        failures.push(`${s.name}: @ag-ui/client's reason differs:\n  client:   ${err.message}\n  Verifier: ${s.reason}`);
      }
      continue;
    }
    if (err) {
      failures.push(`${s.name}: @ag-ui/client rejected the stream: ${err.message}`);
      continue;
    }
    for (const w of warnings) failures.push(`${s.name}: @ag-ui/client warned: ${w}`);
    out.forEach((e, i) => {
      if (e.type === "RUN_ERROR" && !isDeepStrictEqual(e.metadata, s.events[i].metadata)) {
        failures.push(`${s.name}: RUN_ERROR ${i} metadata changed by the client: ${JSON.stringify(e.metadata)}`);
      }
    });
  }
  return checked;
}

checkStreams().then(
  (streams) => {
    for (const f of failures) console.log(`FAIL ${f}`);
    const clientNote = client
      ? `${streams} streams through @ag-ui/client ${load("@ag-ui/client/package.json").version} enforceEvents+verifyEvents`
      : "@ag-ui/client not installed: streams not run through the client";
    console.log(
      `${failures.length ? "FAILED" : "PASSED"}: ${cases.events.length} events against @ag-ui/core ${coreVersion} EventSchemas (zod ${zodVersion}); ` +
        `metadata intact on ${metadataChecked} (${runErrorMetadata} of ${runErrors} RUN_ERROR carry it); ${clientNote}`,
    );
    process.exit(failures.length ? 1 : 0);
  },
  (e) => {
    console.log(`FAIL harness error: ${e && e.stack}`);
    process.exit(1);
  },
);
