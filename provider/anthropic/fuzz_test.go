package anthropic

import (
	"encoding/json"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/triage-go/triage/fault"
)

// FuzzClassify feeds any status and body to Classify as the SDK decodes an
// error answer: the fault is never nil, names Anthropic, keeps its delay in
// range, and always encodes.
func FuzzClassify(f *testing.F) {
	f.Add(429, []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`))
	f.Add(400, []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low"}}`))
	f.Add(200, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Add(502, []byte(`<html>Bad Gateway</html>`))
	f.Fuzz(func(t *testing.T, status int, data []byte) {
		var e sdk.Error
		if e.UnmarshalJSON(data) != nil {
			return // the SDK would not have made this error
		}
		e.StatusCode = status
		g, ok := Classify(&e)
		if !ok || g == nil {
			t.Fatal("Classify declined an *anthropic.Error")
		}
		if g.Source != ProviderID || g.Details["providerId"] != ProviderID || !g.Code.Known() {
			t.Errorf("bad fault: %s %v", g.Code, g.Details)
		}
		if g.RetryAfter < 0 || g.RetryAfter > fault.MaxRetryAfter {
			t.Errorf("RetryAfter = %v", g.RetryAfter)
		}
		if _, err := json.Marshal(g.Payload(true)); err != nil {
			t.Errorf("the fault does not encode: %v", err)
		}
	})
}
