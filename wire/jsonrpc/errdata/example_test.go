package errdata_test

import (
	"fmt"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// A worker's error data says some facets only: the reader keeps its own
// defaults for what is nil.
func ExampleParse() {
	d, err := errdata.Parse([]byte(`{"code": "RATE_LIMITED", "retryable": true, "retryAfter": 3}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(*d.Code, *d.Retryable, *d.RetryAfter, d.SessionValid == nil)

	// The inverse of jsonrpc.From's data.
	f := fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithRetryAfter(time.Second))
	d, _ = errdata.Parse(jsonrpc.From(f).Data)
	fmt.Println(*d.Code, *d.Type, *d.SessionValid, *d.HTTPStatus, *d.RetryAfter)

	_, err = errdata.Parse([]byte(`{"retryable": "yes"}`))
	fmt.Println(err)
	// Output:
	// RATE_LIMITED true 3s true
	// SESSION_NOT_FOUND UPSTREAM false 404 1s
	// jsonrpc: member "data.retryable": must be a boolean, got string
}
