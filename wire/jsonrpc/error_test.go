package jsonrpc

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
	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

// TestSeed002Categories checks seed 002's BridgeError category table row by
// row: every situation its "When Used" column lists, built as Triage builds
// it, gets the row's MCP error code, type and retryability.
func TestSeed002Categories(t *testing.T) {
	t.Parallel()
	provider := func(id string) fault.Option { return fault.WithDetail("providerId", id) }
	tests := []struct {
		name      string
		fault     *fault.Error
		code      int
		typ       fault.Category
		retryable bool
	}{
		// CONFIG -32004, not retryable.
		{"ConfigInvalid", fault.New(fault.ConfigError, "Invalid configuration"), -32004, fault.CategoryConfig, false},
		{"ConfigNoAgents", fault.New(fault.ConfigError, "No agents registered"), -32004, fault.CategoryConfig, false},
		{"ConfigMissingCredential", fault.New(fault.ConfigError, "Missing required credential: apiKey", provider("openai")), -32004, fault.CategoryConfig, false},
		{"ConfigUnregisteredProvider", fault.New(fault.ConfigError, `Provider "unknown" is not registered in the ProviderRegistry`, provider("unknown")), -32004, fault.CategoryConfig, false},
		// AUTH -32003, not retryable.
		{"AuthInvalidAPIKey", fault.New(fault.ProviderAuthFailed, "Incorrect API key provided", provider("openai")), -32003, fault.CategoryAuth, false},
		// UPSTREAM -32002, retryability varies.
		{"UpstreamAgentFailed", fault.New(fault.UpstreamError, "Agent my-agent failed", fault.WithDetail("agentId", "my-agent")), -32002, fault.CategoryUpstream, false},
		{"UpstreamSessionNotFound", fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123")), -32002, fault.CategoryUpstream, false},
		{"UpstreamAgentNotFound", fault.New(fault.CapabilityNotFound, "Agent not found: my-agent", fault.WithDetail("agentId", "my-agent")), -32002, fault.CategoryUpstream, false},
		{"UpstreamInvalidWorkerResponse", fault.New(fault.ProtocolError, "Invalid worker response: missing sessionId", fault.WithCategory(fault.CategoryUpstream)), -32002, fault.CategoryUpstream, false},
		{"UpstreamProviderBadRequest", fault.New(fault.UpstreamError, "Bad request", provider("openai"), fault.WithDetail("upstream_status", 400)), -32002, fault.CategoryUpstream, false},
		{"UpstreamProviderRateLimit", fault.New(fault.RateLimited, "Rate limit exceeded", provider("anthropic")), -32002, fault.CategoryUpstream, true},
		{"UpstreamProviderServerError", fault.New(fault.UpstreamError, "Internal server error", provider("openai"), fault.WithRetryable(true)), -32002, fault.CategoryUpstream, true},
		// TRANSPORT -32000, retryable.
		{"TransportStdioBus", fault.New(fault.TransportError, "Failed to start StdioBus"), -32000, fault.CategoryTransport, true},
		{"TransportWorkerTimeout", fault.New(fault.Timeout, "Worker w1 timed out", fault.WithCategory(fault.CategoryTransport), fault.WithDetail("workerId", "w1")), -32000, fault.CategoryTransport, true},
		{"TransportServerOverloaded", fault.New(fault.ServiceUnavailable, "Server overloaded"), -32000, fault.CategoryTransport, true},
		{"TransportProviderConnection", fault.New(fault.TransportError, "Connection error", provider("google-gemini")), -32000, fault.CategoryTransport, true},
		// TIMEOUT -32001, retryable.
		{"TimeoutProviderRequest", fault.New(fault.Timeout, "Request timed out", provider("openai")), -32001, fault.CategoryTimeout, true},
		// INTERNAL -32603, not retryable.
		{"InternalNotStarted", fault.New(fault.InternalError, "Executor not started"), -32603, fault.CategoryInternal, false},
		{"InternalUnexpected", fault.New(fault.AgentExecutionError, ""), -32603, fault.CategoryInternal, false},
		// PROTOCOL -32000: reserved by seed 002, Triage's malformed peer messages.
		{"ProtocolMalformedResult", fault.New(fault.ProtocolError, "Invalid worker response: malformed prompt result"), -32000, fault.CategoryProtocol, false},
		// Unknown -32603.
		{"UnknownCode", fault.New(fault.Code("SOMETHING_NEW"), "Something new failed"), -32603, fault.CategoryInternal, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := From(tt.fault)
			if e.Code != tt.code {
				t.Errorf("code = %d, want %d", e.Code, tt.code)
			}
			if e.Message != tt.fault.Message {
				t.Errorf("message = %q, want %q", e.Message, tt.fault.Message)
			}
			d, err := e.ParseData()
			if err != nil {
				t.Fatal(err)
			}
			if d.Type != tt.typ || d.Retryable != tt.retryable || d.Code != tt.fault.Code {
				t.Errorf("data = {type %s, code %s, retryable %v}, want {%s, %s, %v}",
					d.Type, d.Code, d.Retryable, tt.typ, tt.fault.Code, tt.retryable)
			}
			if d.SessionValid != tt.fault.SessionValid {
				t.Errorf("sessionValid = %v, want %v", d.SessionValid, tt.fault.SessionValid)
			}
			if !reflect.DeepEqual(d.Details, normalized(tt.fault.Details)) {
				t.Errorf("details = %v, want %v", d.Details, tt.fault.Details)
			}
		})
	}
}

