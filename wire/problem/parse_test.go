package problem_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

func ptr[T any](v T) *T { return &v }

// A member whose value has the wrong type (or is out of range) is ignored,
// as RFC 9457 §3.1 asks.
func TestParseLenient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want problem.Problem
	}{
		{"empty", `{}`, problem.Problem{Type: "about:blank"}},
		{"whitespace", " \t\r\n{ } \n", problem.Problem{Type: "about:blank"}},
		{"all members",
			`{"type":"/errors/timeout","title":"Timeout","status":504,"detail":"d","instance":"/i",` +
				`"code":"TIMEOUT","category":"TRANSPORT","domain":"system","retryable":true,"retry_after":3,` +
				`"session_valid":false,"details":{"a":1},` +
				`"errors":[{"field":"f","message":"m"}],"debug":{"error_type":"T","cause":"c","extra":{"k":"v"}}}`,
			problem.Problem{Type: "/errors/timeout", Title: "Timeout", Status: 504, Detail: "d", Instance: "/i",
				Code: fault.Timeout, Category: fault.CategoryTransport, Domain: fault.DomainSystem,
				Retryable: ptr(true), RetryAfter: 3, SessionValid: ptr(false), Details: map[string]any{"a": 1.0},
				Errors: []fault.FieldError{{Field: "f", Message: "m"}},
				Debug:  &fault.Debug{ErrorType: "T", Cause: "c", Extra: map[string]any{"k": "v"}}}},
		{"type number", `{"type":42}`, problem.Problem{Type: "about:blank"}},
		{"type null", `{"type":null}`, problem.Problem{Type: "about:blank"}},
		{"type empty", `{"type":""}`, problem.Problem{Type: "about:blank"}},
		{"title object", `{"title":{"en":"x"}}`, problem.Problem{Type: "about:blank"}},
		{"title null", `{"title":null}`, problem.Problem{Type: "about:blank"}},
		{"status string", `{"status":"429"}`, problem.Problem{Type: "about:blank"}},
		{"status fraction", `{"status":429.5}`, problem.Problem{Type: "about:blank"}},
		{"status exponent", `{"status":4.29e2}`, problem.Problem{Type: "about:blank", Status: 429}},
		{"status too low", `{"status":99}`, problem.Problem{Type: "about:blank"}},
		{"status too high", `{"status":600}`, problem.Problem{Type: "about:blank"}},
		{"status huge", `{"status":1e400}`, problem.Problem{Type: "about:blank"}},
		{"status bool", `{"status":true}`, problem.Problem{Type: "about:blank"}},
		{"detail array", `{"detail":["a"]}`, problem.Problem{Type: "about:blank"}},
		{"instance number", `{"instance":1}`, problem.Problem{Type: "about:blank"}},
		{"code number", `{"code":429}`, problem.Problem{Type: "about:blank"}},
		{"retryable string", `{"retryable":"true"}`, problem.Problem{Type: "about:blank"}},
		{"retryable false", `{"retryable":false}`, problem.Problem{Type: "about:blank", Retryable: ptr(false)}},
		{"session_valid string", `{"session_valid":"false"}`, problem.Problem{Type: "about:blank"}},
		{"session_valid true", `{"session_valid":true}`, problem.Problem{Type: "about:blank", SessionValid: ptr(true)}},
		{"category number", `{"category":1}`, problem.Problem{Type: "about:blank"}},
		{"category unknown kept", `{"category":"NETWORK"}`, problem.Problem{Type: "about:blank", Category: "NETWORK"}},
		{"domain object", `{"domain":{}}`, problem.Problem{Type: "about:blank"}},
		{"domain unknown kept", `{"domain":"network"}`, problem.Problem{Type: "about:blank", Domain: "network"}},
		{"retry_after string", `{"retry_after":"30"}`, problem.Problem{Type: "about:blank"}},
		{"retry_after negative", `{"retry_after":-1}`, problem.Problem{Type: "about:blank"}},
		{"retry_after fraction", `{"retry_after":1.2}`, problem.Problem{Type: "about:blank", RetryAfter: 2}},
		{"retry_after capped", `{"retry_after":1e12}`, problem.Problem{Type: "about:blank", RetryAfter: 86400}},
		{"retry_after just over the cap", `{"retry_after":86400.5}`, problem.Problem{Type: "about:blank", RetryAfter: 86400}},
		{"retry_after zero", `{"retry_after":0}`, problem.Problem{Type: "about:blank"}},
		{"details array", `{"details":[1]}`, problem.Problem{Type: "about:blank"}},
		{"details empty", `{"details":{}}`, problem.Problem{Type: "about:blank"}},
		{"details huge number", `{"details":{"n":1e400}}`, problem.Problem{Type: "about:blank"}},
		{"errors object", `{"errors":{"field":"f"}}`, problem.Problem{Type: "about:blank"}},
		{"errors empty", `{"errors":[]}`, problem.Problem{Type: "about:blank"}},
		{"errors mixed", `{"errors":[1,"x",null,{"field":"f","message":2},{"message":"m"}]}`,
			problem.Problem{Type: "about:blank", Errors: []fault.FieldError{{Field: "f"}, {Message: "m"}}}},
		{"debug string", `{"debug":"trace"}`, problem.Problem{Type: "about:blank"}},
		{"debug empty", `{"debug":{"extra":{}}}`, problem.Problem{Type: "about:blank"}},
		{"debug wrong members", `{"debug":{"error_type":1,"cause":"c","extra":[]}}`,
			problem.Problem{Type: "about:blank", Debug: &fault.Debug{Cause: "c"}}},
		{"duplicate member", `{"status":400,"status":"x"}`, problem.Problem{Type: "about:blank"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := problem.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseNotObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  string
		want string
	}{
		{``, "invalid JSON"},
		{`   `, "invalid JSON"},
		{`{`, "invalid JSON"},
		{`{"type":"x"} {}`, "invalid JSON"},
		{`{"a":1,}`, "invalid JSON"},
		{"\xef\xbb\xbf{}", "invalid JSON"},
		{`null`, "JSON null, not an object"},
		{`[]`, "JSON array, not an object"},
		{`[{"type":"x"}]`, "JSON array, not an object"},
		{`"problem"`, "JSON string, not an object"},
		{`429`, "JSON number, not an object"},
		{`true`, "JSON bool, not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			t.Parallel()
			p, err := problem.Parse([]byte(tt.doc))
			if err == nil || p != nil {
				t.Fatalf("Parse(%q) = %+v, %v; want an error", tt.doc, p, err)
			}
			if !strings.HasPrefix(err.Error(), "problem: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

// Unknown members are kept, and written again as they came.
func TestExtensionsRoundTrip(t *testing.T) {
	t.Parallel()
	doc := `{
		"type": "https://example.com/probs/out-of-credit",
		"title": "You do not have enough credit.",
		"detail": "Your current balance is 30, but that costs 50.",
		"instance": "/account/12345/msgs/abc",
		"balance": 30,
		"accounts": ["/account/12345", "/account/67890"],
		"id": 12345678901234567890123,
		"nested": { "a" : [ 1 , { "b" : null } ], "html": "<b>&" },
		"Type": "not the type member",
		"vendor_flag": false
	}`
	p, err := problem.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	wantExt := map[string]string{
		"balance":     `30`,
		"accounts":    `["/account/12345","/account/67890"]`,
		"id":          `12345678901234567890123`,
		"nested":      `{"a":[1,{"b":null}],"html":"\u003cb\u003e\u0026"}`,
		"Type":        `"not the type member"`,
		"vendor_flag": `false`,
	}
	if len(p.Extensions) != len(wantExt) {
		t.Errorf("extensions %v", p.Extensions)
	}
	for name, want := range wantExt {
		if got := string(p.Extensions[name]); got != want {
			t.Errorf("extension %s = %s, want %s", name, got, want)
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.",` +
		`"detail":"Your current balance is 30, but that costs 50.","instance":"/account/12345/msgs/abc",` +
		`"Type":"not the type member","accounts":["/account/12345","/account/67890"],"balance":30,` +
		`"id":12345678901234567890123,"nested":{"a":[1,{"b":null}],"html":"\u003cb\u003e\u0026"},"vendor_flag":false}`
	if string(b) != want {
		t.Errorf("marshalled\n%s\nwant\n%s", b, want)
	}
	again, err := problem.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, p) {
		t.Errorf("round trip changed the problem:\n%+v\n%+v", again, p)
	}
}

func TestMarshalExtensions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		p       problem.Problem
		want    string
		wantErr bool
	}{
		{"only extensions", problem.Problem{Extensions: map[string]json.RawMessage{"b": []byte(`2`), "a": []byte(`1`)}}, `{"a":1,"b":2}`, false},
		{"known names ignored", problem.Problem{Status: 400, Extensions: map[string]json.RawMessage{"status": []byte(`500`), "x": nil}}, `{"status":400,"x":null}`, false},
		{"compacted", problem.Problem{Extensions: map[string]json.RawMessage{"x": []byte(" [ 1 ,\n2 ] ")}}, `{"x":[1,2]}`, false},
		{"invalid extension", problem.Problem{Extensions: map[string]json.RawMessage{"x": []byte(`{`)}}, "", true},
		{"zero", problem.Problem{}, `{}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.p)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

// Problem works as a field of another JSON document.
func TestProblemInDocument(t *testing.T) {
	t.Parallel()
	in := `{"id":"e1","problem":{"status":429,"code":"RATE_LIMITED","vendor":"x"}}`
	var doc struct {
		ID      string          `json:"id"`
		Problem problem.Problem `json:"problem"`
	}
	if err := json.Unmarshal([]byte(in), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Problem.Status != 429 || doc.Problem.Code != fault.RateLimited || doc.Problem.Type != "about:blank" {
		t.Errorf("decoded %+v", doc.Problem)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"e1","problem":{"type":"about:blank","status":429,"code":"RATE_LIMITED","vendor":"x"}}`; string(b) != want {
		t.Errorf("encoded %s, want %s", b, want)
	}
	if err := json.Unmarshal([]byte(`{"problem":[1]}`), &doc); err == nil {
		t.Error("a problem member that is not an object decoded")
	}
}

func TestFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		want *fault.Error
	}{
		{"code", `{"code":"RATE_LIMITED","status":429,"detail":"Slow down.","retry_after":30,"details":{"limit":60}}`,
			fault.New(fault.RateLimited, "Slow down.", fault.WithRetryAfter(30*time.Second), fault.WithDetail("limit", 60.0))},
		{"code without detail", `{"code":"TIMEOUT"}`, fault.New(fault.Timeout, "")},
		{"code overrides", `{"code":"UPSTREAM_ERROR","status":503,"retryable":true}`,
			fault.New(fault.UpstreamError, "", fault.WithStatus(503), fault.WithRetryable(true))},
		{"code with non-error status", `{"code":"TIMEOUT","status":200}`, fault.New(fault.Timeout, "")},
		{"field errors", `{"code":"INVALID_REQUEST","errors":[{"field":"a","message":"is required"}]}`,
			fault.Invalid("", fault.FieldError{Field: "a", Message: "is required"})},
		{"debug", `{"code":"AGENT_EXECUTION_ERROR","debug":{"error_type":"*errors.errorString","cause":"boom"}}`,
			withDebug(fault.New(fault.AgentExecutionError, ""), fault.Debug{ErrorType: "*errors.errorString", Cause: "boom"})},
		{"facets", `{"code":"TIMEOUT","category":"TRANSPORT","domain":"tool","session_valid":false}`,
			fault.New(fault.Timeout, "", fault.WithCategory(fault.CategoryTransport), fault.WithDomain(fault.DomainTool),
				fault.WithSessionValid(false))},
		{"invalid facets ignored", `{"code":"TIMEOUT","category":"NETWORK","domain":"network"}`, fault.New(fault.Timeout, "")},
		{"retry_after capped", `{"code":"RATE_LIMITED","retry_after":1e12}`,
			fault.New(fault.RateLimited, "", fault.WithRetryAfter(fault.MaxRetryAfter))},
		{"unknown code", `{"code":"NEWER_CODE","status":418,"detail":"Short and stout."}`,
			withDebug(fault.New("NEWER_CODE", "", fault.WithStatus(418)), fault.Debug{Cause: "Short and stout."})},
		{"unknown code and debug", `{"code":"NEWER_CODE","title":"Teapot","detail":"Short.","debug":{"error_type":"E","cause":"pot"}}`,
			withDebug(fault.New("NEWER_CODE", ""), fault.Debug{ErrorType: "E", Cause: "Teapot: Short.: pot"})},
		{"foreign 429", `{"type":"https://api.example/rate","title":"Too many","status":429,"detail":"Quota of 10/s used"}`,
			withDebug(fault.FromStatus(429, nil, time.Time{}), fault.Debug{Cause: "Too many: Quota of 10/s used"})},
		{"foreign 503 retry_after", `{"status":503,"retry_after":5}`,
			withRetryAfter(fault.FromStatus(503, nil, time.Time{}), 5*time.Second)},
		{"foreign 404", `{"status":404,"detail":"Book 42 not found"}`,
			withDebug(fault.FromStatus(404, nil, time.Time{}), fault.Debug{Cause: "Book 42 not found"})},
		{"foreign without status", `{"title":"Oops"}`,
			withDebug(fault.New(fault.UpstreamError, ""), fault.Debug{Cause: "Oops"})},
		{"empty", `{}`, fault.New(fault.UpstreamError, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := problem.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			got := p.Fault()
			if got == nil {
				t.Fatal("Fault() = nil")
			}
			got.Classification, tt.want.Classification = fault.Classification{}, fault.Classification{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func withDebug(f *fault.Error, d fault.Debug) *fault.Error { f.Debug = d; return f }

func withRetryAfter(f *fault.Error, d time.Duration) *fault.Error { f.RetryAfter = d; return f }

// Fault copies what it takes from the problem.
func TestFaultDoesNotShare(t *testing.T) {
	t.Parallel()
	p, err := problem.Parse([]byte(`{"code":"INVALID_REQUEST","details":{"a":1},"errors":[{"field":"f"}],"debug":{"extra":{"k":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f := p.Fault()
	f.Details["a"] = 2
	f.FieldErrors[0].Field = "g"
	f.Debug.Extra["k"] = 2
	if p.Details["a"] != 1.0 || p.Errors[0].Field != "f" || p.Debug.Extra["k"] != 1.0 {
		t.Errorf("changing the fault changed the problem: %+v", p)
	}
	big := problem.Problem{Code: fault.RateLimited, RetryAfter: 1 << 62}
	if d := big.Fault().RetryAfter; d != 24*time.Hour {
		t.Errorf("huge retry_after gave %v, want 24h", d)
	}
}

func TestReadResponse(t *testing.T) {
	t.Parallel()
	const doc = `{"type":"/errors/rate-limited","status":429,"code":"RATE_LIMITED"}`
	tests := []struct {
		name        string
		status      int
		contentType string
		header      http.Header
		body        string
		wantErr     string
		wantNot     bool
		want        *problem.Problem
	}{
		{name: "problem", status: 429, contentType: "application/problem+json", body: doc,
			want: &problem.Problem{Type: "/errors/rate-limited", Status: 429, Code: fault.RateLimited}},
		{name: "parameters and case", status: 429, contentType: "Application/Problem+JSON; charset=utf-8", body: doc,
			want: &problem.Problem{Type: "/errors/rate-limited", Status: 429, Code: fault.RateLimited}},
		{name: "status from response", status: 503, contentType: problem.ContentType, body: `{"title":"Down"}`,
			want: &problem.Problem{Type: "about:blank", Title: "Down", Status: 503}},
		{name: "status member wins", status: 502, contentType: problem.ContentType, body: `{"status":503}`,
			want: &problem.Problem{Type: "about:blank", Status: 503}},
		{name: "retry after from header", status: 429, contentType: problem.ContentType,
			header: http.Header{"Retry-After": {"7"}}, body: `{}`,
			want: &problem.Problem{Type: "about:blank", Status: 429, RetryAfter: 7}},
		{name: "retry_after member wins", status: 429, contentType: problem.ContentType,
			header: http.Header{"Retry-After": {"7"}}, body: `{"retry_after":9}`,
			want: &problem.Problem{Type: "about:blank", Status: 429, RetryAfter: 9}},
		{name: "json", status: 500, contentType: "application/json", body: doc, wantNot: true},
		{name: "html", status: 502, contentType: "text/html", body: "<html>", wantNot: true},
		{name: "no content type", status: 500, body: doc, wantNot: true},
		{name: "not an object", status: 500, contentType: problem.ContentType, body: `"oops"`, wantErr: "not an object"},
		{name: "too large", status: 500, contentType: problem.ContentType,
			body: `{"detail":"` + strings.Repeat("x", 1<<20) + `"}`, wantErr: "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			for k, v := range tt.header {
				resp.Header[k] = v
			}
			if tt.contentType != "" {
				resp.Header.Set("Content-Type", tt.contentType)
			}
			p, err := problem.ReadResponse(resp)
			switch {
			case tt.wantNot:
				if !errors.Is(err, problem.ErrNotProblem) {
					t.Errorf("error %v, want ErrNotProblem", err)
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case !reflect.DeepEqual(p, tt.want):
				t.Errorf("got  %+v\nwant %+v", p, tt.want)
			}
		})
	}
}

// A peer's detail becomes the fault's Message only when its code is one the
// code table knows; otherwise the Message is the code's default and the
// peer's text, redacted, is debug output only.
func TestFaultDistrustsPeerText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		doc        string
		code       fault.Code
		message    string // the fault's Message
		rule       string
		confidence float64
		cause      string // Debug.Cause, "" when it must be empty
		leaks      []string
	}{
		{"known code", `{"code":"TENANT_UNAUTHORIZED","detail":"Key revoked."}`,
			fault.TenantUnauthorized, "Key revoked.", "problem_code", 1, "", nil},
		{"unknown code", `{"code":"invalid_api_key","detail":"Key sk-abc is invalid for org acme-internal-42"}`,
			"invalid_api_key", fault.New("invalid_api_key", "").Message, "problem_unknown_code", 0.5,
			"Key sk-abc is invalid for org acme-internal-42", []string{"sk-abc", "acme-internal-42"}},
		{"no code", `{"status":401,"title":"Unauthorized","detail":"Key sk-abc is invalid for org acme-internal-42"}`,
			fault.ProviderAuthFailed, fault.New(fault.ProviderAuthFailed, "").Message, "problem_status", 0.9,
			"Unauthorized: Key sk-abc is invalid for org acme-internal-42", []string{"sk-abc", "acme-internal-42"}},
		{"no code, no status", `{"detail":"db host=10.0.0.5 down"}`,
			fault.UpstreamError, fault.New(fault.UpstreamError, "").Message, "problem_fallback", 0.3,
			"db host=10.0.0.5 down", []string{"10.0.0.5"}},
		{"unknown code, redacted", `{"code":"X","detail":"Authorization: Bearer sk-proj-abcdefghijklmnop"}`,
			"X", fault.New("X", "").Message, "problem_unknown_code", 0.5,
			"Authorization: [REDACTED]", []string{"sk-proj"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := problem.Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			f := p.Fault()
			if f.Code != tt.code || f.Message != tt.message {
				t.Errorf("fault %s %q, want %s %q", f.Code, f.Message, tt.code, tt.message)
			}
			want := fault.Classification{Method: fault.MethodWire, Rule: tt.rule, Confidence: tt.confidence}
			if f.Classification != want {
				t.Errorf("classification %+v, want %+v", f.Classification, want)
			}
			if f.Debug.Cause != tt.cause {
				t.Errorf("Debug.Cause %q, want %q", f.Debug.Cause, tt.cause)
			}
			// What a client would see again: nothing of the peer's text.
			for _, out := range []any{f.Payload(false), problem.From(f, nil)} {
				b, err := json.Marshal(out)
				if err != nil {
					t.Fatal(err)
				}
				for _, leak := range tt.leaks {
					if strings.Contains(string(b), leak) {
						t.Errorf("%s leaks %q", b, leak)
					}
				}
			}
		})
	}
}
