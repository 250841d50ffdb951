package jsonrpc

import "github.com/triage-go/triage/internal/jsonmember"

// ValidationError reports why a document is not a valid JSON-RPC error
// object or response, or why an error's data is not Triage's: the member at
// fault, in Fields, as a dotted path ("error.code", "data.retryable"; "(root)"
// for the document itself), and the rule it breaks. Its text begins "jsonrpc: ".
//
// It lists that member as a field error, so fault.From turns it into an
// INVALID_REQUEST fault. It is the module's one validation error
// (internal/jsonmember's), which wire/agui returns too.
type ValidationError = jsonmember.ValidationError

// dec decodes members strictly; its errors name this package.
var dec = jsonmember.Decoder{Package: "jsonrpc"}
