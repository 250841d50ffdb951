// Package render writes the fault code table as TypeScript: AGUIErrorCode
// (a frozen object and a union type, not an enum) and, for each code, the defaults of its facets (HTTP
// status, category, domain, retryability, session validity, JSON-RPC code,
// problem type, title and the message safe for end users), so that the web
// kit (web/packages/kit, the npm package @triage/kit) reads the same table as the Go packages.
//
// Everything comes from fault.Codes, fault.Categories and fault.Domains,
// in their documented order; the output depends on nothing else, so it is
// the same on every run and every machine. Command tsgen writes it to
// web/packages/kit/src/codes.ts, and a test in package web fails when that file
// differs from what Codes renders.
package render
