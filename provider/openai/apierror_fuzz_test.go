package openai

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"

	"github.com/triage-go/triage/fault"
)

// apiSecret is a secret the process knows (fault.RegisterSecret), such as
// the API key an answer may echo.
const apiSecret = "sk-fuzz-2b7e151628aed2a6"

// FuzzClassifyAPIError feeds Classify an API error as the SDK decodes it
// from any body, with any status and rate-limit headers: the fault names
// OpenAI, has a known code and a delay in range, encodes, and never
// carries the secret (in its message, debug payload or log value). Seeds:
// testdata/fuzz/FuzzClassifyAPIError.
func FuzzClassifyAPIError(f *testing.F) {
	fault.RegisterSecret(apiSecret)
	f.Fuzz(func(t *testing.T, status int, body []byte, remaining, reset string) {
		var e sdk.Error
		if e.UnmarshalJSON(body) != nil {
			return // the SDK would not have made this error
		}
		e.StatusCode = status
		e.Response = &http.Response{StatusCode: status, Header: http.Header{
			"X-Ratelimit-Remaining-Requests": {remaining}, "X-Ratelimit-Reset-Requests": {reset},
			"X-Ratelimit-Remaining-Tokens": {remaining}, "X-Ratelimit-Reset-Tokens": {reset},
		}}
		g, ok := Classify(&e)
		if !ok || g == nil {
			t.Fatal("Classify declined an *openai.Error")
		}
		if g.Source != ProviderID || g.Details["providerId"] != ProviderID || !g.Code.Known() {
			t.Fatalf("bad fault: %s %v", g.Code, g.Details)
		}
		if g.RetryAfter < 0 || g.RetryAfter > fault.MaxRetryAfter {
			t.Fatalf("RetryAfter = %v", g.RetryAfter)
		}
		doc, err := json.Marshal(g.Payload(true))
		if err != nil {
			t.Fatalf("the fault does not encode: %v", err)
		}
		var logs strings.Builder
		slog.New(slog.NewJSONHandler(&logs, nil)).Error("x", "fault", g)
		for what, text := range map[string]string{"Error": g.Error(), "payload": string(doc), "log": logs.String()} {
			if strings.Contains(text, apiSecret) {
				t.Fatalf("the secret is in the fault's %s: %s", what, text)
			}
		}
	})
}
