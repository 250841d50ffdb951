package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The events /mcp keeps for resuming streams are bounded per session and
// per tenant, the oldest going first; a stream is never replayed with a
// hole: resuming from before an event that went fails (ErrEventsPurged).
func TestMCPEventsBounded(t *testing.T) {
	t.Parallel()
	e := newMCPEvents(1000, 2500)
	a, b := tokenContext(t, "acme"), tokenContext(t, "globex")
	ev := func(i int) []byte { return []byte(strings.Repeat(string(rune('a'+i%26)), 200)) } // 264 with its overhead
	after := func(sid, stream string, index int) ([]string, error) {
		var out []string
		for d, err := range e.After(context.Background(), sid, stream, index) {
			if err != nil {
				return out, err
			}
			out = append(out, string(d[:1]))
		}
		return out, nil
	}
	for _, sid := range []string{"s1", "s2", "s3", "s4"} {
		_ = e.Open(a, sid, "")
		_ = e.Open(a, sid, "p")
	}
	_ = e.Open(b, "t1", "p")
	for i := range 6 {
		_ = e.Append(a, "s1", "p", ev(i))
	}
	// A session keeps 3 events of 264 bytes in 1000: 3, 4 and 5.
	if got, err := after("s1", "p", 2); err != nil || strings.Join(got, "") != "def" {
		t.Fatalf("after 2: %v %v", got, err)
	}
	if _, err := after("s1", "p", 1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("after 1 (event 2 went): %v", err)
	}
	if got, err := after("s1", "p", 5); err != nil || len(got) != 0 {
		t.Fatalf("after the last: %v %v", got, err)
	}
	// The tenant keeps 9 in 2500: s2's, s3's and s4's events push s1's
	// out, the oldest first; the other tenant's are its own.
	for i := range 3 {
		_ = e.Append(a, "s2", "p", ev(i))
		_ = e.Append(a, "s3", "p", ev(i))
		_ = e.Append(b, "t1", "p", ev(i))
	}
	_ = e.Append(a, "s4", "p", ev(0))
	if held := e.held("acme"); held > 2500 {
		t.Fatalf("acme holds %d bytes", held)
	}
	if _, err := after("s1", "p", 2); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("s1's oldest event did not go first: %v", err)
	}
	if got, err := after("s1", "p", 3); err != nil || strings.Join(got, "") != "ef" {
		t.Fatalf("s1 after 3: %v %v", got, err)
	}
	if got, err := after("t1", "p", -1); err != nil || strings.Join(got, "") != "abc" {
		t.Fatalf("globex lost events to acme's: %v %v", got, err)
	}
	// An event larger than the session's bound is not kept, nor can its
	// stream be resumed from before it.
	_ = e.Append(a, "s2", "p", []byte(strings.Repeat("z", 2000)))
	if _, err := after("s2", "p", 2); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("after an event too large: %v", err)
	}
	// A closed session's events are freed.
	before := e.held("acme")
	_ = e.SessionClosed(context.Background(), "s1")
	if e.held("acme") >= before {
		t.Fatalf("closing s1 freed nothing: %d, then %d", before, e.held("acme"))
	}
	if _, err := after("s1", "p", 3); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a closed session's stream: %v", err)
	}
}

// tokenContext is the context of an /mcp request of tenant, as the go-sdk
// hands it on: carrying the token mcpHandler's verifier made.
func tokenContext(t *testing.T, tenant string) context.Context {
	t.Helper()
	var ctx context.Context
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tenant, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := auth.RequireBearerToken(verify, nil)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { ctx = r.Context() }))
	req := httptest.NewRequest("POST", "/mcp", nil)
	req.Header.Set("Authorization", "Bearer x")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if tenantOf(ctx) != tenant {
		t.Fatalf("the token's tenant: %q", tenantOf(ctx))
	}
	return context.WithoutCancel(ctx)
}
