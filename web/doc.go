// Package web holds Triage's front end, an npm project beside the Go code
// (one package.json and package-lock.json for the whole folder, pinned
// exactly), and serves its dashboard.
//
// src/kit is the TypeScript kit for AG-UI errors: the AGUIErrorCode enum
// and the code table, generated from fault.Codes (src/kit/codes.ts; run
// `go generate ./web` after changing the table), parsers for RUN_ERROR
// events and problem+json responses, and useAGUIErrorHandler, a React hook
// that plugs into @ag-ui/client's HttpAgent as an AgentSubscriber and shows
// each failure as a toast, with a retry countdown when the server says when
// to retry.
//
// src/dashboard is the dashboard `triage serve` serves at /: the error
// records, live; one record with its root cause, actions, attempts and
// jobs; and a playground that runs the service's agents through HttpAgent,
// its failures shown by the kit. `npm run build` builds it into dist/
// (the playground, with @ag-ui/client, a chunk of its own loaded when it is
// first shown; a Brotli copy beside each text file), which is committed
// and embedded: Handler serves it, Brotli or gzip to a browser that takes
// it, so the binary needs no Node.js. See docs/dashboard.md.
//
// The tests check that src/kit/codes.ts matches the code table, and, when
// Node.js and web/node_modules are there (`npm ci --prefix web`), run the
// type check and the Vitest suite and rebuild the dashboard to check that
// dist/ is its build; they skip, saying so, when they are not. The browser
// tests (e2e/) run from `go test ./cmd/triage`.
package web
