// Command tsgen writes the TypeScript mirror of the fault code table,
// web/packages/kit/src/codes.ts, for the web kit. It runs from go generate in the web
// package:
//
//	go generate ./web
//
// or by hand from the module root:
//
//	go run ./cmd/tsgen -o web/packages/kit/src/codes.ts
//
// The rendering itself is package render, which web's test calls to fail
// when the committed file is stale.
package main
