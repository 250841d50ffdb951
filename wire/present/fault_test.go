package present

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// TestEveryCode turns a fault of every code in the table into a user_error
// event and into a stream error packet, and reads both back.
func TestEveryCode(t *testing.T) {
	t.Parallel()
	for _, spec := range fault.Codes() {
		t.Run(string(spec.Code), func(t *testing.T) {
			t.Parallel()
			f := fault.New(spec.Code, "")

			ev := EventFrom(f, fixed)
			want := UserError{Message: spec.Message, Code: spec.Status, Domain: spec.Domain, Retryable: spec.Retryable}
			if *ev.UserError != want || ev.ID != fixedID || !ev.Timestamp.Equal(fixedTime) || ev.Type != TypeUserError {
				t.Errorf("EventFrom = %+v %+v, want data %+v", ev, ev.UserError, want)
			}
			p, err := ParsePacket(golden.Marshal(t, EventPacket(ev)))
			if err != nil {
				t.Fatal(err)
			}
			if *p.Event.UserError != want {
				t.Errorf("user_error read back = %+v, want %+v", p.Event.UserError, want)
			}

			se := StreamErrorFrom(f)
			sev := SeverityFatal
			if spec.Retryable {
				sev = SeverityTransient
			}
			if se.Code != string(spec.Code) || se.Message != spec.Message || se.Severity != sev || se.Details != nil {
				t.Errorf("StreamErrorFrom = %+v, want code %s, severity %s, no details", se, spec.Code, sev)
			}
			p, err = ParsePacket(golden.Marshal(t, ErrorPacket(se)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Error, se) {
				t.Errorf("stream error read back = %+v, want %+v", p.Error, se)
			}
		})
	}
}

func TestUserErrorFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault *fault.Error
		want  UserError
	}{
		{"Overrides", fault.New(fault.UpstreamError, "The search tool is unavailable.", fault.WithRetryable(true), fault.WithStatus(503)),
			UserError{Message: "The search tool is unavailable.", Code: 503, Domain: fault.DomainTool, Retryable: true}},
		{"DomainOverride", fault.New(fault.Timeout, "", fault.WithDomain(fault.DomainLLM)),
			UserError{Message: "Request timed out. Please try again.", Code: 504, Domain: fault.DomainLLM, Retryable: true}},
		{"Cancelled499", fault.New(fault.Cancelled, ""),
			UserError{Message: "The request was cancelled.", Code: 499, Domain: fault.DomainClient}},
		{"HandBuiltBadStatusAndDomain", &fault.Error{Code: fault.RateLimited, Status: 999, Domain: "moon"},
			UserError{Message: "Request rate limit exceeded. Please wait before retrying.", Domain: fault.DomainClient}},
		{"UnknownCode", &fault.Error{Code: "FROM_THE_FUTURE", Message: " "},
			UserError{Message: "An error occurred processing your request.", Code: 500, Domain: fault.DomainSystem}},
		{"RetryAfter", fault.New(fault.RateLimited, "", fault.WithRetryAfter(29500*time.Millisecond)),
			UserError{Message: "Request rate limit exceeded. Please wait before retrying.", Code: 429, Domain: fault.DomainClient,
				Retryable: true, RetryAfter: 30}},
		{"MessageRedacted", fault.New(fault.ProviderAuthFailed, "Key sk-abcdefghijklmnop was rejected."),
			UserError{Message: "Key [REDACTED] was rejected.", Code: 502, Domain: fault.DomainSecurity}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := *UserErrorFrom(tt.fault)
			if got != tt.want {
				t.Errorf("UserErrorFrom = %+v, want %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("the data is invalid: %v", err)
			}
		})
	}
}

