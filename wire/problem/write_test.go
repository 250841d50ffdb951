package problem_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/problem"
)

// write writes err with opts in reply to a GET of target and returns the
// recorder and the parsed body.
func write(t *testing.T, target string, err error, opts *problem.Options) (*httptest.ResponseRecorder, *problem.Problem) {
	t.Helper()
	w := httptest.NewRecorder()
	problem.Write(w, httptest.NewRequest("GET", target, nil), err, opts)
	p, perr := problem.Parse(w.Body.Bytes())
	if perr != nil {
		t.Fatalf("body does not parse: %v\n%s", perr, w.Body)
	}
	return w, p
}

// members decodes a body into its raw members.
func members(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, body)
	}
	return m
}

func TestEveryCode(t *testing.T) {
	t.Parallel()
	for _, spec := range fault.Codes() {
		t.Run(string(spec.Code), func(t *testing.T) {
			t.Parallel()
			w, p := write(t, "/v1/runs", fault.New(spec.Code, ""), nil)
			if w.Code != spec.Status {
				t.Errorf("written status %d, table says %d", w.Code, spec.Status)
			}
			if p.Status != w.Code {
				t.Errorf("status member %d, written status %d", p.Status, w.Code)
			}
			if p.Type != spec.Type || p.Title != spec.Title || p.Code != spec.Code {
				t.Errorf("type, title, code = %q, %q, %q; want %q, %q, %q",
					p.Type, p.Title, p.Code, spec.Type, spec.Title, spec.Code)
			}
			if p.Detail != spec.Message {
				t.Errorf("detail %q, want the default message %q", p.Detail, spec.Message)
			}
			if p.Retryable == nil || *p.Retryable != spec.Retryable {
				t.Errorf("retryable %v, want %v", p.Retryable, spec.Retryable)
			}
			if ct := w.Header().Get("Content-Type"); ct != problem.ContentType {
				t.Errorf("Content-Type %q", ct)
			}
			if f := p.Fault(); f.Code != spec.Code || f.HTTPStatus() != spec.Status || f.Retryable != spec.Retryable {
				t.Errorf("Fault() = %s %d %v", f.Code, f.HTTPStatus(), f.Retryable)
			}

			_, abs := write(t, "/v1/runs", fault.New(spec.Code, ""), &problem.Options{BaseURI: "https://triage.example/"})
			if want := "https://triage.example" + spec.Type; abs.Type != want {
				t.Errorf("with BaseURI, type %q, want %q", abs.Type, want)
			}
		})
	}
}

// A fault whose cause, debug and details carry credentials and a stack
// trace gives a problem with none of them, with or without debug output.
func TestNoSecrets(t *testing.T) {
	t.Parallel()
	const (
		bearer = "sk-live-0123456789abcdefghij"
		apiKey = "AIzaSyA1234567890abcdefghijklmnopqrstu"
	)
	secretText := "POST https://api.example/v1/chat: Authorization: Bearer " + bearer + " x-api-key: " + apiKey
	newFault := func() *fault.Error {
		return fault.New(fault.UpstreamError, "",
			fault.WithCause(errors.New(secretText)),
			fault.WithDetails(map[string]any{
				"authorization": "Bearer " + bearer,
				"stack":         "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d",
				"provider":      "openai",
				"nested":        map[string]any{"api_key": apiKey, "note": "key " + apiKey},
			}),
			fault.WithDebug("request_headers", map[string]any{"Authorization": "Bearer " + bearer}))
	}
	for _, debug := range []bool{false, true} {
		t.Run("debug="+strconv.FormatBool(debug), func(t *testing.T) {
			t.Parallel()
			f := newFault()
			f.Debug.ErrorType = "*openai.Error"
			f.Debug.Cause = secretText + "\ngoroutine 7 [running]:\nmain.call()\n\t/app/call.go:40 +0x1d"
			w, p := write(t, "/v1/chat?api_key="+apiKey, f, &problem.Options{Debug: debug})
			body := w.Body.String()
			for _, leak := range []string{bearer, apiKey, "Bearer", `"authorization"`, `"stack"`, "goroutine", "api_key", "/app/"} {
				if strings.Contains(body, leak) {
					t.Errorf("body carries %q:\n%s", leak, body)
				}
			}
			for name, vs := range w.Header() {
				for _, v := range vs {
					if strings.Contains(v, bearer) || strings.Contains(v, apiKey) {
						t.Errorf("header %s carries a secret: %q", name, v)
					}
				}
			}
			if p.Details["provider"] != "openai" {
				t.Errorf("safe details lost: %v", p.Details)
			}
			if debug != (p.Debug != nil) {
				t.Errorf("debug member present = %v with Debug %v", p.Debug != nil, debug)
			}
			if debug && p.Debug.ErrorType != "*openai.Error" {
				t.Errorf("debug error_type %q", p.Debug.ErrorType)
			}
		})
	}
}

