package fault_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// Seed 000's taxonomy, acceptance criterion 1: the ten codes, with exactly
// these names, values and HTTP statuses.
func TestSeed000Codes(t *testing.T) {
	t.Parallel()
	want := []struct {
		code   fault.Code
		value  string
		status int
	}{
		{fault.AgentExecutionError, "AGENT_EXECUTION_ERROR", 500},
		{fault.TenantRequired, "TENANT_REQUIRED", 401},
		{fault.TenantUnauthorized, "TENANT_UNAUTHORIZED", 403},
		{fault.SessionNotFound, "SESSION_NOT_FOUND", 404},
		{fault.RateLimited, "RATE_LIMITED", 429},
		{fault.Timeout, "TIMEOUT", 504},
		{fault.InvalidRequest, "INVALID_REQUEST", 400},
		{fault.CapabilityNotFound, "CAPABILITY_NOT_FOUND", 404},
		{fault.UpstreamError, "UPSTREAM_ERROR", 502},
		{fault.ServiceUnavailable, "SERVICE_UNAVAILABLE", 503},
	}
	for _, w := range want {
		if string(w.code) != w.value {
			t.Errorf("code %q, want value %q", w.code, w.value)
		}
		if !w.code.Known() {
			t.Errorf("%s is not in the table", w.code)
		}
		if got := w.code.HTTPStatus(); got != w.status {
			t.Errorf("%s: status %d, want %d", w.code, got, w.status)
		}
		if got := fault.New(w.code, "").HTTPStatus(); got != w.status {
			t.Errorf("New(%s).HTTPStatus() = %d, want %d", w.code, got, w.status)
		}
	}
	// Seed 000's RFC 7807 types, exactly as it lists them.
	types := map[fault.Code]string{
		fault.AgentExecutionError: "/errors/agent-execution",
		fault.TenantRequired:      "/errors/tenant-required",
		fault.TenantUnauthorized:  "/errors/tenant-unauthorized",
		fault.RateLimited:         "/errors/rate-limited",
		fault.Timeout:             "/errors/timeout",
	}
	for c, typ := range types {
		if got := c.ProblemType(); got != typ {
			t.Errorf("%s: problem type %q, want %q", c, got, typ)
		}
	}
}

// The codes seed 002 needs, with the categories its BridgeError uses.
func TestSeed002Codes(t *testing.T) {
	t.Parallel()
	want := []struct {
		code     fault.Code
		status   int
		category fault.Category
		retry    bool
	}{
		{fault.ConfigError, 500, fault.CategoryConfig, false},
		{fault.ProviderAuthFailed, 502, fault.CategoryAuth, false},
		{fault.TransportError, 502, fault.CategoryTransport, true},
		{fault.InternalError, 500, fault.CategoryInternal, false},
		{fault.ProtocolError, 502, fault.CategoryProtocol, false},
		{fault.PayloadTooLarge, 413, fault.CategoryProtocol, false},
		{fault.SessionBusy, 409, fault.CategoryUpstream, true},
		{fault.Cancelled, 499, fault.CategoryTransport, false},
		{fault.ContentRefused, 422, fault.CategoryUpstream, false},
		{fault.QuotaExhausted, 402, fault.CategoryUpstream, false},
	}
	for _, w := range want {
		s, ok := fault.Lookup(w.code)
		if !ok {
			t.Fatalf("%s missing from the table", w.code)
		}
		if s.Status != w.status || s.Category != w.category || s.Retryable != w.retry {
			t.Errorf("%s: got status %d category %s retryable %v, want %d %s %v",
				w.code, s.Status, s.Category, s.Retryable, w.status, w.category, w.retry)
		}
	}
}

// Seed 002's category → JSON-RPC table.
func TestCategoryJSONRPC(t *testing.T) {
	t.Parallel()
	want := map[fault.Category]int{
		fault.CategoryConfig:    -32004,
		fault.CategoryAuth:      -32003,
		fault.CategoryUpstream:  -32002,
		fault.CategoryTimeout:   -32001,
		fault.CategoryTransport: -32000,
		fault.CategoryProtocol:  -32000,
		fault.CategoryInternal:  -32603,
		fault.Category("NEW"):   -32603,
	}
	for c, code := range want {
		if got := c.JSONRPCCode(); got != code {
			t.Errorf("%s: %d, want %d", c, got, code)
		}
	}
}

