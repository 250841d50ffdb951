package fault

import "slices"

//go:generate go run ../internal/taxonomy/gen -fault . -out ../docs/taxonomy.md -rules ../docs/classification.md

// Code is the stable reason for a failure: an UPPER_SNAKE string that never
// changes meaning once published. It is the primary key of the taxonomy;
// every other facet of an Error has a default that the code table below gives.
//
// Codes round-trip through JSON as their string value. A code this version of
// Triage does not know (from a newer peer, say) is kept as it is; Known
// reports whether the table has it.
type Code string

// The codes of seed 000 (the AG-UI error taxonomy). Their values and HTTP
// statuses are part of the public contract.
const (
	// AgentExecutionError means the agent failed in a way nothing more
	// specific describes: an unhandled error, a panic, an error type that no
	// classifier recognises. The client sees a generic message; the Go type
	// and the cause text travel only in Debug.
	//
	// Retry: no. The same input usually fails the same way; report it.
	AgentExecutionError Code = "AGENT_EXECUTION_ERROR"

	// TenantRequired means the request carried no tenant identity (no API
	// key, no tenant id).
	//
	// Retry: no, not until the caller authenticates.
	TenantRequired Code = "TENANT_REQUIRED"

	// TenantUnauthorized means the caller's identity was understood but is
	// not allowed: an unknown or revoked key, a tenant without access.
	//
	// Retry: no.
	TenantUnauthorized Code = "TENANT_UNAUTHORIZED"

	// SessionNotFound means the session the request names does not exist or
	// has expired. It is the one code whose session is never valid
	// afterwards.
	//
	// Retry: no; create a new session and send the request there.
	SessionNotFound Code = "SESSION_NOT_FOUND"

	// RateLimited means a rate limit was exceeded, ours or an upstream
	// provider's. RetryAfter, when set, is the earliest moment a retry may
	// succeed.
	//
	// Retry: yes, but never before RetryAfter.
	RateLimited Code = "RATE_LIMITED"

	// Timeout means a deadline passed before the work finished: the
	// caller's context, an I/O deadline, an upstream that answered too
	// slowly.
	//
	// Retry: yes, with backoff, if the deadline budget allows; the work may
	// or may not have happened, so only idempotent operations are safe to
	// repeat blindly.
	Timeout Code = "TIMEOUT"

	// InvalidRequest means the request itself is wrong: malformed JSON, a
	// missing or ill-typed field, a value out of range. FieldErrors says
	// which fields.
	//
	// Retry: no; fix the request.
	InvalidRequest Code = "INVALID_REQUEST"

	// CapabilityNotFound means the agent, tool, model or capability the
	// request names is not available here.
	//
	// Retry: no; discover what is available and choose again.
	CapabilityNotFound Code = "CAPABILITY_NOT_FOUND"

	// NotFound means the resource the request names (an error record, a
	// job) does not exist, or is not the caller's: a tenant asking for
	// another tenant's record is told it does not exist.
	//
	// Retry: no.
	NotFound Code = "NOT_FOUND"

	// UpstreamError means an external service the agent depends on (an API,
	// a tool, a provider) failed. Retryable is true when the upstream
	// answered 5xx and false for its 4xx answers; details.upstream_status
	// keeps the status it sent.
	//
	// Retry: only when Retryable says so.
	UpstreamError Code = "UPSTREAM_ERROR"

	// ServiceUnavailable means the service is overloaded or temporarily
	// down: backpressure, a full queue, an upstream that answered 503 or is
	// overloaded.
	//
	// Retry: yes, after RetryAfter when it is set, with backoff otherwise.
	ServiceUnavailable Code = "SERVICE_UNAVAILABLE"
)

