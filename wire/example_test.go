package wire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/agui"
	"github.com/triage-go/triage/wire/jsonrpc"
	"github.com/triage-go/triage/wire/present"
	"github.com/triage-go/triage/wire/problem"
)

// One rate limit, in every format Triage speaks.
func Example() {
	tour(os.Stdout)
	// Output:
	// 429 Retry-After: 30
	// {"type":"/errors/rate-limited","title":"Rate Limited","status":429,"detail":"Request rate limit exceeded. Please wait before retrying.","instance":"/v1/runs","code":"RATE_LIMITED","category":"UPSTREAM","domain":"client","retryable":true,"retry_after":30,"session_valid":true,"details":{"providerId":"openai"}}
	// {"type":"RUN_ERROR","message":"Request rate limit exceeded. Please wait before retrying.","code":"RATE_LIMITED","timestamp":1768132800000,"metadata":{"category":"UPSTREAM","details":{"providerId":"openai"},"domain":"client","http_status":429,"retry_after":30,"retryable":true,"session_valid":true,"source":"openai"}}
	// {"code":-32002,"message":"Request rate limit exceeded. Please wait before retrying.","data":{"type":"UPSTREAM","code":"RATE_LIMITED","retryable":true,"sessionValid":true,"retryAfter":30,"httpStatus":429,"domain":"client","details":{"providerId":"openai"}}}
	// {"message":"Request rate limit exceeded. Please wait before retrying.","code":429,"domain":"client","retryable":true,"retry_after":30}
	// {"op":"error","p":{"code":"RATE_LIMITED","message":"Request rate limit exceeded. Please wait before retrying.","severity":"transient","details":{"providerId":"openai","retry_after":30}}}
}

// TestREADMETour keeps the README's tour output true.
func TestREADMETour(t *testing.T) {
	t.Parallel()
	want := golden.ReadDoc(t, "../README.md").Block(t, "text")
	var b bytes.Buffer
	tour(&b)
	if b.String() != want {
		t.Errorf("README shows:\n%s\nthe tour prints:\n%s", want, b.String())
	}
}

// tour writes one rate limit in every format.
func tour(w io.Writer) {
	err := fault.New(fault.RateLimited, "", fault.WithRetryAfter(30*time.Second),
		fault.WithSource("openai"), fault.WithDetail("providerId", "openai"))

	// RFC 9457, for an HTTP API.
	rec := httptest.NewRecorder()
	problem.Write(rec, httptest.NewRequest("POST", "/v1/runs", nil), err, nil)
	fmt.Fprintln(w, rec.Code, "Retry-After:", rec.Header().Get("Retry-After"))
	fmt.Fprint(w, rec.Body.String())

	// AG-UI RUN_ERROR, for an agent's user interface.
	run := agui.RunErrorFrom(err, &agui.Options{Now: func() time.Time { return time.UnixMilli(1768132800000) }})
	show(w, run)

	// JSON-RPC, for MCP peers.
	show(w, jsonrpc.From(err))

	// A user_error notice, and the stream error that is distinct from it
	// (severity transient for a retryable fault, fatal otherwise).
	show(w, present.UserErrorFrom(err))
	show(w, present.ErrorPacket(present.StreamErrorFrom(err)))
}

func show(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(w, err)
		return
	}
	fmt.Fprintln(w, string(b))
}
