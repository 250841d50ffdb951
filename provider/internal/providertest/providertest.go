package providertest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

// Reply is how a Server answers every request.
type Reply struct {
	Status int               // HTTP status; 200 when zero
	Header map[string]string // response headers
	Body   string            // response body
	// ContentType is the body's media type; application/json when empty.
	ContentType string
	// Delay holds the answer back this long, or until the client gives up.
	Delay time.Duration
	// Hold keeps the answer open this long after its body was sent (a
	// stream that stalls), or until the client gives up.
	Hold time.Duration
}

// Server is a provider stand-in on a local port.
type Server struct {
	*httptest.Server
	hits atomic.Int64

	mu   sync.Mutex
	last http.Header
}

// NewServer starts a Server answering r to every request; it is closed when
// the test ends.
func NewServer(t testing.TB, r Reply) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.hits.Add(1)
		// Reading the body lets the server notice a client that gives up
		// (it watches the connection only once the body is consumed).
		_, _ = io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		s.last = req.Header.Clone()
		s.mu.Unlock()
		if r.Delay > 0 {
			t := time.NewTimer(r.Delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-req.Context().Done():
				return
			}
		}
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range r.Header {
			w.Header().Set(k, v)
		}
		status := r.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(r.Body))
		if r.Hold > 0 {
			_ = http.NewResponseController(w).Flush()
			t := time.NewTimer(r.Hold)
			defer t.Stop()
			select {
			case <-t.C:
			case <-req.Context().Done():
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// Hits is the number of requests that reached the server.
func (s *Server) Hits() int64 { return s.hits.Load() }

// LastHeader is the header of the last request that reached the server.
func (s *Server) LastHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// ClosedURL returns an http URL on 127.0.0.1 whose port nothing listens on:
// a connection to it is refused.
func ClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return "http://" + addr + "/"
}

// Shown renders f every way it leaves a process: its JSON without and with
// debug output, and its log/slog records through the text and JSON
// handlers.
func Shown(t testing.TB, f *fault.Error) map[string]string {
	t.Helper()
	out := make(map[string]string, 4)
	for _, debug := range []bool{false, true} {
		data, err := json.Marshal(f.Payload(debug))
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if debug {
			out["json debug"] = string(data)
		} else {
			out["json"] = string(data)
		}
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Error("call failed", "err", f)
	slog.New(slog.NewJSONHandler(&js, nil)).Error("call failed", "err", f)
	out["slog text"] = text.String()
	out["slog json"] = js.String()
	return out
}

// NoSecret fails t if secret appears anywhere Shown renders f.
func NoSecret(t testing.TB, f *fault.Error, secret string) {
	t.Helper()
	if secret == "" {
		t.Fatal("NoSecret: empty secret")
	}
	for where, s := range Shown(t, f) {
		if strings.Contains(s, secret) {
			t.Errorf("the secret appears in the fault's %s: %s", where, s)
		}
	}
}

// Want is what a test expects of a provider fault.
type Want struct {
	Code       fault.Code
	Category   fault.Category
	Domain     fault.Domain
	Retryable  bool
	RetryAfter time.Duration
	Rule       string         // Classification.Rule; not checked when empty
	Details    map[string]any // a subset of the fault's details
}

// Check fails t unless f is what w says, names provider as its Source and
// its details.providerId, and shows secret nowhere (see NoSecret).
func Check(t testing.TB, f *fault.Error, provider, secret string, w Want) {
	t.Helper()
	if f == nil {
		t.Fatal("no fault")
	}
	if f.Code != w.Code || f.Category != w.Category || f.Domain != w.Domain || f.Retryable != w.Retryable {
		t.Errorf("got %s/%s/%s retryable=%v, want %s/%s/%s retryable=%v",
			f.Code, f.Category, f.Domain, f.Retryable, w.Code, w.Category, w.Domain, w.Retryable)
	}
	if f.RetryAfter != w.RetryAfter {
		t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, w.RetryAfter)
	}
	if w.Rule != "" && f.Classification.Rule != w.Rule {
		t.Errorf("rule = %q, want %q", f.Classification.Rule, w.Rule)
	}
	if f.Source != provider {
		t.Errorf("Source = %q, want %q", f.Source, provider)
	}
	if got := f.Details["providerId"]; got != provider {
		t.Errorf("details.providerId = %v, want %q", got, provider)
	}
	for k, v := range w.Details {
		if got := f.Details[k]; !reflect.DeepEqual(got, v) {
			t.Errorf("details.%s = %#v, want %#v", k, got, v)
		}
	}
	if spec, ok := fault.Lookup(f.Code); ok && f.Message == "" {
		t.Errorf("empty message; the code's default is %q", spec.Message)
	}
	NoSecret(t, f, secret)
}