// The codes seed 002 (the MCP agentic bridge and its providers) needs beyond
// seed 000's ten. Each comment justifies its HTTP status.
const (
	// ConfigError means the deployment is misconfigured: a missing
	// credential, no agents registered, an unregistered provider, an
	// invalid setting.
	//
	// HTTP 500: the request was fine and the client cannot fix the server's
	// configuration. Retry: no; an operator must fix the configuration.
	ConfigError Code = "CONFIG_ERROR"

	// ProviderAuthFailed means an upstream provider rejected the credentials
	// this service holds (invalid API key, permission denied).
	//
	// HTTP 502: the failure is between this service and its upstream. A 401
	// would wrongly tell the client to authenticate itself. Retry: no; fix
	// the key.
	ProviderAuthFailed Code = "PROVIDER_AUTH_FAILED"

	// TransportError means the bytes did not get through: connection
	// refused or reset, DNS failure, broken pipe, a worker's stdio bus that
	// closed.
	//
	// HTTP 502: a gateway that could not reach its upstream answers Bad
	// Gateway. Retry: yes, with backoff. Connection refused proves the
	// request was never processed, so even non-idempotent operations may
	// retry it (Classification.Rule says which transport failure it was).
	TransportError Code = "TRANSPORT_ERROR"

	// InternalError means Triage or the executor itself is broken or not
	// ready: used before start, an invariant violated. Unlike
	// AgentExecutionError it is not the agent's failure.
	//
	// HTTP 500. Retry: no; check health and restart if needed. The session
	// is not valid afterwards.
	InternalError Code = "INTERNAL_ERROR"

	// ProtocolError means a peer broke the protocol: a worker answered
	// without a session id, a malformed result, an event out of order.
	//
	// HTTP 502: RFC 9110 defines Bad Gateway as receiving an invalid
	// response from an upstream. Retry: no; the peer needs fixing.
	ProtocolError Code = "PROTOCOL_ERROR"

	// PayloadTooLarge means the request or prompt exceeds a size limit
	// (ours, or a model's context window).
	//
	// HTTP 413 Content Too Large (RFC 9110). Retry: no; send less.
	PayloadTooLarge Code = "PAYLOAD_TOO_LARGE"

	// SessionBusy means the session is already processing another prompt
	// and accepts one at a time.
	//
	// HTTP 409 Conflict: the request conflicts with the session's current
	// state. Retry: yes, once the running prompt has finished.
	SessionBusy Code = "SESSION_BUSY"

	// Cancelled means the caller cancelled the operation (its context was
	// cancelled, the client went away).
	//
	// HTTP 499 Client Closed Request, the nginx convention grpc-gateway also
	// uses for a cancelled call; no standard status describes it. Retry: no;
	// cancelling was the caller's decision.
	Cancelled Code = "CANCELLED"

	// ContentRefused means a model refused to produce the content: a safety
	// filter, a content policy, a recitation block.
	//
	// HTTP 422 Unprocessable Content: the request is well formed but its
	// content cannot be processed as asked. Retry: no; the same prompt is
	// refused again. Rephrase.
	ContentRefused Code = "CONTENT_REFUSED"

	// QuotaExhausted means the account's quota or credit is used up
	// (OpenAI's insufficient_quota, Anthropic's low credit balance). Unlike
	// RateLimited it does not pass with time.
	//
	// HTTP 402 Payment Required: a 429 would invite automatic retries that
	// cannot succeed. Retry: no; fix billing or raise the quota.
	QuotaExhausted Code = "QUOTA_EXHAUSTED"
)

// Category says where in the architecture a failure happened (seed 002's
// BridgeError types). It selects the JSON-RPC error code.
type Category string

// The categories.
const (
	CategoryConfig    Category = "CONFIG"    // configuration or credentials missing or invalid
	CategoryAuth      Category = "AUTH"      // authentication or authorization rejected
	CategoryUpstream  Category = "UPSTREAM"  // an agent, session, provider or external service failed
	CategoryTransport Category = "TRANSPORT" // communication failed: network, bus, backpressure
	CategoryTimeout   Category = "TIMEOUT"   // a request deadline passed
	CategoryInternal  Category = "INTERNAL"  // the executor itself failed or is not ready
	CategoryProtocol  Category = "PROTOCOL"  // a message broke the protocol's contract
)

// Domain says who is at fault, for user interfaces choosing an icon and a
// tone (seed 001's ErrorDomain).
type Domain string