// normalized is what details look like after a trip through JSON.
func normalized(details map[string]any) map[string]any {
	if len(details) == 0 {
		return map[string]any{}
	}
	var m map[string]any
	b, _ := json.Marshal(details)
	_ = json.Unmarshal(b, &m)
	return m
}

// TestSeed002Examples checks the failures seed 002 spells out, as the
// JSON-RPC error a client receives and the fault it reads back.
func TestSeed002Examples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		fault        *fault.Error
		code         int
		typ          fault.Category
		retryable    bool
		sessionValid bool
		details      map[string]any
	}{
		{
			name:  "SessionNotFound",
			fault: fault.New(fault.SessionNotFound, "Session not found: abc-123", fault.WithDetail("sessionId", "abc-123")),
			code:  -32002, typ: fault.CategoryUpstream, retryable: false, sessionValid: false,
			details: map[string]any{"sessionId": "abc-123"},
		},
		{
			name:  "ServerOverloaded",
			fault: fault.New(fault.ServiceUnavailable, "Server overloaded"),
			code:  -32000, typ: fault.CategoryTransport, retryable: true, sessionValid: true,
			details: map[string]any{},
		},
		{
			name:  "MissingCredential",
			fault: fault.New(fault.ConfigError, "Missing required credential: apiKey", fault.WithDetail("providerId", "openai")),
			code:  -32004, typ: fault.CategoryConfig, retryable: false, sessionValid: true,
			details: map[string]any{"providerId": "openai"},
		},
		{
			name:  "IncorrectAPIKey",
			fault: fault.New(fault.ProviderAuthFailed, "Incorrect API key provided", fault.WithDetail("providerId", "openai")),
			code:  -32003, typ: fault.CategoryAuth, retryable: false, sessionValid: true,
			details: map[string]any{"providerId": "openai"},
		},
		{
			name:  "RateLimitExceeded",
			fault: fault.New(fault.RateLimited, "Rate limit exceeded", fault.WithDetail("providerId", "anthropic"), fault.WithRetryAfter(30*time.Second)),
			code:  -32002, typ: fault.CategoryUpstream, retryable: true, sessionValid: true,
			details: map[string]any{"providerId": "anthropic"},
		},
		{
			name:  "ConnectionError",
			fault: fault.New(fault.TransportError, "Connection error", fault.WithDetail("providerId", "google-gemini")),
			code:  -32000, typ: fault.CategoryTransport, retryable: true, sessionValid: true,
			details: map[string]any{"providerId": "google-gemini"},
		},
		{
			name:  "RequestTimedOut",
			fault: fault.New(fault.Timeout, "Request timed out", fault.WithDetail("providerId", "openai")),
			code:  -32001, typ: fault.CategoryTimeout, retryable: true, sessionValid: true,
			details: map[string]any{"providerId": "openai"},
		},
		{
			name:  "ExecutorNotStarted",
			fault: fault.New(fault.InternalError, "Executor not started"),
			code:  -32603, typ: fault.CategoryInternal, retryable: false, sessionValid: false,
			details: map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := golden.Marshal(t, NewErrorResponse(json.RawMessage(`7`), From(tt.fault)))
			var wire struct {
				JSONRPC string
				ID      int
				Error   struct {
					Code    int
					Message string
					Data    map[string]any
				}
			}
			if err := json.Unmarshal(b, &wire); err != nil {
				t.Fatal(err)
			}
			if wire.JSONRPC != "2.0" || wire.ID != 7 || wire.Error.Code != tt.code || wire.Error.Message != tt.fault.Message {
				t.Errorf("response = %s", b)
			}
			data := wire.Error.Data
			if data["type"] != string(tt.typ) || data["code"] != string(tt.fault.Code) ||
				data["retryable"] != tt.retryable || data["sessionValid"] != tt.sessionValid {
				t.Errorf("data = %v", data)
			}
			if !reflect.DeepEqual(data["details"], tt.details) {
				t.Errorf("details = %v, want %v", data["details"], tt.details)
			}
			if ra, ok := data["retryAfter"]; ok != (tt.fault.RetryAfter > 0) || (ok && ra != tt.fault.RetryAfter.Seconds()) {
				t.Errorf("retryAfter = %v, fault has %v", ra, tt.fault.RetryAfter)
			}

			resp, err := ParseResponse(b)
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Error.Fault()
			if got.Code != tt.fault.Code || got.Category != tt.typ || got.Retryable != tt.retryable ||
				got.SessionValid != tt.sessionValid || got.RetryAfter != tt.fault.RetryAfter ||
				got.Message != tt.fault.Message {
				t.Errorf("Fault() = %+v", got)
			}
		})
	}
}

