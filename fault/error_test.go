package fault_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func TestNewDefaultsAndOptions(t *testing.T) {
	t.Parallel()
	cause := errors.New("worker 3 timed out")
	f := fault.New(fault.Timeout, "Worker timed out.",
		fault.WithCategory(fault.CategoryTransport),
		fault.WithCause(cause),
		fault.WithSource("worker-3"),
		fault.WithRetryAfter(1500*time.Millisecond),
		fault.WithDetail("worker_id", "worker-3"),
		fault.WithDetails(map[string]any{"operation": "prompt"}),
		fault.WithDebug("attempt", 2),
	)
	if f.Code != fault.Timeout || f.Message != "Worker timed out." || f.HTTPStatus() != 504 {
		t.Errorf("code/message/status: %v %q %d", f.Code, f.Message, f.HTTPStatus())
	}
	if f.Category != fault.CategoryTransport {
		t.Errorf("category override lost: %s", f.Category)
	}
	if !f.Retryable || !f.SessionValid || f.Domain != fault.DomainSystem {
		t.Errorf("defaults not taken from the table: %+v", f)
	}
	if f.Details["worker_id"] != "worker-3" || f.Details["operation"] != "prompt" {
		t.Errorf("details: %v", f.Details)
	}
	if f.Debug.Extra["attempt"] != 2 {
		t.Errorf("debug: %v", f.Debug)
	}
	if f.Classification.Method != fault.MethodExplicit || f.Classification.Confidence != 1 {
		t.Errorf("classification: %+v", f.Classification)
	}
	if !errors.Is(f, cause) {
		t.Error("errors.Is does not reach the cause")
	}
	if got := f.Error(); got != "TIMEOUT: Worker timed out" {
		t.Errorf("Error() = %q", got)
	}
	if def := fault.New(fault.Timeout, ""); def.Message != "Request timed out. Please try again." {
		t.Errorf("default message %q", def.Message)
	}
	o := fault.New(fault.UpstreamError, "", fault.WithStatus(503), fault.WithRetryable(true),
		fault.WithDomain(fault.DomainLLM), fault.WithSessionValid(false))
	if o.HTTPStatus() != 503 || !o.Retryable || o.Domain != fault.DomainLLM || o.SessionValid {
		t.Errorf("overrides lost: %+v", o)
	}
}

func TestWrapAndInvalid(t *testing.T) {
	t.Parallel()
	cause := errors.New("no such agent")
	w := fault.Wrap(cause, fault.CapabilityNotFound, "Agent not found: my-agent.",
		fault.WithDetail("agent_id", "my-agent"))
	if w.Cause != cause || !errors.Is(w, cause) || w.Code != fault.CapabilityNotFound {
		t.Errorf("Wrap: %+v", w)
	}
	inv := fault.Invalid("Invalid report.",
		fault.FieldError{Field: "data.error_type", Message: "must be one of input_error, schema_error"},
		fault.FieldError{Field: "timestamp", Message: "must be RFC 3339"})
	if inv.Code != fault.InvalidRequest || len(inv.FieldErrors) != 2 || inv.HTTPStatus() != 400 {
		t.Errorf("Invalid: %+v", inv)
	}
	data, _ := json.Marshal(inv)
	if !strings.Contains(string(data), `"errors":[{"field":"data.error_type"`) {
		t.Errorf("field errors not serialized: %s", data)
	}
}

func TestIsMatchesOnCode(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.RateLimited, "slow down", fault.WithRetryAfter(time.Minute))
	wrapped := fmt.Errorf("calling openai: %w", f)
	if !errors.Is(wrapped, fault.New(fault.RateLimited, "")) {
		t.Error("two rate limits do not match")
	}
	if errors.Is(wrapped, fault.New(fault.Timeout, "")) {
		t.Error("a rate limit matches a timeout")
	}
	var got *fault.Error
	if !errors.As(wrapped, &got) || got != f {
		t.Error("errors.As does not find the fault")
	}
	joined := errors.Join(errors.New("other"), wrapped)
	if fault.CodeOf(joined) != fault.RateLimited {
		t.Errorf("CodeOf(joined) = %s", fault.CodeOf(joined))
	}
	if f2, ok := fault.As(joined); !ok || f2 != f {
		t.Error("As does not find the fault in a join")
	}
	if _, ok := fault.As(errors.New("plain")); ok {
		t.Error("As found a fault in a plain error")
	}
	if fault.CodeOf(nil) != "" {
		t.Error("CodeOf(nil) not empty")
	}
}