// The domains.
const (
	DomainClient   Domain = "client"   // the request was invalid (4xx range)
	DomainSystem   Domain = "system"   // internal platform failure (5xx range)
	DomainLLM      Domain = "llm"      // the model provider failed or refused
	DomainTool     Domain = "tool"     // an external tool or API failed
	DomainSecurity Domain = "security" // authentication, authorization or governance rejected it
)

// Valid reports whether d is one of the five domains.
func (d Domain) Valid() bool {
	switch d {
	case DomainClient, DomainSystem, DomainLLM, DomainTool, DomainSecurity:
		return true
	}
	return false
}

// Domains lists the five domains in seed 001's order.
func Domains() []Domain {
	return []Domain{DomainClient, DomainSystem, DomainLLM, DomainTool, DomainSecurity}
}

// Valid reports whether c is one of the seven categories.
func (c Category) Valid() bool {
	switch c {
	case CategoryConfig, CategoryAuth, CategoryUpstream, CategoryTransport,
		CategoryTimeout, CategoryInternal, CategoryProtocol:
		return true
	}
	return false
}

// Categories lists the seven categories.
func Categories() []Category {
	return []Category{CategoryConfig, CategoryAuth, CategoryUpstream, CategoryTransport,
		CategoryTimeout, CategoryInternal, CategoryProtocol}
}

// JSON-RPC error codes. The category codes are seed 002's; the standard
// codes are JSON-RPC 2.0's own.
const (
	JSONRPCTransport    = -32000 // TRANSPORT and PROTOCOL (server error)
	JSONRPCTimeout      = -32001 // TIMEOUT
	JSONRPCUpstream     = -32002 // UPSTREAM
	JSONRPCAuth         = -32003 // AUTH
	JSONRPCConfig       = -32004 // CONFIG
	JSONRPCParseError   = -32700 // invalid JSON was received
	JSONRPCInvalidReq   = -32600 // the JSON sent is not a valid request object
	JSONRPCNoMethod     = -32601 // the method does not exist
	JSONRPCInvalidParam = -32602 // invalid method parameters
	JSONRPCInternal     = -32603 // INTERNAL, and anything unknown
)

// JSONRPCCode is the category's JSON-RPC error code from seed 002's table.
// An unknown category is INTERNAL's -32603.
func (c Category) JSONRPCCode() int {
	switch c {
	case CategoryConfig:
		return JSONRPCConfig
	case CategoryAuth:
		return JSONRPCAuth
	case CategoryUpstream:
		return JSONRPCUpstream
	case CategoryTimeout:
		return JSONRPCTimeout
	case CategoryTransport, CategoryProtocol:
		return JSONRPCTransport
	}
	return JSONRPCInternal
}

// Spec is one row of the code table: a code and the defaults of every facet
// that derives from it.
type Spec struct {
	Code         Code
	Status       int      // HTTP status
	Category     Category // where it failed
	Domain       Domain   // who is at fault
	Retryable    bool     // default retryability
	SessionValid bool     // whether a session survives the error by default
	JSONRPC      int      // JSON-RPC error code
	Type         string   // RFC 9457 problem type URI, relative
	Title        string   // short, human-readable summary of the problem type
	Message      string   // default message, safe for end users
	Summary      string   // one line for the documentation table
}

// StatusCase is an HTTP status a code carries in one case, other than its
// default, and the case.
type StatusCase struct {
	Status int    `json:"status"`
	When   string `json:"when"`
}

// statusCases are the codes' Cases: the statuses the service answers
// besides the defaults, so that the table users read says every status a
// code comes with. A server test holds the service to it.
var statusCases = map[Code][]StatusCase{
	InvalidRequest: {
		{403, "a request /mcp refuses for its Origin or its Host header (the MCP transport's origin check, DNS rebinding protection)"},
		{405, "a method the endpoint does not take (the Allow header lists those it does)"},
		{409, "an AG-UI runId the tenant has used already: a new run needs a new id"},
		{415, "a Content-Type that is not JSON"},
		{422, "a body that is JSON but invalid (a report, a document, a string that is not Unicode text; errors lists the fields), or an Idempotency-Key reused with another body"},
	},
	Timeout: {
		{408, "a request body that did not arrive in time: nothing was handled, send it again at once"},
	},
}