// The Retry-After header and retry_after are the same whole number of
// seconds, rounded up; neither is written without a delay.
func TestRetryAfterAgrees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		delay time.Duration
		want  int64
	}{
		{0, 0},
		{-time.Second, 0},
		{time.Nanosecond, 1},
		{999 * time.Millisecond, 1},
		{time.Second, 1},
		{1500 * time.Millisecond, 2},
		{30 * time.Second, 30},
		{2*time.Minute + time.Millisecond, 121},
	}
	for _, tt := range tests {
		t.Run(tt.delay.String(), func(t *testing.T) {
			t.Parallel()
			w, p := write(t, "/", fault.New(fault.RateLimited, "", fault.WithRetryAfter(tt.delay)), nil)
			header := w.Header().Get("Retry-After")
			_, member := members(t, w.Body.Bytes())["retry_after"]
			if tt.want == 0 {
				if header != "" || member {
					t.Errorf("no delay, yet Retry-After %q and retry_after present %v", header, member)
				}
				return
			}
			if header != strconv.FormatInt(tt.want, 10) || p.RetryAfter != tt.want {
				t.Errorf("Retry-After %q, retry_after %d; want %d for both", header, p.RetryAfter, tt.want)
			}
			if fault.Seconds(tt.delay) != tt.want {
				t.Errorf("fault.Seconds(%v) = %d", tt.delay, fault.Seconds(tt.delay))
			}
		})
	}
}

func TestWriteStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"override", fault.New(fault.UpstreamError, "", fault.WithStatus(504)), 504},
		{"1xx is not an error", fault.New(fault.Timeout, "", fault.WithStatus(103)), 504},
		{"2xx is not an error", fault.New(fault.InvalidRequest, "", fault.WithStatus(200)), 400},
		{"3xx is not an error", fault.New(fault.SessionNotFound, "", fault.WithStatus(302)), 404},
		{"beyond 599", fault.New(fault.Timeout, "", fault.WithStatus(999)), 504},
		{"499", fault.New(fault.Cancelled, ""), 499},
		{"nil error", nil, 500},
		{"plain error", errors.New("boom"), 500},
		{"wrapped fault", errors.Join(errors.New("x"), fault.New(fault.TenantRequired, "")), 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, p := write(t, "/", tt.err, nil)
			if w.Code != tt.want || p.Status != tt.want {
				t.Errorf("written %d, member %d; want %d", w.Code, p.Status, tt.want)
			}
		})
	}
}

// Writing a failure for no error is a programming mistake: Write reports it
// as INTERNAL_ERROR, never as a success; From, a constructor, returns nil.
func TestWriteNil(t *testing.T) {
	t.Parallel()
	w, p := write(t, "/v1/runs", nil, nil)
	if w.Code != 500 || p.Code != fault.InternalError || p.Status != 500 {
		t.Errorf("Write(nil) wrote %d %+v, want 500 INTERNAL_ERROR", w.Code, p)
	}
	if p := problem.From(nil, &problem.Options{Debug: true}); p != nil {
		t.Errorf("From(nil) = %+v, want nil", p)
	}
}

// Write replaces headers a handler set for the response it did not write.
func TestWriteReplacesHeaders(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Content-Length", "12345")
	w.Header().Set("Retry-After", "600")
	w.Header().Set("X-Request-Id", "r-1")
	problem.Write(w, httptest.NewRequest("GET", "/", nil), fault.New(fault.InvalidRequest, ""), nil)
	h := w.Header()
	if h.Get("Content-Type") != problem.ContentType || h.Get("Content-Length") != "" || h.Get("Retry-After") != "" {
		t.Errorf("stale headers kept: %v", h)
	}
	if h.Get("X-Request-Id") != "r-1" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers: %v", h)
	}
}

// Details JSON cannot encode are dropped; the problem is still written.
func TestWriteUnencodableDetails(t *testing.T) {
	t.Parallel()
	f := fault.New(fault.Timeout, "", fault.WithDetail("score", math.NaN()), fault.WithDebug("ch", make(chan int)))
	w, p := write(t, "/", f, &problem.Options{Debug: true})
	if w.Code != 504 || p.Code != fault.Timeout || p.Details != nil || p.Debug != nil {
		t.Errorf("got %d %+v", w.Code, p)
	}
}