func TestClone(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.InvalidRequest, "", fault.WithDetail("a", 1),
		fault.WithFieldErrors(fault.FieldError{Field: "x", Message: "bad"}), fault.WithDebug("k", "v"))
	c := f.Clone()
	c.Details["a"] = 2
	c.FieldErrors[0].Field = "y"
	c.Debug.Extra["k"] = "w"
	c.Message = "changed"
	if f.Details["a"] != 1 || f.FieldErrors[0].Field != "x" || f.Debug.Extra["k"] != "v" || f.Message == "changed" {
		t.Errorf("Clone shares state with the original: %+v", f)
	}
}

// Seed 000, acceptance criterion 2: the error carries code, message,
// http_status, details and an optional retry_after.
func TestJSONShape(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.RateLimited, "Request rate limit exceeded. Please wait before retrying.",
		fault.WithRetryAfter(60*time.Second), fault.WithSource("openai"),
		fault.WithDetail("limit", "requests_per_minute"))
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"code":"RATE_LIMITED","message":"Request rate limit exceeded. Please wait before retrying.","http_status":429,` +
		`"category":"UPSTREAM","domain":"client","retryable":true,"retry_after":60,"session_valid":true,"source":"openai",` +
		`"details":{"limit":"requests_per_minute"}}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	// retry_after is absent without a delay, and rounds up: a client must
	// never retry early.
	if data, _ := json.Marshal(fault.New(fault.Timeout, "")); bytes.Contains(data, []byte("retry_after")) {
		t.Errorf("retry_after present without a delay: %s", data)
	}
	if p := fault.New(fault.RateLimited, "", fault.WithRetryAfter(1100*time.Millisecond)).Payload(false); p.RetryAfter != 2 {
		t.Errorf("1.1s rounds to %d, want 2", p.RetryAfter)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.SessionBusy, "Session s1 is busy.", fault.WithRetryAfter(3*time.Second),
		fault.WithDetail("session_id", "s1"), fault.WithSource("bridge"), fault.WithDomain(fault.DomainTool),
		fault.WithFieldErrors(fault.FieldError{Field: "session_id", Message: "busy"}))
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var back fault.Error
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Code != f.Code || back.Message != f.Message || back.RetryAfter != f.RetryAfter ||
		back.Source != f.Source || back.Domain != f.Domain || back.Details["session_id"] != "s1" ||
		back.HTTPStatus() != 409 || !back.Retryable || len(back.FieldErrors) != 1 {
		t.Errorf("round trip lost facets:\n%s\n%+v", data, back)
	}
	// Facets a peer leaves out take the code's defaults.
	var min fault.Error
	if err := json.Unmarshal([]byte(`{"code":"TIMEOUT","retry_after":0.5}`), &min); err != nil {
		t.Fatal(err)
	}
	if min.HTTPStatus() != 504 || !min.Retryable || min.Message == "" || min.RetryAfter != 500*time.Millisecond {
		t.Errorf("defaults not applied: %+v", min)
	}
}

// A peer's delay is capped at MaxRetryAfter, like every delay Triage parses.
func TestUnmarshalCapsRetryAfter(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"code":"RATE_LIMITED","retry_after":8640000}`, `{"code":"RATE_LIMITED","retry_after":1e300}`} {
		var f fault.Error
		if err := json.Unmarshal([]byte(in), &f); err != nil {
			t.Fatal(err)
		}
		if f.RetryAfter != fault.MaxRetryAfter {
			t.Errorf("%s: retry after %v, want %v", in, f.RetryAfter, fault.MaxRetryAfter)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`,
		`{"message":"no code"}`,
		`{"code":"TIMEOUT","retry_after":-1}`,
		`{"code":"TIMEOUT","http_status":42}`,
		`{"code":"TIMEOUT","http_status":200}`,
		`{"code":"TIMEOUT","category":"BOGUS"}`,
		`{"code":"TIMEOUT","domain":"network"}`,
		`{"code":7}`,
		`[]`,
		`nope`,
	} {
		var f fault.Error
		if err := json.Unmarshal([]byte(in), &f); err == nil {
			t.Errorf("%s: accepted", in)
		}
	}
}

