// Package errdata reads the data member of a JSON-RPC error as Triage's
// (the inverse of wire/jsonrpc's From): the facets a peer sent — type,
// code, domain, retryable, sessionValid, retryAfter, httpStatus, details,
// errors — each nil when the peer left it out, so that a reader keeps its
// own defaults for the others.
//
// It is wire/jsonrpc's decoder of that member, which (*jsonrpc.Error).Fault
// and ParseData use, in a package of its own so that a program that reads
// another protocol's JSON-RPC errors (the ACP workers of package agent/acp)
// does not carry the MCP go-sdk, which wire/jsonrpc depends on.
package errdata
