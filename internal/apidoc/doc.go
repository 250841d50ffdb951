// Package apidoc is the vocabulary of the service's description: an
// Operation says what one route of the API takes and answers. The server
// keeps the table of its operations, each beside its handler, so that a
// route cannot be served without its description nor described without
// being served; cmd/openapigen writes server/openapi.json from that table
// (server.Operations) and the API's Go types.
package apidoc
