package agui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
	"github.com/triage-go/triage/wire/sse"
)

// wireRunError writes the RUN_ERROR for err as a frame (with its event
// line), reads the frame back as a client would, and returns the event line
// and the data parsed into plain JSON values.
func wireRunError(t *testing.T, err error, opts *Options) (event string, raw []byte, doc map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), &WriterOptions{EventLine: true})
	if err := w.WriteError(err, opts); err != nil {
		t.Fatal(err)
	}
	frames := readFrames(t, buf.Bytes())
	if len(frames) != 1 {
		t.Fatalf("%d frames, want 1:\n%s", len(frames), buf.Bytes())
	}
	if err := json.Unmarshal([]byte(frames[0].Data), &doc); err != nil {
		t.Fatal(err)
	}
	return frames[0].Event, buf.Bytes(), doc
}

func metadataOf(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	md, ok := doc["metadata"].(map[string]any)
	if !ok {
		t.Fatalf("metadata is %T, want an object: %v", doc["metadata"], doc)
	}
	return md
}

// TestRunErrorEveryCode covers seed 000's AC 12 for every code in the
// table: code top-level, metadata.http_status equal to the fault's status,
// retryable, retry_after only when positive.
func TestRunErrorEveryCode(t *testing.T) {
	t.Parallel()
	for _, spec := range fault.Codes() {
		for _, retryAfter := range []time.Duration{0, 1500 * time.Millisecond, 60 * time.Second} {
			t.Run(fmt.Sprintf("%s/%v", spec.Code, retryAfter), func(t *testing.T) {
				t.Parallel()
				f := fault.New(spec.Code, "", fault.WithRetryAfter(retryAfter))
				event, _, doc := wireRunError(t, f, &Options{Now: fixedClock})
				if event != "RUN_ERROR" || doc["type"] != "RUN_ERROR" {
					t.Errorf("event line %q, type %v", event, doc["type"])
				}
				if doc["code"] != string(spec.Code) {
					t.Errorf("code = %v, want %s", doc["code"], spec.Code)
				}
				if doc["message"] != f.Message || f.Message == "" {
					t.Errorf("message = %v, want %q", doc["message"], f.Message)
				}
				if doc["timestamp"] != float64(testTimestamp) {
					t.Errorf("timestamp = %v, want %d", doc["timestamp"], int64(testTimestamp))
				}
				for _, k := range []string{"http_status", "retry_after", "retryable", "details", "category", "domain"} {
					if _, ok := doc[k]; ok {
						t.Errorf("%s at the top level; it belongs in metadata", k)
					}
				}
				md := metadataOf(t, doc)
				want := map[string]any{
					"http_status":   float64(f.HTTPStatus()),
					"retryable":     f.Retryable,
					"session_valid": f.SessionValid,
					"category":      string(spec.Category),
					"domain":        string(spec.Domain),
					"details":       map[string]any{},
				}
				if retryAfter > 0 {
					want["retry_after"] = float64(fault.Seconds(retryAfter))
				}
				if !reflect.DeepEqual(md, want) {
					t.Errorf("metadata\n got %v\nwant %v", md, want)
				}
				if f.HTTPStatus() != spec.Status {
					t.Errorf("fault status %d differs from the table's %d", f.HTTPStatus(), spec.Status)
				}
			})
		}
	}
}

// statusError carries an HTTP response, as an SDK error does.
type statusError struct{ resp *http.Response }

func (e statusError) Error() string                { return "upstream: " + e.resp.Status }
func (e statusError) HTTPResponse() *http.Response { return e.resp }

