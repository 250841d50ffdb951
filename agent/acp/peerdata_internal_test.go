package acp

import (
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
)

// A worker's error data is read as wire/jsonrpc's (errdata), as the SDK
// decoded it: the members it sent, each nil when absent; data of another
// shape (a member of the wrong type) says nothing at all.
func TestPeerData(t *testing.T) {
	t.Parallel()
	d := peerData(&acpsdk.RequestError{Code: -32002, Message: "x", Data: map[string]any{
		"code": "RATE_LIMITED", "retryable": true, "retryAfter": 2.5, "extra": []any{1.0}}})
	if d == nil || d.Code == nil || *d.Code != fault.RateLimited || d.Retryable == nil || !*d.Retryable ||
		d.RetryAfter == nil || *d.RetryAfter != 2500*time.Millisecond || d.SessionValid != nil {
		t.Errorf("peerData = %+v", d)
	}
	for _, data := range []any{nil, "text", []any{true}, map[string]any{"retryable": "yes"},
		map[string]any{"sessionValid": false, "retryAfter": -1.0}} {
		if d := peerData(&acpsdk.RequestError{Code: -32603, Message: "x", Data: data}); d != nil {
			t.Errorf("%v: peerData = %+v, want nil", data, d)
		}
	}
}