func TestInstance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target string
		opts   *problem.Options
		want   string
	}{
		{"path", "/v1/runs/42", nil, "/v1/runs/42"},
		{"query dropped", "/v1/runs/42?api_key=secret", nil, "/v1/runs/42"},
		{"escaped", "/v1/runs/a%2Fb", nil, "/v1/runs/a%2Fb"},
		{"key in path", "/v1/keys/sk-live-0123456789abcdef/x", nil, "/v1/keys/%5BREDACTED%5D/x"},
		{"escaped key in path", "/v1/keys/sk-live-0123456789abcdef%2Fx/y", nil, "/v1/keys/%5BREDACTED%5D/x/y"},
		{"custom as given", "/v1/keys/sk-live-0123456789abcdef/x", &problem.Options{Instance: func(r *http.Request) string {
			return r.URL.Path
		}}, "/v1/keys/sk-live-0123456789abcdef/x"},
		{"custom", "/v1/runs/42", &problem.Options{Instance: func(r *http.Request) string {
			return "urn:uuid:" + r.Header.Get("X-Request-Id")
		}}, "urn:uuid:"},
		{"omitted", "/v1/runs/42", &problem.Options{Instance: func(*http.Request) string { return "" }}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, p := write(t, tt.target, fault.New(fault.Timeout, ""), tt.opts)
			if p.Instance != tt.want {
				t.Errorf("instance %q, want %q", p.Instance, tt.want)
			}
			if _, ok := members(t, w.Body.Bytes())["instance"]; ok != (tt.want != "") {
				t.Errorf("instance member present = %v", ok)
			}
		})
	}
}

func TestBaseURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base string
		code fault.Code
		want string
	}{
		{"", fault.RateLimited, "/errors/rate-limited"},
		{"https://triage.example/", fault.RateLimited, "https://triage.example/errors/rate-limited"},
		{"https://triage.example", fault.RateLimited, "https://triage.example/errors/rate-limited"},
		{"https://triage.example/api/v1/", fault.Timeout, "https://triage.example/errors/timeout"},
		{"not a URI", fault.RateLimited, "/errors/rate-limited"},
		{"/relative/", fault.RateLimited, "/errors/rate-limited"},
		{"https://triage.example/", "UNKNOWN_CODE", "about:blank"},
	}
	for _, tt := range tests {
		t.Run(tt.base+"/"+string(tt.code), func(t *testing.T) {
			t.Parallel()
			p := problem.From(fault.New(tt.code, ""), &problem.Options{BaseURI: tt.base})
			if p.Type != tt.want {
				t.Errorf("type %q, want %q", p.Type, tt.want)
			}
		})
	}
}

func TestFrom(t *testing.T) {
	t.Parallel()
	if p := problem.From(nil, nil); p != nil {
		t.Errorf("From(nil) = %+v", p)
	}
	f := fault.New(fault.InvalidRequest, "Two fields are invalid.",
		fault.WithFieldErrors(fault.FieldError{Field: "a", Message: "is required"}),
		fault.WithSource("ingress"), fault.WithSessionValid(false), fault.WithDebug("k", "v"))
	p := problem.From(f, nil)
	if p.Instance != "" {
		t.Errorf("From set instance %q", p.Instance)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"/errors/invalid-request","title":"Invalid Request","status":400,` +
		`"detail":"Two fields are invalid.","code":"INVALID_REQUEST","category":"PROTOCOL","domain":"client",` +
		`"retryable":false,"session_valid":false,"errors":[{"field":"a","message":"is required"}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	p.Errors[0].Field = "changed"
	if f.FieldErrors[0].Field != "a" {
		t.Error("the problem shares its field errors with the fault")
	}
}

// A fault written by Write and read by ReadResponse comes back with the
// facets the wire carries.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []*fault.Error{
		fault.New(fault.RateLimited, "Slow down.", fault.WithRetryAfter(1200*time.Millisecond), fault.WithDetail("limit", 60.0)),
		fault.Invalid("Bad.", fault.FieldError{Field: "x", Message: "must be positive"}),
		fault.New(fault.UpstreamError, "", fault.WithStatus(503), fault.WithRetryable(true)),
		fault.New(fault.SessionBusy, ""),
		fault.New(fault.Timeout, "", fault.WithCategory(fault.CategoryTransport), fault.WithDomain(fault.DomainTool),
			fault.WithSessionValid(false)),
	}
	for _, want := range tests {
		t.Run(string(want.Code), func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			problem.Write(w, nil, want, nil)
			resp := w.Result()
			p, err := problem.ReadResponse(resp)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Fault()
			if got.Code != want.Code || got.Message != want.Message || got.HTTPStatus() != want.HTTPStatus() ||
				got.Retryable != want.Retryable || got.RetryAfter != time.Duration(fault.Seconds(want.RetryAfter))*time.Second ||
				got.Category != want.Category || got.Domain != want.Domain || got.SessionValid != want.SessionValid ||
				!reflect.DeepEqual(got.FieldErrors, want.FieldErrors) ||
				(len(want.Details) > 0 && !reflect.DeepEqual(got.Details, want.Details)) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}