// TestEveryCode encodes a fault of every code in the table and reads it
// back: the JSON-RPC code is the table's, data mirrors the fault, and Fault
// restores every facet the wire carries.
func TestEveryCode(t *testing.T) {
	t.Parallel()
	for _, spec := range fault.Codes() {
		t.Run(string(spec.Code), func(t *testing.T) {
			t.Parallel()
			f := fault.New(spec.Code, "", fault.WithDetail("attempt", 2))
			e := From(f)
			if e.Code != spec.JSONRPC {
				t.Errorf("code = %d, want the table's %d", e.Code, spec.JSONRPC)
			}
			if e.Message != spec.Message {
				t.Errorf("message = %q, want %q", e.Message, spec.Message)
			}
			want := &Data{
				Type: spec.Category, Code: spec.Code, Retryable: spec.Retryable,
				SessionValid: spec.SessionValid, HTTPStatus: spec.Status, Domain: spec.Domain,
				Details: map[string]any{"attempt": float64(2)},
			}
			d, err := e.ParseData()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, want) {
				t.Errorf("data = %+v, want %+v", d, want)
			}

			back, err := Parse(golden.Marshal(t, e))
			if err != nil {
				t.Fatal(err)
			}
			g := back.Fault()
			if g.Code != spec.Code || g.Category != spec.Category || g.Domain != spec.Domain ||
				g.Retryable != spec.Retryable || g.SessionValid != spec.SessionValid ||
				g.HTTPStatus() != spec.Status || g.Message != spec.Message ||
				g.Classification.Rule != "jsonrpc_data" {
				t.Errorf("Fault() = %+v", g)
			}
		})
	}
}

func TestCodeFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault *fault.Error
		want  int
	}{
		{"TableCode", fault.New(fault.RateLimited, ""), -32002},
		{"InvalidParamsFromTable", fault.New(fault.InvalidRequest, ""), -32602},
		{"PayloadTooLarge", fault.New(fault.PayloadTooLarge, ""), -32602},
		{"CategoryOverride", fault.New(fault.Timeout, "", fault.WithCategory(fault.CategoryTransport)), -32000},
		{"InvalidRequestAsUpstream", fault.New(fault.InvalidRequest, "", fault.WithCategory(fault.CategoryUpstream)), -32002},
		{"UnknownCodeByCategory", &fault.Error{Code: "NEW", Category: fault.CategoryAuth}, -32003},
		{"UnknownCodeNoCategory", &fault.Error{Code: "NEW"}, -32603},
		{"HandBuiltNoCategory", &fault.Error{Code: fault.RateLimited}, -32002},
		{"TypedNil", nil, -32603},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CodeFor(tt.fault); got != tt.want {
				t.Errorf("CodeFor = %d, want %d", got, tt.want)
			}
		})
	}
	if got := CodeFor(nil); got != 0 {
		t.Errorf("CodeFor(nil) = %d, want 0", got)
	}
	if got := CodeFor(fmt.Errorf("call: %w", fault.New(fault.Timeout, ""))); got != -32001 {
		t.Errorf("CodeFor(wrapped TIMEOUT) = %d, want -32001", got)
	}
}

func TestFaultCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code int
		want fault.Code
	}{
		{-32004, fault.ConfigError},
		{-32003, fault.ProviderAuthFailed},
		{-32002, fault.UpstreamError},
		{-32001, fault.Timeout},
		{-32000, fault.TransportError},
		{-32700, fault.InvalidRequest},
		{-32600, fault.InvalidRequest},
		{-32602, fault.InvalidRequest},
		{-32601, fault.CapabilityNotFound},
		{-32603, fault.InternalError},
		{-32005, fault.InternalError},
		{-32019, fault.InternalError},
		{0, fault.InternalError},
		{404, fault.InternalError},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			t.Parallel()
			if got := FaultCode(tt.code); got != tt.want {
				t.Errorf("FaultCode(%d) = %s, want %s", tt.code, got, tt.want)
			}
			// Without data, Fault maps the code the same way and keeps the
			// code's defaults, its message included: the peer's message
			// is only debug output.
			f := (&Error{Code: tt.code, Message: "peer said no"}).Fault()
			spec, _ := fault.Lookup(tt.want)
			if f.Code != tt.want || f.Message != spec.Message || f.Retryable != spec.Retryable ||
				f.Debug.Cause != "peer said no" ||
				f.Classification != (fault.Classification{Method: fault.MethodWire, Rule: "jsonrpc_code", Confidence: 0.5}) {
				t.Errorf("Fault() = %+v", f)
			}
		})
	}
}

