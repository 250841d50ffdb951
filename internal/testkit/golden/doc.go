// Package golden holds the helpers the wire packages' tests share: golden
// files under testdata, which a test compares its output with and rewrites
// when run with -update,
//
//	go test ./wire/... -update
//
// JSON encoding and comparison for tests, and checks that Markdown
// documentation shows golden files as they are.
//
// Importing golden registers the -update flag, so every test binary that
// imports it accepts the flag. It is meant for _test.go files only.
package golden
