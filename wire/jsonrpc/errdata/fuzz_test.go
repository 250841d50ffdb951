package errdata_test

import (
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/wire/jsonrpc"
	"github.com/triage-go/triage/wire/jsonrpc/errdata"
)

// FuzzParse feeds data members (seeds in testdata/fuzz/FuzzParse) to
// Parse. It may not panic; every failure is a *ValidationError; a delay is
// capped and a status in range; and a fault read from data with a known
// code survives its trip through jsonrpc.From and Parse again: what Parse
// read the second time is what the fault holds.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := errdata.Parse(data)
		jsonmembertest.NilOrInvalid(t, err)
		if err != nil || d == nil {
			return
		}
		if d.RetryAfter != nil && (*d.RetryAfter < 0 || *d.RetryAfter > fault.MaxRetryAfter) {
			t.Fatalf("retryAfter %v", *d.RetryAfter)
		}
		if d.HTTPStatus != nil && (*d.HTTPStatus < 100 || *d.HTTPStatus > 599) {
			t.Fatalf("httpStatus %d", *d.HTTPStatus)
		}
		if d.Code == nil || !d.Code.Known() {
			return
		}
		got := (&jsonrpc.Error{Code: -32000, Message: "m", Data: data}).Fault()
		again, err := errdata.Parse(jsonrpc.From(got).Data)
		if err != nil {
			t.Fatalf("Parse(From(%+v)): %v", got, err)
		}
		if *again.Code != got.Code || *again.Retryable != got.Retryable || *again.SessionValid != got.SessionValid ||
			*again.Type != got.Category || *again.Domain != got.Domain || *again.HTTPStatus != got.HTTPStatus() ||
			(again.RetryAfter == nil) != (fault.Seconds(got.RetryAfter) == 0) {
			t.Fatalf("the fault changed on its way: %+v → %+v", got, again)
		}
	})
}
