// Package jsonmembertest holds the test helpers of the packages whose
// decoders fail with a *jsonmember.ValidationError (wire/jsonrpc,
// wire/present). It is meant for _test.go files only.
package jsonmembertest
