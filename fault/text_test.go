package fault_test

import (
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

func TestClassifyText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text      string
		code      fault.Code
		rule      string
		retryable bool
		details   map[string]any
		after     time.Duration
	}{
		// The examples.
		{text: "context deadline exceeded", code: fault.Timeout, rule: "deadline_exceeded", retryable: true},
		{text: "dial tcp 127.0.0.1:5432: connect: connection refused", code: fault.TransportError, rule: "connection_refused", retryable: true},
		{text: "429 Too Many Requests", code: fault.RateLimited, rule: "rate_limited", retryable: true},
		{text: "rate limit exceeded", code: fault.RateLimited, rule: "rate_limited", retryable: true},
		{text: "invalid api key", code: fault.ProviderAuthFailed, rule: "provider_auth"},
		{text: "503 Service Unavailable", code: fault.ServiceUnavailable, rule: "http_status_503", retryable: true,
			details: map[string]any{"upstream_status": 503}},
		{text: "dial tcp: lookup api.openai.com on 127.0.0.53:53: no such host", code: fault.TransportError, rule: "dns", retryable: true},
		{text: "session abc not found", code: fault.SessionNotFound, rule: "session_not_found",
			details: map[string]any{"session_id": "abc"}},

		// Go's own texts.
		{text: `Post "https://api.anthropic.com/v1/messages": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
			code: fault.Timeout, rule: "deadline_exceeded", retryable: true},
		{text: "read tcp 10.0.0.2:51234->10.0.0.9:443: i/o timeout", code: fault.Timeout, rule: "io_timeout", retryable: true},
		{text: "context canceled", code: fault.Cancelled, rule: "context_canceled"},
		{text: "write tcp 10.0.0.2:5->10.0.0.3:6: write: broken pipe", code: fault.TransportError, rule: "connection_lost", retryable: true},
		{text: "read: connection reset by peer", code: fault.TransportError, rule: "connection_lost", retryable: true},
		{text: "http: request body too large", code: fault.PayloadTooLarge, rule: "context_length"},
		{text: "json: cannot unmarshal string into Go struct field Report.data.count of type int", code: fault.InvalidRequest, rule: "invalid_request"},
		{text: "panic: runtime error: invalid memory address or nil pointer dereference", code: fault.AgentExecutionError, rule: "agent_crash"},

		// Provider messages (the Python, Node and Go SDKs' texts).
		{text: `POST "https://api.openai.com/v1/chat/completions": 429 Too Many Requests {"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota"}`,
			code: fault.QuotaExhausted, rule: "quota_exhausted"},
		{text: "Error code: 429 - {'error': {'message': 'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM). Please try again in 6.5s.', 'type': 'tokens', 'code': 'rate_limit_exceeded'}}",
			code: fault.RateLimited, rule: "rate_limited", retryable: true, after: 6500 * time.Millisecond},
		{text: "Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error', 'message': 'Overloaded'}}",
			code: fault.ServiceUnavailable, rule: "http_status_529", retryable: true},
		{text: "overloaded_error: Overloaded", code: fault.ServiceUnavailable, rule: "overloaded", retryable: true},
		{text: "Error 401: Incorrect API key provided: sk-abc***xyz.", code: fault.ProviderAuthFailed, rule: "provider_auth"},
		{text: "authentication_error: invalid x-api-key", code: fault.ProviderAuthFailed, rule: "provider_auth"},
		{text: "googleapi: Error 400: API key not valid. Please pass a valid API key.", code: fault.ProviderAuthFailed, rule: "provider_auth"},
		{text: "Error 429, Message: Quota exceeded for quota metric 'Generate Content API requests per minute', Status: RESOURCE_EXHAUSTED. retryDelay: 17s",
			code: fault.RateLimited, rule: "rate_limited", retryable: true, after: 17 * time.Second},
		{text: "Error 403, Status: PERMISSION_DENIED", code: fault.ProviderAuthFailed, rule: "provider_auth"},
		{text: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
			code: fault.PayloadTooLarge, rule: "context_length"},
		{text: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
			code: fault.ContentRefused, rule: "content_refused"},
		{text: "candidate blocked: finishReason: SAFETY", code: fault.ContentRefused, rule: "content_refused"},
		{text: "The model `gpt-9-ultra` does not exist or you do not have access to it.", code: fault.CapabilityNotFound,
			rule: "capability_not_found", details: map[string]any{"kind": "model", "name": "gpt-9-ultra"}},
		{text: "Your credit balance is too low to access the Anthropic API.", code: fault.QuotaExhausted, rule: "quota_exhausted"},

		// Seed 002's bridge messages.
		{text: "Session not found: abc-123", code: fault.SessionNotFound, rule: "session_not_found",
			details: map[string]any{"session_id": "abc-123"}},
		{text: "Agent not found: my-agent", code: fault.CapabilityNotFound, rule: "capability_not_found"},
		{text: "Server overloaded", code: fault.ServiceUnavailable, rule: "overloaded", retryable: true},
		{text: "Session capacity reached", code: fault.RateLimited, rule: "resource_limit"},
		{text: "A2ASessionLimitExceeded: session limit exceeded for tenant", code: fault.RateLimited, rule: "resource_limit"},
		{text: "Missing required credential: apiKey", code: fault.ConfigError, rule: "config"},
		{text: `Provider "unknown" is not registered in the ProviderRegistry`, code: fault.ConfigError, rule: "config"},
		{text: "No agents registered", code: fault.ConfigError, rule: "config"},
		{text: "Executor not started", code: fault.InternalError, rule: "executor_internal"},
		{text: "Invalid worker response: missing sessionId", code: fault.ProtocolError, rule: "protocol"},
		{text: "Worker worker-1 timed out", code: fault.Timeout, rule: "timeout", retryable: true},
		{text: "Prompt exceeds maximum size", code: fault.PayloadTooLarge, rule: "context_length"},

		// Other stacks.
		{text: "Error: connect ECONNREFUSED 127.0.0.1:6379", code: fault.TransportError, rule: "connection_refused", retryable: true},
		{text: "getaddrinfo ENOTFOUND api.example.com", code: fault.TransportError, rule: "dns", retryable: true},
		{text: "httpx.ReadTimeout: The read operation timed out", code: fault.Timeout, rule: "deadline_exceeded", retryable: true},
		{text: "pydantic_core._pydantic_core.ValidationError: 1 validation error for Report", code: fault.InvalidRequest, rule: "invalid_request"},
		{text: "tenant_id is required", code: fault.TenantRequired, rule: "tenant_required"},
		{text: "invalid tenant 'acme'", code: fault.TenantUnauthorized, rule: "tenant_unauthorized"},
		{text: "upstream responded with status code 502", code: fault.UpstreamError, rule: "http_status_502", retryable: true,
			details: map[string]any{"upstream_status": 502}},
		{text: "HTTP 404 from tool server", code: fault.UpstreamError, rule: "http_status_404",
			details: map[string]any{"upstream_status": 404}},
		{text: "Service Unavailable. Retry-After: 30", code: fault.ServiceUnavailable, rule: "overloaded", retryable: true, after: 30 * time.Second},
		{text: "session is busy: a prompt is already running", code: fault.SessionBusy, rule: "session_busy", retryable: true},
		{text: "KeyError: 'user_id'", code: fault.AgentExecutionError, rule: "agent_crash"},

		// Nothing to recognise.
		{text: "processed 429 rows in 3 batches", code: fault.AgentExecutionError, rule: "unknown"},
		{text: "the widget frobnicated", code: fault.AgentExecutionError, rule: "unknown"},
		{text: "", code: fault.AgentExecutionError, rule: "unknown"},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			t.Parallel()
			f := fault.ClassifyText(c.text)
			if f.Code != c.code || f.Classification.Rule != c.rule {
				t.Errorf("got %s (rule %q), want %s (rule %q)", f.Code, f.Classification.Rule, c.code, c.rule)
			}
			if f.Retryable != c.retryable {
				t.Errorf("retryable %v, want %v", f.Retryable, c.retryable)
			}
			if f.Classification.Method != fault.MethodText {
				t.Errorf("method %s", f.Classification.Method)
			}
			// Text is weaker evidence than a type: always below the typed
			// classifications' 0.9.
			if conf := f.Classification.Confidence; conf <= 0 || conf >= 0.9 {
				t.Errorf("confidence %v not in (0, 0.9)", conf)
			}
			if c.rule == "unknown" && f.Classification.Confidence > 0.2 {
				t.Errorf("unknown text confidence %v", f.Classification.Confidence)
			}
			for k, v := range c.details {
				if f.Details[k] != v {
					t.Errorf("details[%s] = %v, want %v", k, f.Details[k], v)
				}
			}
			if f.RetryAfter != c.after {
				t.Errorf("retry after %v, want %v", f.RetryAfter, c.after)
			}
			// The text is debug-only; the message is the code's safe one.
			if f.Debug.Cause != c.text {
				t.Errorf("debug cause %q", f.Debug.Cause)
			}
			if spec, _ := fault.Lookup(f.Code); f.Message != spec.Message {
				t.Errorf("message %q is not the code's default", f.Message)
			}
		})
	}
}

func TestClassifyTextBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 1<<20) + " connection refused"
	// Past the classified prefix: not recognised, and not slow.
	if f := fault.ClassifyText(long); f.Code != fault.AgentExecutionError {
		t.Errorf("classified beyond the bound: %s", f.Code)
	}
}