// TestSeed000 translates seed 000's acceptance criteria 2-8.
func TestSeed000(t *testing.T) {
	t.Parallel()
	tooMany := statusError{&http.Response{
		StatusCode: 429, Status: "429 Too Many Requests",
		Header: http.Header{"Retry-After": {"60"}},
	}}
	tests := []struct {
		name       string
		err        error
		debug      bool
		code       fault.Code
		status     int
		retryAfter any // nil: absent
		details    map[string]any
	}{
		// AC 3: a rate limit maps to RATE_LIMITED, 429, retry_after 60.
		{name: "RateLimitExceeded", err: fault.New(fault.RateLimited, "Request rate limit exceeded.", fault.WithRetryAfter(time.Minute)),
			code: fault.RateLimited, status: 429, retryAfter: float64(60), details: map[string]any{}},
		{name: "RateLimitFromUpstream429", err: fmt.Errorf("call model: %w", tooMany),
			code: fault.RateLimited, status: 429, retryAfter: float64(60), details: map[string]any{"upstream_status": float64(429)}},
		// AC 4: session and message limits are RATE_LIMITED without a delay.
		{name: "SessionLimitExceeded", err: fault.New(fault.RateLimited, "Resource limit exceeded."),
			code: fault.RateLimited, status: 429, details: map[string]any{}},
		// AC 5: timeouts are TIMEOUT, 504.
		{name: "DeadlineExceeded", err: context.DeadlineExceeded, code: fault.Timeout, status: 504, details: map[string]any{}},
		{name: "WrappedDeadline", err: fmt.Errorf("tool search: %w", context.DeadlineExceeded), code: fault.Timeout, status: 504, details: map[string]any{}},
		{name: "IODeadline", err: os.ErrDeadlineExceeded, code: fault.Timeout, status: 504, details: map[string]any{}},
		// AC 6: an unknown error without debug has no error type anywhere.
		{name: "UnknownNoDebug", err: errUnknown, code: fault.AgentExecutionError, status: 500, details: map[string]any{}},
		// AC 7: with debug, details carry error_type.
		{name: "UnknownDebug", err: errUnknown, debug: true, code: fault.AgentExecutionError, status: 500,
			details: map[string]any{"error_type": "*errors.errorString"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, raw, doc := wireRunError(t, tt.err, &Options{Debug: tt.debug, Now: fixedClock})
			// AC 8: the SSE data parses back to code, message,
			// http_status, details and the optional retry_after.
			if doc["code"] != string(tt.code) {
				t.Errorf("code = %v, want %s", doc["code"], tt.code)
			}
			if msg, _ := doc["message"].(string); msg == "" {
				t.Error("no message")
			}
			md := metadataOf(t, doc)
			if md["http_status"] != float64(tt.status) {
				t.Errorf("http_status = %v, want %d", md["http_status"], tt.status)
			}
			if got, ok := md["retry_after"]; tt.retryAfter == nil && ok || tt.retryAfter != nil && got != tt.retryAfter {
				t.Errorf("retry_after = %v (present %v), want %v", got, ok, tt.retryAfter)
			}
			if !reflect.DeepEqual(md["details"], tt.details) {
				t.Errorf("details = %v, want %v", md["details"], tt.details)
			}
			if tt.code == fault.AgentExecutionError {
				hasType := bytes.Contains(raw, []byte("error_type")) || bytes.Contains(raw, []byte("errorString"))
				hasCause := bytes.Contains(raw, []byte("connection pool"))
				if !tt.debug && (hasType || hasCause) {
					t.Errorf("error type or cause without debug:\n%s", raw)
				}
				if tt.debug && !(hasType && hasCause) {
					t.Errorf("debug output lacks the error type or cause:\n%s", raw)
				}
				if msg := doc["message"]; msg != "An error occurred processing your request." {
					t.Errorf("unknown error message = %v, want the generic one", msg)
				}
			}
			if _, ok := md["debug"]; ok != tt.debug {
				t.Errorf("metadata.debug present = %v, want %v", ok, tt.debug)
			}
		})
	}
}