// Every row of the table is complete and consistent, and every code
// serializes with its own facets (seed 000, acceptance criterion 12).
func TestTableConsistent(t *testing.T) {
	t.Parallel()
	specs := fault.Codes()
	if len(specs) < 20 {
		t.Fatalf("table has %d codes, want at least 20", len(specs))
	}
	seenType := map[string]fault.Code{}
	for _, s := range specs {
		t.Run(string(s.Code), func(t *testing.T) {
			if s.Code != fault.Code(strings.ToUpper(string(s.Code))) || strings.ContainsAny(string(s.Code), " -") {
				t.Errorf("code %q is not UPPER_SNAKE", s.Code)
			}
			if http.StatusText(s.Status) == "" && s.Status != 499 {
				t.Errorf("status %d is not a standard status", s.Status)
			}
			if !slices.Contains(fault.Categories(), s.Category) {
				t.Errorf("unknown category %q", s.Category)
			}
			if !s.Domain.Valid() {
				t.Errorf("invalid domain %q", s.Domain)
			}
			if !strings.HasPrefix(s.Type, "/errors/") {
				t.Errorf("type %q is not under /errors/", s.Type)
			}
			if prev, dup := seenType[s.Type]; dup {
				t.Errorf("type %q also used by %s", s.Type, prev)
			}
			seenType[s.Type] = s.Code
			if s.JSONRPC != s.Category.JSONRPCCode() && s.JSONRPC != fault.JSONRPCInvalidParam {
				t.Errorf("JSON-RPC code %d neither the category's %d nor invalid-params", s.JSONRPC, s.Category.JSONRPCCode())
			}
			if s.Title == "" || s.Message == "" || s.Summary == "" {
				t.Errorf("title, message or summary empty")
			}
			// The client's 4xx is the client's fault, 5xx the system's,
			// with the documented exceptions.
			switch {
			case s.Domain == fault.DomainClient && s.Status >= 500:
				t.Errorf("client domain with status %d", s.Status)
			}

			data, err := json.Marshal(fault.New(s.Code, ""))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			checks := map[string]any{
				"code": string(s.Code), "message": s.Message, "http_status": float64(s.Status),
				"category": string(s.Category), "domain": string(s.Domain), "retryable": s.Retryable,
				"session_valid": s.SessionValid,
			}
			for k, v := range checks {
				if got[k] != v {
					t.Errorf("%s: %v, want %v (in %s)", k, got[k], v, data)
				}
			}
			if _, ok := got["details"].(map[string]any); !ok {
				t.Errorf("details is not an object: %s", data)
			}
		})
	}
}

func TestUnknownCode(t *testing.T) {
	t.Parallel()
	c := fault.Code("FROM_THE_FUTURE")
	if c.Known() {
		t.Fatal("unknown code reported known")
	}
	f := fault.New(c, "later")
	if f.HTTPStatus() != 500 || f.Category != fault.CategoryInternal || f.Retryable {
		t.Errorf("unknown code facets: %+v", f)
	}
	if f.Code != c {
		t.Errorf("code %q, want %q", f.Code, c)
	}
	if c.ProblemType() != "about:blank" {
		t.Errorf("problem type %q", c.ProblemType())
	}
}

func TestCodesIsACopy(t *testing.T) {
	t.Parallel()
	specs := fault.Codes()
	specs[0].Status = 999
	if fault.Codes()[0].Status == 999 {
		t.Fatal("Codes exposes the table")
	}
}

func TestStatusCases(t *testing.T) {
	t.Parallel()
	for _, s := range fault.Codes() {
		seen := map[int]bool{s.Status: true}
		for _, c := range s.Code.StatusCases() {
			if seen[c.Status] {
				t.Errorf("%s: status %d listed twice, or is the default", s.Code, c.Status)
			}
			seen[c.Status] = true
			if c.Status < 400 || c.Status > 599 || c.When == "" {
				t.Errorf("%s: case %+v: want a 4xx or 5xx status and when it applies", s.Code, c)
			}
			if !s.Code.Documents(c.Status) {
				t.Errorf("%s does not document its case %d", s.Code, c.Status)
			}
		}
		if !s.Code.Documents(s.Status) {
			t.Errorf("%s does not document its default %d", s.Code, s.Status)
		}
	}
	if fault.InvalidRequest.Documents(http.StatusTooManyRequests) {
		t.Error("INVALID_REQUEST documents 429")
	}
	cases := fault.InvalidRequest.StatusCases()
	cases[0].Status = 999
	if fault.InvalidRequest.Documents(999) {
		t.Error("StatusCases exposes the table")
	}
}

func TestDomains(t *testing.T) {
	t.Parallel()
	want := []fault.Domain{"client", "system", "llm", "tool", "security"}
	if !slices.Equal(fault.Domains(), want) {
		t.Fatalf("Domains() = %v", fault.Domains())
	}
	if fault.Domain("network").Valid() {
		t.Error("unknown domain valid")
	}
}