// StatusCases are the other HTTP statuses a fault of c carries where its
// default says less than HTTP can (415 for a body that is not JSON, where
// INVALID_REQUEST's default is 400), each with the case it answers. Every
// other case carries the default. The slice is a copy.
func (c Code) StatusCases() []StatusCase { return slices.Clone(statusCases[c]) }

// Documents reports whether status is c's default or one of its
// StatusCases: a status the table says a fault of c may carry.
func (c Code) Documents(status int) bool {
	if status == c.HTTPStatus() {
		return true
	}
	return slices.ContainsFunc(statusCases[c], func(sc StatusCase) bool { return sc.Status == status })
}

// table is the single source of truth for the taxonomy. Every mapping (HTTP,
// AG-UI, JSON-RPC, present, docs/taxonomy.md) reads it.
//
// JSON-RPC codes follow the category (seed 002) except where the fault is
// about the caller's parameters: INVALID_REQUEST and PAYLOAD_TOO_LARGE use
// JSON-RPC's own -32602 (invalid params), as the specification asks of
// malformed requests.
var table = [...]Spec{
	{AgentExecutionError, 500, CategoryInternal, DomainSystem, false, true, JSONRPCInternal,
		"/errors/agent-execution", "Agent Execution Error",
		"An error occurred processing your request.",
		"The agent failed unexpectedly; nothing more specific applies."},
	{TenantRequired, 401, CategoryAuth, DomainSecurity, false, true, JSONRPCAuth,
		"/errors/tenant-required", "Tenant Required",
		"Authentication required.",
		"No tenant identity (API key or tenant id) was supplied."},
	{TenantUnauthorized, 403, CategoryAuth, DomainSecurity, false, true, JSONRPCAuth,
		"/errors/tenant-unauthorized", "Tenant Unauthorized",
		"Access denied.",
		"The tenant identity is invalid or not allowed."},
	{SessionNotFound, 404, CategoryUpstream, DomainClient, false, false, JSONRPCUpstream,
		"/errors/session-not-found", "Session Not Found",
		"Session expired or not found. Please start a new session.",
		"The session named does not exist or has expired."},
	{RateLimited, 429, CategoryUpstream, DomainClient, true, true, JSONRPCUpstream,
		"/errors/rate-limited", "Rate Limited",
		"Request rate limit exceeded. Please wait before retrying.",
		"A rate limit was exceeded; retry after retry_after."},
	{Timeout, 504, CategoryTimeout, DomainSystem, true, true, JSONRPCTimeout,
		"/errors/timeout", "Timeout",
		"Request timed out. Please try again.",
		"A deadline passed before the work finished."},
	{InvalidRequest, 400, CategoryProtocol, DomainClient, false, true, JSONRPCInvalidParam,
		"/errors/invalid-request", "Invalid Request",
		"Invalid request. Please check your input.",
		"The request is malformed or a field is invalid."},
	{CapabilityNotFound, 404, CategoryUpstream, DomainClient, false, true, JSONRPCUpstream,
		"/errors/capability-not-found", "Capability Not Found",
		"Requested capability not available.",
		"The agent, tool, model or capability named is not available."},
	{NotFound, 404, CategoryProtocol, DomainClient, false, true, JSONRPCInvalidParam,
		"/errors/not-found", "Not Found",
		"The requested resource was not found.",
		"The resource named (an error record, a job) does not exist here."},
	{UpstreamError, 502, CategoryUpstream, DomainTool, false, true, JSONRPCUpstream,
		"/errors/upstream", "Upstream Error",
		"External service error.",
		"An external service failed; retryable when it answered 5xx."},
	{ServiceUnavailable, 503, CategoryTransport, DomainSystem, true, true, JSONRPCTransport,
		"/errors/service-unavailable", "Service Unavailable",
		"Service temporarily unavailable. Please try again later.",
		"Overloaded or temporarily down (backpressure, upstream 503)."},
	{ConfigError, 500, CategoryConfig, DomainSystem, false, true, JSONRPCConfig,
		"/errors/config", "Configuration Error",
		"The service is misconfigured. Please contact the operator.",
		"Configuration or credentials are missing or invalid."},
	{ProviderAuthFailed, 502, CategoryAuth, DomainSecurity, false, true, JSONRPCAuth,
		"/errors/provider-auth", "Provider Authentication Failed",
		"The AI provider rejected the service's credentials.",
		"An upstream provider rejected this service's API key or permissions."},
	{TransportError, 502, CategoryTransport, DomainSystem, true, true, JSONRPCTransport,
		"/errors/transport", "Transport Error",
		"Could not reach a required service. Please try again.",
		"Connection refused or reset, DNS failure, closed bus."},
	{InternalError, 500, CategoryInternal, DomainSystem, false, false, JSONRPCInternal,
		"/errors/internal", "Internal Error",
		"Internal error.",
		"The executor itself failed or is not started."},
	{ProtocolError, 502, CategoryProtocol, DomainSystem, false, true, JSONRPCTransport,
		"/errors/protocol", "Protocol Error",
		"A service returned an invalid response.",
		"A peer broke the protocol (malformed worker response)."},
	{PayloadTooLarge, 413, CategoryProtocol, DomainClient, false, true, JSONRPCInvalidParam,
		"/errors/payload-too-large", "Payload Too Large",
		"The request is too large.",
		"A request, prompt or context window limit was exceeded."},
	{SessionBusy, 409, CategoryUpstream, DomainClient, true, true, JSONRPCUpstream,
		"/errors/session-busy", "Session Busy",
		"The session is busy with another request. Please wait.",
		"The session is processing another prompt."},
	{Cancelled, 499, CategoryTransport, DomainClient, false, true, JSONRPCTransport,
		"/errors/cancelled", "Cancelled",
		"The request was cancelled.",
		"The caller cancelled the operation."},
	{ContentRefused, 422, CategoryUpstream, DomainLLM, false, true, JSONRPCUpstream,
		"/errors/content-refused", "Content Refused",
		"The model declined to respond to this request.",
		"A model refused the content (safety filter, content policy)."},
	{QuotaExhausted, 402, CategoryUpstream, DomainLLM, false, true, JSONRPCUpstream,
		"/errors/quota-exhausted", "Quota Exhausted",
		"The provider quota is exhausted.",
		"Account quota or credit is used up; it does not pass with time."},
}

