// Package web holds Triage's front end, an npm workspace beside the Go code
// (one package.json and package-lock.json for the whole folder, pinned
// exactly), and serves its dashboard.
//
// packages/kit is @triage/kit, the TypeScript kit for AG-UI errors: the
// AGUIErrorCode table (a frozen object and a union type, no enum),
// generated from fault.Codes (packages/kit/src/codes.ts; run `go generate
// ./web` after changing the table), parsers for RUN_ERROR events and
// problem+json responses, and useAGUIErrorHandler, a React hook that plugs
// into @ag-ui/client's HttpAgent as an AgentSubscriber and keeps a failed
// run's state, with a retry countdown when the server says when to retry;
// AGUIErrorAlert shows it in the page, and @triage/kit/sonner as toasts.
// packages/client is @triage/client, a TypeScript client of the error API.
// Both are packed with npm pack; docs/kit.md describes them.
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
// The tests check that packages/kit/src/codes.ts matches the code table, and, when
// Node.js and web/node_modules are there (`npm ci --prefix web`), run the
// type check and the Vitest suite and rebuild the dashboard to check that
// dist/ is its build; they skip, saying so, when they are not. The browser
// tests (e2e/) run from `go test ./cmd/triage`.
package web
