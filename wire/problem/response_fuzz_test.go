package problem_test

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

// responseSecret is a secret the process knows (fault.RegisterSecret): an
// error about a peer's response must not repeat it.
const responseSecret = "resp-secret-7d3e91c0a5"

// FuzzReadResponse reads any response as a client does. A Content-Type
// that is not application/problem+json is ErrNotProblem; a problem read
// is the body's, its status filled in from the response's when the body
// has none, and its delay in range; no error repeats a secret. Seeds:
// testdata/fuzz/FuzzReadResponse.
func FuzzReadResponse(f *testing.F) {
	fault.RegisterSecret(responseSecret)
	f.Fuzz(func(t *testing.T, status int, contentType, retryAfter string, body []byte) {
		h := http.Header{"Content-Type": {contentType}}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		p, err := problem.ReadResponse(&http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body))})
		mt, _, merr := mime.ParseMediaType(contentType)
		isProblem := merr == nil && mt == problem.ContentType
		if err != nil {
			if p != nil || errors.Is(err, problem.ErrNotProblem) == isProblem || strings.Contains(err.Error(), responseSecret) {
				t.Fatalf("Content-Type %q: %v", contentType, err)
			}
			return
		}
		if !isProblem {
			t.Fatalf("Content-Type %q read as a problem", contentType)
		}
		want, perr := problem.Parse(body)
		if perr != nil {
			t.Fatalf("read a body Parse refuses: %v", perr)
		}
		switch {
		case want.Status == 0 && status >= 100 && status <= 599:
			want.Status = status
		case p.Status != want.Status:
			t.Fatalf("status %d, the body's %d", p.Status, want.Status)
		}
		if p.Status != want.Status || p.RetryAfter < 0 || p.RetryAfter > fault.Seconds(fault.MaxRetryAfter) {
			t.Fatalf("status %d (want %d), retry after %d", p.Status, want.Status, p.RetryAfter)
		}
	})
}
