package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

var escalation = triage.Escalation{ErrorID: "err_0123456789abcdef", QueryID: "q_1", AgentID: "any",
	ErrorCode: "SERVICE_DOWN", Severity: triage.SeverityHigh, Attempt: 2, Fault: fault.ServiceUnavailable,
	Rule: "service_outage", ReportedAt: time.Date(2025, 8, 8, 12, 20, 5, 500, time.FixedZone("CEST", 7200))}

// hook is a webhook that answers statuses in turn (200 once they run
// out) and records what it was sent.
type hook struct {
	mu       sync.Mutex
	statuses []int
	headers  []http.Header
	bodies   [][]byte
}

func newHook(t *testing.T, statuses ...int) (*hook, *httptest.Server) {
	h := &hook{statuses: statuses}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.headers, h.bodies = append(h.headers, r.Header.Clone()), append(h.bodies, b)
		status := 200
		if len(h.statuses) > 0 {
			status, h.statuses = h.statuses[0], h.statuses[1:]
		}
		if status == 503 {
			w.Header().Set("Retry-After", "30")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return h, srv
}

// TestNotify: an escalation is posted as its JSON with Content-Type,
// User-Agent and an Idempotency-Key that is the same on every post of it.
func TestNotify(t *testing.T) {
	h, srv := newHook(t, 503)
	n := Notifier{URL: srv.URL + "/hooks"}
	if err := n.Notify(t.Context(), escalation); err == nil {
		t.Fatal("a 503 was taken for success")
	}
	if err := n.Notify(t.Context(), escalation); err != nil {
		t.Fatal(err)
	}
	if len(h.bodies) != 2 {
		t.Fatalf("%d posts", len(h.bodies))
	}
	for i, hd := range h.headers {
		if hd.Get("Content-Type") != "application/json" || hd.Get("User-Agent") != UserAgent ||
			hd.Get("Idempotency-Key") != "err_0123456789abcdef:2:2025-08-08T10:20:05.0000005Z" {
			t.Errorf("post %d: headers %v", i, hd)
		}
		var got triage.Escalation
		if err := json.Unmarshal(h.bodies[i], &got); err != nil || !got.ReportedAt.Equal(escalation.ReportedAt) {
			t.Errorf("post %d: body %s (%v)", i, h.bodies[i], err)
		}
		got.ReportedAt = escalation.ReportedAt
		if !reflect.DeepEqual(got, escalation) {
			t.Errorf("post %d: escalation %+v", i, got)
		}
	}
}

// TestKey: two escalations of one error differ by attempt or by report.
func TestKey(t *testing.T) {
	next, later := escalation, escalation
	next.Attempt++
	later.ReportedAt = later.ReportedAt.Add(time.Minute)
	keys := map[string]bool{Key(escalation): true, Key(next): true, Key(later): true}
	if len(keys) != 3 {
		t.Errorf("keys %v", keys)
	}
	for k := range keys {
		if len(k) > 255 || strings.ContainsAny(k, " \"\\") {
			t.Errorf("%q is no Idempotency-Key", k)
		}
	}
}

// TestSendFailures: a failure names the target by scheme and host only;
// a 4xx but 408, 409 and 429 is permanent, a 5xx carries its Retry-After.
func TestSendFailures(t *testing.T) {
	const secret = "/hooks/T000/SECRETTOKEN"
	for _, c := range []struct {
		status    int
		permanent bool
	}{{503, false}, {500, false}, {429, false}, {409, false}, {408, false}, {404, true}, {400, true}} {
		_, srv := newHook(t, c.status)
		err := Send(t.Context(), nil, Post{What: "webhook", URL: srv.URL + secret, Body: []byte(`{}`)})
		var f *fault.Error
		if !errors.As(err, &f) || strings.Contains(err.Error(), "SECRET") || Permanent(err) != c.permanent || f.Message != "the webhook "+srv.URL+" answered "+strconv.Itoa(c.status) {
			t.Errorf("%d: %v (permanent %v)", c.status, err, Permanent(err))
		}
		if c.status == 503 && f.RetryAfter != 30*time.Second {
			t.Errorf("503: retry after %v", f.RetryAfter)
		}
	}
	_, srv := newHook(t)
	srv.Close()
	err := Send(t.Context(), nil, Post{What: "callback", URL: srv.URL + secret})
	var ue *url.Error
	if !errors.As(err, &ue) || ue.URL != srv.URL || strings.Contains(err.Error(), "SECRETTOKEN") || Permanent(err) {
		t.Errorf("an unreachable webhook: %v (the path must not be in the error)", err)
	}
	err = Send(t.Context(), nil, Post{What: "webhook", URL: "http://a b/SECRETTOKEN"})
	if err == nil || strings.Contains(err.Error(), "SECRETTOKEN") || !Permanent(err) {
		t.Errorf("a malformed URL: %v", err)
	}
}

// TestSendHeader: Post.Header is sent, but cannot replace Send's own.
func TestSendHeader(t *testing.T) {
	h, srv := newHook(t)
	err := Send(t.Context(), srv.Client(), Post{What: "callback", URL: srv.URL, Body: []byte(`{}`),
		Header: http.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, "User-Agent": {"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if hd := h.headers[0]; hd.Get("Traceparent") == "" || hd.Get("User-Agent") != UserAgent || hd.Get("Idempotency-Key") != "" {
		t.Errorf("headers %v", hd)
	}
}

// TestOriginOnly: the transport's error keeps its type, its Timeout and
// what it wraps, its URL cut to the origin.
func TestOriginOnly(t *testing.T) {
	in := &url.Error{Op: "Post", URL: "https://u:p@hooks.example:8443/services/T/B/secret?x=1#f", Err: context.DeadlineExceeded}
	out := originOnly(in)
	var ue *url.Error
	if !errors.As(out, &ue) || ue.URL != "https://hooks.example:8443" || !ue.Timeout() || !errors.Is(out, context.DeadlineExceeded) {
		t.Errorf("%#v", out)
	}
	if in.URL == ue.URL {
		t.Error("the original error was changed")
	}
	if plain := errors.New("x"); originOnly(plain) != plain {
		t.Error("an error without a URL changed")
	}
}