func TestStreamErrorFrom(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault *fault.Error
		want  string
	}{
		{"RetryAfter", fault.New(fault.RateLimited, "Too many requests", fault.WithRetryAfter(60*time.Second)),
			`{"code":"RATE_LIMITED","message":"Too many requests","severity":"transient","details":{"retry_after":60}}`},
		{"RetryAfterRoundsUp", fault.New(fault.ServiceUnavailable, "", fault.WithRetryAfter(1200*time.Millisecond)),
			`{"code":"SERVICE_UNAVAILABLE","message":"Service temporarily unavailable. Please try again later.","severity":"transient","details":{"retry_after":2}}`},
		{"RetryAfterOverridesDetail", fault.New(fault.RateLimited, "x", fault.WithDetail("retry_after", "soon"), fault.WithRetryAfter(5*time.Second)),
			`{"code":"RATE_LIMITED","message":"x","severity":"transient","details":{"retry_after":5}}`},
		{"DetailsKept", fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123")),
			`{"code":"SESSION_NOT_FOUND","message":"Session not found: abc-123","severity":"fatal","details":{"sessionId":"abc-123"}}`},
		{"OnlyUnsafeDetails", fault.New(fault.InternalError, "x", fault.WithDetail("stack", "goroutine 1")),
			`{"code":"INTERNAL_ERROR","message":"x","severity":"fatal","details":null}`},
		{"RetryableOverride", fault.New(fault.UpstreamError, "x", fault.WithRetryable(true)),
			`{"code":"UPSTREAM_ERROR","message":"x","severity":"transient","details":null}`},
		{"Unencodable", fault.New(fault.UpstreamError, "x", fault.WithDetail("nan", math.NaN()), fault.WithDetail("n", 1)),
			`{"code":"UPSTREAM_ERROR","message":"x","severity":"fatal","details":{"n":1}}`},
		{"HandBuiltNoCode", &fault.Error{Message: "x"},
			`{"code":"AGENT_EXECUTION_ERROR","message":"x","severity":"fatal","details":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if b := golden.Marshal(t, StreamErrorFrom(tt.fault)); string(b) != tt.want {
				t.Errorf("Marshal = %s\nwant %s", b, tt.want)
			}
		})
	}
}

// Constructors given a nil error return nil; a typed nil fault is an error,
// and is reported.
func TestNilError(t *testing.T) {
	t.Parallel()
	if u, ev, se := UserErrorFrom(nil), EventFrom(nil, fixed), StreamErrorFrom(nil); u != nil || ev != nil || se != nil {
		t.Errorf("from nil: %+v, %+v, %+v; want nil", u, ev, se)
	}
	var typed *fault.Error
	if u, se := UserErrorFrom(typed), StreamErrorFrom(typed); u == nil || se == nil || u.Validate() != nil || se.Validate() != nil {
		t.Errorf("from a typed nil: %+v, %+v; want valid values", u, se)
	}
}

// The user_error data carries the retry delay, Triage's extension of seed
// 001's data, and reads it back; data without it reads as before.
func TestUserErrorRetryAfter(t *testing.T) {
	t.Parallel()
	u := UserErrorFrom(fault.New(fault.RateLimited, "", fault.WithRetryAfter(1200*time.Millisecond)))
	b := golden.Marshal(t, u)
	if want := `{"message":"Request rate limit exceeded. Please wait before retrying.","code":429,"domain":"client","retryable":true,"retry_after":2}`; string(b) != want {
		t.Errorf("Marshal = %s\nwant %s", b, want)
	}
	back, err := ParseUserError(b)
	if err != nil || *back != *u {
		t.Errorf("read back %+v, %v; want %+v", back, err, u)
	}
	tests := []struct {
		data string
		want int64
	}{
		{`{"message":"m"}`, 0},
		{`{"message":"m","retry_after":null}`, 0},
		{`{"message":"m","retry_after":0}`, 0},
		{`{"message":"m","retry_after":30}`, 30},
		{`{"message":"m","retry_after":0.2}`, 1},
		{`{"message":"m","retry_after":86400.5}`, 86400},
		{`{"message":"m","retry_after":1e300}`, 86400},
	}
	for _, tt := range tests {
		u, err := ParseUserError([]byte(tt.data))
		if err != nil || u.RetryAfter != tt.want {
			t.Errorf("ParseUserError(%s) = %+v, %v; want retry_after %d", tt.data, u, err, tt.want)
		}
	}
	if b := golden.Marshal(t, NewUserError("m")); strings.Contains(string(b), "retry_after") {
		t.Errorf("no delay, but %s", b)
	}
	if err := (UserError{Message: "m", RetryAfter: -1}).Validate(); err == nil {
		t.Error("a negative retry_after validates")
	}
}

// A stream error's numeric details.retry_after is capped like every delay
// Triage reads; other details are kept as they are.
func TestStreamErrorRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		details string
		want    any
	}{
		{`{"retry_after":30}`, 30.0},
		{`{"retry_after":1.5}`, 2.0},
		{`{"retry_after":31622400}`, 86400.0},
		{`{"retry_after":1e300}`, 86400.0},
		{`{"retry_after":-5}`, 0.0},
		{`{"retry_after":"soon"}`, "soon"},
	}
	for _, tt := range tests {
		se, err := ParseStreamError([]byte(`{"code":"RATE_LIMITED","message":"m","severity":"transient","details":` + tt.details + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := se.Details["retry_after"]; got != tt.want {
			t.Errorf("details %s: retry_after = %v, want %v", tt.details, got, tt.want)
		}
	}
}

// The secrets a failing tool call leaves in a fault.
const (
	bearerToken = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJl"
	apiKey      = "sk-proj-A1b2C3d4E5f6G7h8I9j0"
	requestBody = `{"query":"my confidential prompt"}`
	respBody    = `{"error":"upstream internal dump 0xdeadbeef"}`
)

func leakyFault() *fault.Error {
	cause := fmt.Errorf("GET https://search.example/api: Authorization: Bearer %s; key=%s; body %s; response %s\nTraceback (most recent call last):\n  File \"tool.py\", line 3",
		bearerToken, apiKey, requestBody, respBody)
	f := fault.Wrap(cause, fault.UpstreamError, "The search tool is unavailable.",
		fault.WithRetryable(true), fault.WithRetryAfter(10*time.Second),
		fault.WithDetails(map[string]any{
			"tool":          "search",
			"authorization": "Bearer " + bearerToken,
			"stack":         "Traceback (most recent call last):",
			"request":       requestBody,
			"response":      respBody,
			"note":          "called with Bearer " + bearerToken + " and " + apiKey,
			"upstream":      map[string]any{"api_key": apiKey, "Authorization": bearerToken, "status": 503},
			"auth":          struct{ Token string }{bearerToken},
		}))
	f.Debug = fault.Debug{ErrorType: "*url.Error", Cause: cause.Error(), Extra: map[string]any{"request": requestBody}}
	return f
}

var forbidden = []string{
	bearerToken, "eyJhbGci", apiKey, "sk-proj", "authorization", "stack", "traceback", "tool.py",
	"confidential prompt", "deadbeef", `"request"`, `"response"`, "*url.Error", "error_type", "debug",
}

func TestNoSecrets(t *testing.T) {
	t.Parallel()
	f := leakyFault()
	encodings := []struct {
		name string
		v    any
		safe []string
	}{
		{"UserErrorEvent", EventPacket(EventFrom(f, fixed)), []string{"The search tool is unavailable.", `"domain":"tool"`}},
		{"StreamError", ErrorPacket(StreamErrorFrom(f)), []string{`"tool":"search"`, `"status":503`, `"retry_after":10`, "called with Bearer [REDACTED] and [REDACTED]"}},
	}
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			t.Parallel()
			b := golden.Marshal(t, enc.v)
			lower := strings.ToLower(string(b))
			for _, s := range forbidden {
				if strings.Contains(lower, strings.ToLower(s)) {
					t.Errorf("encoding contains %q:\n%s", s, b)
				}
			}
			for _, s := range enc.safe {
				if !strings.Contains(string(b), s) {
					t.Errorf("encoding lacks %s:\n%s", s, b)
				}
			}
		})
	}
}

// TestValidationErrorIsInvalidRequest checks that a decoding failure
// classifies as INVALID_REQUEST, naming the member.
func TestValidationErrorIsInvalidRequest(t *testing.T) {
	t.Parallel()
	_, err := ParsePacket([]byte(`{"op":"event","p":{"id":"6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab","timestamp":"2025-05-20T10:00:00Z","type":"user_error","data":{"message":"x","domain":"moon"}}}`))
	f := fault.From(fmt.Errorf("read stream: %w", err))
	want := []fault.FieldError{{Field: "p.data.domain", Message: `unknown domain "moon"; allowed: client, system, llm, tool, security`}}
	if f.Code != fault.InvalidRequest || !reflect.DeepEqual(f.FieldErrors, want) {
		t.Errorf("fault.From = %s %v, want INVALID_REQUEST %v", f.Code, f.FieldErrors, want)
	}
	if got := err.Error(); got != `present: member "p.data.domain": unknown domain "moon"; allowed: client, system, llm, tool, security` {
		t.Errorf("Error() = %q", got)
	}
	var syntax *json.SyntaxError
	_, err = ParsePacket([]byte(`{"op":`))
	if f := fault.From(err); f.Code != fault.InvalidRequest || f.FieldErrors[0].Field != "(root)" {
		t.Errorf("fault.From = %+v", f)
	}
	if !errors.As(err, &syntax) {
		t.Errorf("error %v does not wrap the *json.SyntaxError", err)
	}
}