// unknownSpec gives the facets of a code the table does not know.
var unknownSpec = Spec{Status: 500, Category: CategoryInternal, Domain: DomainSystem,
	SessionValid: true, JSONRPC: JSONRPCInternal, Type: "about:blank", Title: "Error",
	Message: "An error occurred processing your request."}

var byCode = func() map[Code]*Spec {
	m := make(map[Code]*Spec, len(table))
	for i := range table {
		m[table[i].Code] = &table[i]
	}
	return m
}()

// Codes returns the code table, in its documented order. The slice is a
// copy; changing it changes nothing.
func Codes() []Spec {
	out := make([]Spec, len(table))
	copy(out, table[:])
	return out
}

// Lookup returns the table row for c.
func Lookup(c Code) (Spec, bool) {
	if s, ok := byCode[c]; ok {
		return *s, true
	}
	return Spec{}, false
}

// spec returns the row for c, or the row of defaults for unknown codes
// (whose Code is empty: New sets the code itself).
func (c Code) spec() *Spec {
	if s, ok := byCode[c]; ok {
		return s
	}
	return &unknownSpec
}

// Known reports whether c is in the code table.
func (c Code) Known() bool {
	_, ok := byCode[c]
	return ok
}

// HTTPStatus is the code's default HTTP status (500 for an unknown code).
func (c Code) HTTPStatus() int { return c.spec().Status }

// ProblemType is the code's RFC 9457 type URI, relative to the server's base
// ("/errors/rate-limited"); "about:blank" for an unknown code.
func (c Code) ProblemType() string { return c.spec().Type }

// Title is the code's short summary, the problem document's title.
func (c Code) Title() string { return c.spec().Title }

// String returns the code's value.
func (c Code) String() string { return string(c) }
