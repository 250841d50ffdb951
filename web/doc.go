// Package web holds Triage's front end, an npm project beside the Go code:
// one package.json and package-lock.json for the whole folder, pinned
// exactly.
//
// src/kit is the TypeScript kit for AG-UI errors: the AGUIErrorCode enum
// and the code table, generated from fault.Codes (src/kit/codes.ts; run
// `go generate ./web` after changing the table), parsers for RUN_ERROR
// events and problem+json responses, and useAGUIErrorHandler, a React hook
// that plugs into @ag-ui/client's HttpAgent as an AgentSubscriber and shows
// each failure as a toast, with a retry countdown when the server says when
// to retry. src/dashboard is reserved for the dashboard app, which shares the
// project.
//
// The package has no Go API. Its tests check that src/kit/codes.ts matches
// the code table, and run the kit's type check and Vitest suite when Node.js
// and web/node_modules are there (`npm ci --prefix web`); they skip, saying
// so, when they are not.
package web