// TestRunErrorNoSecrets: credentials and stacks in the cause or the details
// never reach the wire, debug or not.
func TestRunErrorNoSecrets(t *testing.T) {
	t.Parallel()
	cause := errors.New(`POST https://api.example.com/v1/chat: 401 Unauthorized: ` +
		`Authorization: Bearer sk-live-7hG2kL9mQ4xR8vT1 api_key=AKIAIOSFODNN7EXAMPLE password=hunter2
goroutine 1 [running]:
main.main()
	/app/main.go:12 +0x1d`)
	secrets := []string{"sk-live-7hG2kL9mQ4xR8vT1", "7hG2kL9mQ4xR8vT1", "AKIAIOSFODNN7EXAMPLE", "hunter2",
		"goroutine", "main.go", "Bearer xyz-detail-token", "detail-secret", "stack-frame"}
	details := map[string]any{
		"authorization": "Bearer xyz-detail-token",
		"stack":         "stack-frame main.go:1",
		"headers":       map[string]any{"x-api-key": "detail-secret"},
		"request_id":    "req-42",
		"nested":        map[string]any{"api_key": "detail-secret", "note": "token=detail-secret"},
	}
	faults := map[string]error{
		"Unknown":    cause,
		"Wrapped":    fault.Wrap(cause, fault.UpstreamError, "", fault.WithDetails(details), fault.WithDebug("request", "Authorization: Bearer sk-live-7hG2kL9mQ4xR8vT1")),
		"ChainAbove": fmt.Errorf("agent step: %w", fault.Wrap(cause, fault.ProviderAuthFailed, "", fault.WithDetails(details))),
	}
	for name, err := range faults {
		for _, debug := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/debug=%v", name, debug), func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				w := NewWriter(sse.NewWriter(&buf), &WriterOptions{EventLine: true})
				if err := w.WriteEvent(started("r")); err != nil {
					t.Fatal(err)
				}
				if err := w.WriteError(err, &Options{Debug: debug, TextMessageID: "m1"}); err != nil {
					t.Fatal(err)
				}
				out := buf.String()
				for _, s := range secrets {
					if strings.Contains(out, s) {
						t.Errorf("output contains %q:\n%s", s, out)
					}
				}
				// Sensitive detail keys are dropped, not just blanked.
				for _, f := range readFrames(t, buf.Bytes()) {
					e, err := Parse([]byte(f.Data))
					if err != nil {
						t.Fatal(err)
					}
					re, ok := e.(*RunError)
					if !ok {
						continue
					}
					d := re.Metadata["details"].(map[string]any)
					for _, k := range []string{"authorization", "stack", "headers"} {
						if _, ok := d[k]; ok {
							t.Errorf("details keep the sensitive key %q: %v", k, d)
						}
					}
					if nested, ok := d["nested"].(map[string]any); ok {
						if _, ok := nested["api_key"]; ok {
							t.Errorf("nested details keep api_key: %v", nested)
						}
					}
				}
				if name != "Unknown" && !strings.Contains(out, "req-42") {
					t.Errorf("the safe detail request_id is missing:\n%s", out)
				}
				if debug && !strings.Contains(out, "[REDACTED]") {
					t.Errorf("debug output shows no redaction; was the cause emitted at all?\n%s", out)
				}
			})
		}
	}
}

func TestRunErrorFaultRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []*fault.Error{
		rateLimited(),
		fault.New(fault.Timeout, "", fault.WithCategory(fault.CategoryTransport), fault.WithRetryAfter(2500*time.Millisecond)),
		fault.Invalid("Invalid request.", fault.FieldError{Field: "data.message", Message: "is required"}),
		fault.New(fault.SessionNotFound, "Session expired.", fault.WithDetail("session_id", "s-1")),
		fault.New(fault.ContentRefused, "", fault.WithStatus(451), fault.WithSessionValid(false)),
	}
	for _, f := range tests {
		t.Run(string(f.Code), func(t *testing.T) {
			t.Parallel()
			b, err := Marshal(RunErrorFrom(f, nil))
			if err != nil {
				t.Fatal(err)
			}
			e, err := Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			got := e.(*RunError).Fault()
			want := f.Payload(false)
			if !reflect.DeepEqual(jsonOf(t, got.Payload(false)), jsonOf(t, want)) {
				t.Errorf("round trip\n got %s\nwant %s", jsonOf(t, got.Payload(false)), jsonOf(t, want))
			}
		})
	}
}

// jsonOf returns v as JSON text.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	return string(golden.Marshal(t, v))
}

// A RUN_ERROR's message becomes the fault's Message only under a code the
// table knows; otherwise it is debug output only.
func TestRunErrorFaultForeign(t *testing.T) {
	t.Parallel()
	generic := "An error occurred processing your request."
	tests := []struct {
		name    string
		event   *RunError
		code    fault.Code
		message string
		cause   string
		rule    string
	}{
		{"KnownCode", &RunError{Message: "Key revoked.", Code: "TENANT_UNAUTHORIZED"},
			fault.TenantUnauthorized, "Key revoked.", "", "agui_code"},
		{"KnownCodeRedacted", &RunError{Message: "Key sk-proj-abcdefghijklmnop revoked.", Code: "TENANT_UNAUTHORIZED"},
			fault.TenantUnauthorized, "Key [REDACTED] revoked.", "", "agui_code"},
		{"NoCode", &RunError{Message: "Agent crashed at host=10.0.0.5"},
			fault.AgentExecutionError, generic, "Agent crashed at host=10.0.0.5", "agui_no_code"},
		// The official client's own abort event.
		{"Abort", &RunError{Message: "Request aborted", Code: "abort"},
			"abort", generic, "Request aborted", "agui_unknown_code"},
		{"UnknownCode", &RunError{Message: "Key sk-abc is invalid for org acme-internal-42", Code: "invalid_api_key"},
			"invalid_api_key", generic, "Key sk-abc is invalid for org acme-internal-42", "agui_unknown_code"},
		{"UnknownCodeWithDebug", &RunError{Message: "Boom", Code: "NEWER", BaseEvent: BaseEvent{Metadata: map[string]any{
			"debug": map[string]any{"cause": "Authorization: Bearer sk-proj-abcdefghijklmnop"}}}},
			"NEWER", generic, "Boom: Authorization: [REDACTED]", "agui_unknown_code"},
		// Another producer's metadata is ignored as a whole.
		{"MistypedMetadata", &RunError{Message: "m", Code: "RATE_LIMITED", BaseEvent: BaseEvent{Metadata: map[string]any{
			"retryable": "yes", "http_status": 503}}},
			fault.RateLimited, "m", "", "agui_code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := tt.event.Fault()
			if f.Code != tt.code || f.Message != tt.message || f.Debug.Cause != tt.cause {
				t.Errorf("fault %s %q (cause %q), want %s %q (cause %q)", f.Code, f.Message, f.Debug.Cause, tt.code, tt.message, tt.cause)
			}
			if f.Classification.Method != fault.MethodWire || f.Classification.Rule != tt.rule {
				t.Errorf("classification %+v, want wire %s", f.Classification, tt.rule)
			}
			if tt.name == "MistypedMetadata" && (f.HTTPStatus() != 429 || !f.Retryable) {
				t.Errorf("mistyped metadata not ignored: %+v", f)
			}
			// Relayed, none of the peer's text reaches a client.
			if tt.cause != "" {
				b, err := Marshal(RunErrorFrom(f, nil))
				if err != nil {
					t.Fatal(err)
				}
				for _, leak := range []string{tt.event.Message, "acme", "10.0.0.5"} {
					if strings.Contains(string(b), leak) {
						t.Errorf("relayed as %s", b)
					}
				}
			}
		})
	}
}