// Seed 000, acceptance criteria 6 and 7: an unknown error says nothing of its
// type unless debug output is asked for.
func TestDebugGating(t *testing.T) {
	t.Parallel()
	f := fault.From(fmt.Errorf("step 3: %w", &customErr{"disk quota of /var/secret exceeded"}))
	plain, _ := json.Marshal(f)
	for _, leak := range []string{"customErr", "/var/secret", "debug", "error_type"} {
		if bytes.Contains(plain, []byte(leak)) {
			t.Errorf("non-debug output contains %q: %s", leak, plain)
		}
	}
	dbg, _ := json.Marshal(f.Payload(true))
	if !bytes.Contains(dbg, []byte(`"error_type":"*fault_test.customErr"`)) {
		t.Errorf("debug output lacks the type: %s", dbg)
	}
	if !bytes.Contains(dbg, []byte(`/var/secret`)) {
		t.Errorf("debug output lacks the cause: %s", dbg)
	}
}

type customErr struct{ msg string }

func (e *customErr) Error() string { return e.msg }

func TestLogValue(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	f := fault.New(fault.ProviderAuthFailed, "",
		fault.WithCause(errors.New("401: Authorization: Bearer sk-live-abcdefghijklmnop rejected")),
		fault.WithSource("openai"), fault.WithDetail("providerId", "openai"),
		fault.WithDetail("authorization", "Bearer sk-live-abcdefghijklmnop"),
		fault.WithRetryAfter(2*time.Second))
	log.Error("call failed", "err", f)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	e, ok := rec["err"].(map[string]any)
	if !ok {
		t.Fatalf("err is not a group: %s", buf.Bytes())
	}
	for k, v := range map[string]any{"code": "PROVIDER_AUTH_FAILED", "http_status": 502.0, "category": "AUTH",
		"retryable": false, "source": "openai", "session_valid": true} {
		if e[k] != v {
			t.Errorf("%s = %v, want %v", k, e[k], v)
		}
	}
	if e["retry_after"] != 2.0 || e["cause"] == nil {
		t.Errorf("retry_after or cause missing: %s", buf.Bytes())
	}
	if strings.Contains(buf.String(), "sk-live") || strings.Contains(buf.String(), `"authorization"`) {
		t.Errorf("secret reached the log: %s", buf.Bytes())
	}
}

// Error's text reaches clients and models (an MCP SDK puts it in the
// isError result a model reads), so it never carries the cause, which stays
// reachable for code and operators.
func TestErrorTextLeavesOutTheCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp 10.0.0.5:5432: connection refused by db-internal-7")
	f := fault.Wrap(cause, fault.UpstreamError, "The search tool failed.")
	if got := f.Error(); got != "UPSTREAM_ERROR: The search tool failed" {
		t.Errorf("Error() = %q", got)
	}
	wrapped := fmt.Errorf("search: %w", f)
	if got := wrapped.Error(); strings.Contains(got, "10.0.0.5") || strings.Contains(got, "db-internal-7") {
		t.Errorf("the cause reached the error text: %q", got)
	}
	if !errors.Is(wrapped, cause) || f.Unwrap() != cause {
		t.Error("the cause is no longer reachable through Unwrap")
	}
	if got := fault.New(fault.Timeout, "").Error(); got != "TIMEOUT: Request timed out. Please try again" {
		t.Errorf("default message: Error() = %q", got)
	}
	if got := (&fault.Error{Code: fault.InternalError}).Error(); got != "INTERNAL_ERROR" {
		t.Errorf("no message: Error() = %q", got)
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Error("failed", "err", f)
	if !strings.Contains(buf.String(), "db-internal-7") {
		t.Errorf("the log line lost the cause: %s", buf.String())
	}
}

func TestDebugDescribesCause(t *testing.T) {
	t.Parallel()
	f := fault.Wrap(&customErr{"upstream said: token=abc123"}, fault.UpstreamError, "")
	p := f.Payload(true)
	if p.Debug == nil || p.Debug.ErrorType != "*fault_test.customErr" || p.Debug.Cause != "upstream said: token=[REDACTED]" {
		t.Errorf("debug %+v", p.Debug)
	}
	if f.Payload(false).Debug != nil || !f.Debug.IsZero() {
		t.Error("debug leaked into plain output, or Payload changed the fault")
	}
	if p := fault.New(fault.Timeout, "").Payload(true); p.Debug != nil {
		t.Errorf("debug without a cause: %+v", p.Debug)
	}
}