// TestFaultData checks how Fault reads data: Triage's members override the
// code's defaults; a foreign or malformed data is ignored.
func TestFaultData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		err   Error
		check func(t *testing.T, f *fault.Error)
	}{
		{
			name: "Overrides",
			err: Error{Code: -32002, Message: "slow down", Data: json.RawMessage(`{"type":"UPSTREAM","code":"RATE_LIMITED",
				"retryable":false,"sessionValid":false,"retryAfter":2.5,"httpStatus":503,"domain":"llm",
				"details":{"providerId":"anthropic","authorization":"Bearer abcdefgh"},"errors":[{"field":"a","message":"b"}]}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Code != fault.RateLimited || f.Retryable || f.SessionValid || f.RetryAfter != 2500*time.Millisecond ||
					f.HTTPStatus() != 503 || f.Domain != fault.DomainLLM || f.Message != "slow down" || f.Debug.Cause != "" ||
					f.Classification != (fault.Classification{Method: fault.MethodWire, Rule: "jsonrpc_data", Confidence: 1}) {
					t.Errorf("Fault() = %+v", f)
				}
				if !reflect.DeepEqual(f.Details, map[string]any{"providerId": "anthropic"}) {
					t.Errorf("details = %v, want them sanitized", f.Details)
				}
				if !reflect.DeepEqual(f.FieldErrors, []fault.FieldError{{Field: "a", Message: "b"}}) {
					t.Errorf("field errors = %v", f.FieldErrors)
				}
			},
		},
		{
			name: "UnknownDataCode",
			err:  Error{Code: -32001, Message: "x", Data: json.RawMessage(`{"code":"FROM_THE_FUTURE","retryable":false}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Code != fault.Timeout || f.Retryable || f.Classification.Rule != "jsonrpc_code" ||
					f.Message != "Request timed out. Please try again." || f.Debug.Cause != "x" {
					t.Errorf("Fault() = %+v", f)
				}
			},
		},
		{
			name: "UnknownTypeAndDomainKeepDefaults",
			err:  Error{Code: -32002, Message: "x", Data: json.RawMessage(`{"code":"SESSION_NOT_FOUND","type":"WEIRD","domain":"moon"}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Code != fault.SessionNotFound || f.Category != fault.CategoryUpstream || f.Domain != fault.DomainClient {
					t.Errorf("Fault() = %+v", f)
				}
			},
		},
		{
			name: "ForeignStringData",
			err:  Error{Code: -32000, Message: "x", Data: json.RawMessage(`"Traceback (most recent call last): ..."`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Code != fault.TransportError || f.Details != nil || f.Classification.Rule != "jsonrpc_code" {
					t.Errorf("Fault() = %+v", f)
				}
			},
		},
		{
			name: "MalformedDataIgnored",
			err:  Error{Code: -32003, Message: "x", Data: json.RawMessage(`{"code":"RATE_LIMITED","retryable":"yes"}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Code != fault.ProviderAuthFailed || f.Retryable {
					t.Errorf("Fault() = %+v", f)
				}
			},
		},
		{
			name: "EmptyMessageTakesDefault",
			err:  Error{Code: -32001},
			check: func(t *testing.T, f *fault.Error) {
				if f.Message != "Request timed out. Please try again." {
					t.Errorf("message = %q", f.Message)
				}
			},
		},
		{
			name: "MessageRedacted",
			err: Error{Code: -32003, Message: "bad key sk-abcdefghijklmnopqrstuvwxyz",
				Data: json.RawMessage(`{"code":"PROVIDER_AUTH_FAILED"}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.Message != "bad key [REDACTED]" {
					t.Errorf("message = %q", f.Message)
				}
			},
		},
		{
			name: "ForeignMessageRedactedInDebug",
			err:  Error{Code: -32003, Message: "bad key sk-abcdefghijklmnopqrstuvwxyz"},
			check: func(t *testing.T, f *fault.Error) {
				if f.Message != "The AI provider rejected the service's credentials." || f.Debug.Cause != "bad key [REDACTED]" {
					t.Errorf("message = %q, cause %q", f.Message, f.Debug.Cause)
				}
			},
		},
		{
			name: "RetryAfterCapped",
			err:  Error{Code: -32002, Message: "x", Data: json.RawMessage(`{"code":"RATE_LIMITED","retryAfter":31622400}`)},
			check: func(t *testing.T, f *fault.Error) {
				if f.RetryAfter != fault.MaxRetryAfter {
					t.Errorf("retry after %v, want %v", f.RetryAfter, fault.MaxRetryAfter)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, tt.err.Fault())
		})
	}
}

func TestParseData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		data   string
		field  string
		reason string
	}{
		{"NotObject", `[1]`, "data", "must be an object, got array"},
		{"TypeNotString", `{"type":1}`, "data.type", "must be a string, got number"},
		{"CodeNotString", `{"code":true}`, "data.code", "must be a string, got boolean"},
		{"RetryableNotBool", `{"retryable":"yes"}`, "data.retryable", "must be a boolean, got string"},
		{"SessionValidNotBool", `{"sessionValid":1}`, "data.sessionValid", "must be a boolean"},
		{"RetryAfterNegative", `{"retryAfter":-1}`, "data.retryAfter", "is negative"},
		{"RetryAfterString", `{"retryAfter":"30"}`, "data.retryAfter", "must be a number"},
		{"HTTPStatusRange", `{"httpStatus":600}`, "data.httpStatus", "not an HTTP status"},
		{"HTTPStatusFraction", `{"httpStatus":404.5}`, "data.httpStatus", "must be an integer"},
		{"DetailsNotObject", `{"details":"x"}`, "data.details", "must be an object"},
		{"ErrorsNotArray", `{"errors":{}}`, "data.errors", "must be an array"},
		{"ErrorsItemNotObject", `{"errors":["x"]}`, "data.errors.0", "must be an object"},
		{"ErrorsItemField", `{"errors":[{"field":1,"message":"m"}]}`, "data.errors.0.field", "must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, err := (&Error{Code: 1, Data: json.RawMessage(tt.data)}).ParseData()
			if d != nil {
				t.Errorf("data = %+v, want nil", d)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}

	t.Run("NoData", func(t *testing.T) {
		t.Parallel()
		for _, raw := range []string{"", "null", " null "} {
			d, err := (&Error{Code: 1, Data: json.RawMessage(raw)}).ParseData()
			if d != nil || err != nil {
				t.Errorf("ParseData(%q) = %v, %v; want nil, nil", raw, d, err)
			}
		}
	})
	t.Run("NullMembersAreAbsent", func(t *testing.T) {
		t.Parallel()
		d, err := (&Error{Data: json.RawMessage(`{"type":null,"retryable":null,"retryAfter":null,"details":null,"errors":null,"extra":1}`)}).ParseData()
		if err != nil || !reflect.DeepEqual(d, &Data{}) {
			t.Errorf("ParseData = %+v, %v", d, err)
		}
	})
	t.Run("RetryAfterCapped", func(t *testing.T) {
		t.Parallel()
		for _, raw := range []string{`86400.5`, `1e12`, `1e308`} {
			d, err := (&Error{Data: json.RawMessage(`{"retryAfter":` + raw + `}`)}).ParseData()
			if err != nil || d.RetryAfter != 86400 {
				t.Errorf("ParseData(retryAfter %s) = %+v, %v; want retryAfter 86400", raw, d, err)
			}
		}
	})
	t.Run("RetryAfterRoundsUp", func(t *testing.T) {
		t.Parallel()
		d, err := (&Error{Data: json.RawMessage(`{"retryAfter":1.2}`)}).ParseData()
		if err != nil || d.RetryAfter != 2 {
			t.Errorf("ParseData = %+v, %v; want retryAfter 2", d, err)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		delay time.Duration
		want  string // the retryAfter member, "" for none
	}{
		{"None", 0, ""},
		{"Negative", -time.Second, ""},
		{"Whole", 30 * time.Second, "30"},
		{"RoundsUp", 1200 * time.Millisecond, "2"},
		{"SubSecond", time.Millisecond, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := From(fault.New(fault.RateLimited, "", fault.WithRetryAfter(tt.delay)))
			var m map[string]json.RawMessage
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			if got := string(m["retryAfter"]); got != tt.want {
				t.Errorf("retryAfter = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDetailsNormalized checks what FromFault does to details beyond
// fault.SanitizeDetails: struct fields are sanitized by their JSON names,
// unencodable values are dropped rather than failing the error path, and
// large integers keep their precision.
func TestDetailsNormalized(t *testing.T) {
	t.Parallel()
	type creds struct {
		Token string `json:"token"`
		User  string `json:"user"`
	}
	f := fault.New(fault.UpstreamError, "", fault.WithDetails(map[string]any{
		"creds":  creds{Token: "abc123secret", User: "ann"},
		"nan":    math.NaN(),
		"ch":     make(chan int),
		"big":    int64(9007199254740993),
		"nested": []any{map[string]any{"password": "hunter2", "ok": true}},
	}))
	b := golden.Marshal(t, From(f))
	want := `"details":{"big":9007199254740993,"creds":{"user":"ann"},"nested":[{"ok":true}]}`
	if !strings.Contains(string(b), want) {
		t.Errorf("encoded %s\nwant it to contain %s", b, want)
	}
}

func TestStandardErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		err     *Error
		code    int
		message string
		fault   fault.Code
	}{
		{"ParseError", NewParseError(""), -32700, "Parse error", fault.InvalidRequest},
		{"ParseErrorDetail", NewParseError("unexpected end of JSON input"), -32700, "Parse error: unexpected end of JSON input", fault.InvalidRequest},
		{"InvalidRequest", NewInvalidRequest("missing method"), -32600, "Invalid Request: missing method", fault.InvalidRequest},
		{"MethodNotFound", NewMethodNotFound("tools/frobnicate"), -32601, "Method not found: tools/frobnicate", fault.CapabilityNotFound},
		{"InvalidParams", NewInvalidParams("", fault.FieldError{Field: "name", Message: "is required"}), -32602, "Invalid params", fault.InvalidRequest},
		{"InternalError", NewInternalError(), -32603, "Internal error", fault.InternalError},
		{"DetailRedacted", NewInvalidRequest("Authorization: Bearer abcdefghijkl"), -32600, "Invalid Request: Authorization: [REDACTED]", fault.InvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.err.Code != tt.code || tt.err.Message != tt.message {
				t.Errorf("error = %d %q, want %d %q", tt.err.Code, tt.err.Message, tt.code, tt.message)
			}
			back, err := Parse(golden.Marshal(t, tt.err))
			if err != nil {
				t.Fatal(err)
			}
			f := back.Fault()
			if f.Code != tt.fault || f.Message != tt.message {
				t.Errorf("Fault() = %s %q, want %s", f.Code, f.Message, tt.fault)
			}
			// Without Triage's data the answer is the same.
			if g := (&Error{Code: back.Code, Message: back.Message}).Fault(); g.Code != tt.fault {
				t.Errorf("Fault() without data = %s, want %s", g.Code, tt.fault)
			}
		})
	}

	t.Run("MethodNotFoundDetail", func(t *testing.T) {
		t.Parallel()
		d, err := NewMethodNotFound("tools/x").ParseData()
		if err != nil || d.Details["method"] != "tools/x" {
			t.Errorf("data = %+v, %v", d, err)
		}
	})
	t.Run("InvalidParamsFields", func(t *testing.T) {
		t.Parallel()
		f := NewInvalidParams("bad", fault.FieldError{Field: "arguments.query", Message: "is required"}).Fault()
		if want := []fault.FieldError{{Field: "arguments.query", Message: "is required"}}; !reflect.DeepEqual(f.FieldErrors, want) {
			t.Errorf("field errors = %v, want %v", f.FieldErrors, want)
		}
	})
}

// TestUnwrap checks that a JSON-RPC error from a peer is, to fault.From and
// errors.Is, the fault it encodes.
func TestUnwrap(t *testing.T) {
	t.Parallel()
	e := From(fault.New(fault.SessionNotFound, "Session not found: abc-123"))
	wrapped := fmt.Errorf("sessions/prompt: %w", e)
	if got := fault.From(wrapped); got.Code != fault.SessionNotFound || got.SessionValid {
		t.Errorf("fault.From = %+v", got)
	}
	if !errors.Is(wrapped, fault.New(fault.SessionNotFound, "")) {
		t.Error("errors.Is does not find SESSION_NOT_FOUND")
	}
	var target *Error
	if !errors.As(wrapped, &target) || target != e {
		t.Error("errors.As does not find the *Error")
	}
	if got, want := e.Error(), "jsonrpc error -32002: Session not found: abc-123"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestFromError(t *testing.T) {
	t.Parallel()
	if From(nil) != nil {
		t.Error("From(nil) != nil")
	}
	e := From(fmt.Errorf("call: %w", errors.New("boom")))
	if e.Code != -32603 || e.Message != "An error occurred processing your request." || strings.Contains(string(e.Data), "boom") {
		t.Errorf("From(unknown) = %d %q %s", e.Code, e.Message, e.Data)
	}
	// A typed nil fault is an error, not nil: it is reported, not dropped.
	if e := From((*fault.Error)(nil)); e == nil || e.Code != -32603 {
		t.Errorf("From(typed nil) = %+v, want -32603", e)
	}
	if DataFrom(nil) != nil || ToolResultFrom(nil) != nil {
		t.Error("DataFrom(nil) or ToolResultFrom(nil) is not nil")
	}
}

// TestValidationErrorIsInvalidRequest checks that a decoding failure
// classifies as INVALID_REQUEST, naming the member.
func TestValidationErrorIsInvalidRequest(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(`{"code":"x","message":"m"}`))
	f := fault.From(err)
	if f.Code != fault.InvalidRequest || len(f.FieldErrors) != 1 || f.FieldErrors[0].Field != "code" {
		t.Errorf("fault.From = %+v", f)
	}
	_, err = Parse([]byte(`{`))
	if f := fault.From(err); f.Code != fault.InvalidRequest || f.FieldErrors[0].Field != "(root)" {
		t.Errorf("fault.From = %+v", f)
	}
}

// A peer's message becomes the fault's Message only under a data.code the
// table knows; otherwise it is debug output only, and relaying the fault
// never shows it to anyone.
func TestFaultDistrustsPeerMessage(t *testing.T) {
	t.Parallel()
	resp, err := ParseResponse([]byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,` +
		`"message":"NullPointerException at host=10.0.0.5 user=admin"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*fault.Error{
		"Fault":      resp.Error.Fault(),
		"fault.From": fault.From(fmt.Errorf("tools/call: %w", resp.Error)),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if f.Code != fault.InternalError || f.Message != "Internal error." {
				t.Errorf("fault %s %q, want INTERNAL_ERROR with its default message", f.Code, f.Message)
			}
			if f.Debug.Cause != "NullPointerException at host=10.0.0.5 user=admin" {
				t.Errorf("Debug.Cause = %q, want the peer's message", f.Debug.Cause)
			}
			if f.Classification.Method != fault.MethodWire {
				t.Errorf("classification %+v, want method wire", f.Classification)
			}
			for _, out := range []any{From(f), ToolResultFrom(f), f.Payload(false)} {
				if b := golden.Marshal(t, out); strings.Contains(string(b), "10.0.0.5") || strings.Contains(string(b), "NullPointer") {
					t.Errorf("relayed as %s", b)
				}
			}
		})
	}
}