// Every delay read back is capped at fault.MaxRetryAfter.
func TestRunErrorFaultRetryAfterCapped(t *testing.T) {
	t.Parallel()
	for _, v := range []any{86400.5, 31622400, 1e300} {
		e := &RunError{Message: "m", Code: "RATE_LIMITED", BaseEvent: BaseEvent{Metadata: map[string]any{"retry_after": v}}}
		if got := e.Fault().RetryAfter; got != fault.MaxRetryAfter {
			t.Errorf("retry_after %v: %v, want %v", v, got, fault.MaxRetryAfter)
		}
	}
}

// Relaying an upstream's RUN_ERROR through Fault and RunErrorFrom sanitizes
// it again: its debug output and members Triage does not define are
// dropped, its details sanitized.
func TestRunErrorRelay(t *testing.T) {
	t.Parallel()
	upstream, err := Parse([]byte(`{"type":"RUN_ERROR","message":"Request rate limit exceeded.","code":"RATE_LIMITED",` +
		`"metadata":{"http_status":429,"retryable":true,"retry_after":30,"category":"UPSTREAM","domain":"client",` +
		`"details":{"providerId":"openai","authorization":"Bearer sk-proj-abcdefghijklmnop"},` +
		`"debug":{"error_type":"*openai.Error","cause":"POST https://api.openai.com/v1/chat: 429"},` +
		`"internal_trace":"pod=worker-7"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	if err := w.WriteEvent(RunErrorFrom(upstream.(*RunError).Fault(), &Options{Now: fixedClock})); err != nil {
		t.Fatal(err)
	}
	frames := readFrames(t, buf.Bytes())
	if len(frames) != 1 {
		t.Fatalf("frames = %q", frames)
	}
	got := frames[0].Data
	for _, leak := range []string{`"debug"`, "openai.Error", "api.openai.com", "internal_trace", "worker-7", "authorization", "sk-proj"} {
		if strings.Contains(got, leak) {
			t.Errorf("relayed RUN_ERROR contains %q:\n%s", leak, got)
		}
	}
	want := `{"type":"RUN_ERROR","message":"Request rate limit exceeded.","code":"RATE_LIMITED","timestamp":1768132800000,` +
		`"metadata":{"category":"UPSTREAM","details":{"providerId":"openai"},"domain":"client","http_status":429,` +
		`"retry_after":30,"retryable":true,"session_valid":true}}`
	if got != want {
		t.Errorf("relayed\n got %s\nwant %s", got, want)
	}
}

func TestRunErrorFromDefaults(t *testing.T) {
	t.Parallel()
	before := time.Now().UnixMilli()
	re := RunErrorFrom(context.DeadlineExceeded, nil)
	after := time.Now().UnixMilli()
	if re.Timestamp < before || re.Timestamp > after {
		t.Errorf("timestamp %d not between %d and %d", re.Timestamp, before, after)
	}
	if _, ok := re.Metadata["debug"]; ok {
		t.Error("debug output with nil options")
	}
	if re := RunErrorFrom(nil, nil); re != nil {
		t.Errorf("RunErrorFrom(nil) = %+v, want nil", re)
	}
	if events := EventsFrom(nil, &Options{TextMessageID: "m"}); events != nil {
		t.Errorf("EventsFrom(nil) = %v, want nil", events)
	}
	// A detail JSON cannot encode is dropped; the error is still reported.
	re = RunErrorFrom(fault.New(fault.UpstreamError, "", fault.WithDetail("ch", make(chan int)), fault.WithDetail("ok", 1)), nil)
	if _, err := Marshal(re); err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if d := re.Metadata["details"].(map[string]any); len(d) != 1 || d["ok"] != json.Number("1") {
		t.Errorf("details = %v, want only ok", d)
	}
	// RunErrorFrom's output equals its decoded copy.
	b, _ := Marshal(re)
	back, err := Parse(b)
	if err != nil || !reflect.DeepEqual(back, Event(re)) {
		t.Errorf("decoded copy differs:\n got %#v\nwant %#v", back, re)
	}
}

func TestEventsFrom(t *testing.T) {
	t.Parallel()
	f := rateLimited()
	t.Run("RunErrorOnly", func(t *testing.T) {
		t.Parallel()
		events := EventsFrom(f, &Options{Now: fixedClock})
		if len(events) != 1 || events[0].Type() != TypeRunError {
			t.Fatalf("events = %v", events)
		}
	})
	t.Run("TextBeforeRunError", func(t *testing.T) {
		t.Parallel()
		events := EventsFrom(f, &Options{Now: fixedClock, TextMessageID: "m-err"})
		want := []Event{
			&TextMessageStart{MessageID: "m-err", Role: RoleAssistant, BaseEvent: BaseEvent{Timestamp: testTimestamp}},
			&TextMessageContent{MessageID: "m-err", Delta: f.Message, BaseEvent: BaseEvent{Timestamp: testTimestamp}},
			&TextMessageEnd{MessageID: "m-err", BaseEvent: BaseEvent{Timestamp: testTimestamp}},
			RunErrorFrom(f, &Options{Now: fixedClock}),
		}
		if !reflect.DeepEqual(events, want) {
			t.Errorf("events\n got %v\nwant %v", events, want)
		}
		stream := append([]Event{started("r")}, events...)
		if err := Verify(stream...); err != nil {
			t.Errorf("a 1.0 client would reject the sequence: %v", err)
		}
		// Seed 000's bridge sent RUN_FINISHED after RUN_ERROR.
		if err := Verify(append(stream, finished("r"))...); !errors.Is(err, ErrOutOfOrder) {
			t.Errorf("RUN_FINISHED after RUN_ERROR: %v, want ErrOutOfOrder", err)
		}
	})
	t.Run("CustomText", func(t *testing.T) {
		t.Parallel()
		events := EventsFrom(f, &Options{TextMessageID: "m", Text: "Slow down, please."})
		if d := events[1].(*TextMessageContent).Delta; d != "Slow down, please." {
			t.Errorf("delta = %q", d)
		}
		if m := events[3].(*RunError).Message; m != f.Message {
			t.Errorf("RUN_ERROR message = %q, want the fault's", m)
		}
	})
}

// Writing a failure for no error is a programming mistake: the run still
// ends, with INTERNAL_ERROR.
func TestWriteErrorNil(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	if err := w.WriteError(nil, nil); err != nil {
		t.Fatal(err)
	}
	frames := readFrames(t, buf.Bytes())
	if len(frames) != 1 || !strings.Contains(frames[0].Data, `"code":"INTERNAL_ERROR"`) {
		t.Fatalf("frames = %q", frames)
	}
}

func TestWriteErrorOutsideRun(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewWriter(sse.NewWriter(&buf), nil)
	// No RUN_STARTED yet: the text message is left out, RUN_ERROR alone is
	// a valid first event.
	if err := w.WriteError(rateLimited(), &Options{TextMessageID: "m"}); err != nil {
		t.Fatal(err)
	}
	frames := readFrames(t, buf.Bytes())
	if len(frames) != 1 || !strings.Contains(frames[0].Data, `"type":"RUN_ERROR"`) {
		t.Fatalf("frames = %q", frames)
	}
	// A second error after RUN_ERROR is refused: the run is over.
	if err := w.WriteError(rateLimited(), nil); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("second WriteError = %v, want ErrOutOfOrder", err)
	}
	if _, err := sse.NewReader(bytes.NewReader(buf.Bytes())).Next(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if got := len(readFrames(t, buf.Bytes())); got != 1 {
		t.Errorf("%d frames after a refused write, want 1", got)
	}
}
