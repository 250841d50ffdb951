package server

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Config configures a Server. Every zero field means the documented
// default.
type Config struct {
	// Store keeps everything durably. Required.
	Store store.Store
	// Policy decides recoveries. Defaults to policy.Default().
	Policy *policy.Policy

	// APIKeys maps each API key to its tenant. With none, every request
	// is the "default" tenant's and New logs a warning.
	APIKeys map[string]string

	// RateLimit is each tenant's sustained request rate, per second, and
	// RateBurst its bucket. Default 50 and 100. A negative RateLimit turns
	// rate limiting off.
	RateLimit float64
	RateBurst int
	// MaxConcurrent bounds the API requests in progress; beyond it the
	// service answers 503 with Retry-After. Default 256.
	MaxConcurrent int
	// MaxBody bounds a request body, in bytes. Default 1 MiB.
	MaxBody int64
	// TenantConcurrent bounds the API requests one tenant has in
	// progress, within MaxConcurrent: beyond it that tenant is answered
	// 429 with Retry-After while the others are still served. Default: a
	// quarter of MaxConcurrent (at least 1) when APIKeys name more than one
	// tenant, else MaxConcurrent.
	TenantConcurrent int
	// BodyTimeout bounds how long a request body may take to arrive,
	// counted from when its headers were read; a body later than that is
	// answered 408 (TIMEOUT). Default 10s, at most ReadTimeout; negative:
	// only ReadTimeout bounds it.
	BodyTimeout time.Duration
	// MinBodyRate is the slowest average rate, in bytes a second, a body
	// may arrive at once BodyGrace has passed (408 below it): a body of n
	// bytes read so far must have the next byte by BodyGrace + n/MinBodyRate
	// after the request's start. Default 1024 and 2s; a negative
	// MinBodyRate checks no rate.
	MinBodyRate int64
	BodyGrace   time.Duration
	// AuthFailRate is each client address's sustained rate of failed
	// authentications (401, 403), per second, and AuthFailBurst its
	// bucket: past them the address is answered 429 until a token is back.
	// A valid key is never refused. Default 1 and 10; a negative
	// AuthFailRate turns the limit off. The address is the connection's
	// peer (an IPv6 peer's /64), never X-Forwarded-For.
	AuthFailRate  float64
	AuthFailBurst int

	// Webhook receives escalations (a POST of the escalation's JSON, as a
	// durable job, through package webhook: with an Idempotency-Key naming
	// the escalation). Defaults to "": escalations are logged. This and
	// the job settings below are the service's (service.Jobs).
	Webhook string
	// EscalationThrottle is the least time between two escalations of one
	// record (service.Jobs.EscalationThrottle): those in between are held
	// back and counted in the next. Default an hour; negative: none held.
	EscalationThrottle time.Duration
	// HTTPClient makes the jobs' calls (callbacks, webhook). Defaults to a
	// client with a 10-second timeout. Callbacks go through a copy of it
	// unless PrivateCallbacks.
	HTTPClient *http.Client
	// PrivateCallbacks lets the agents' callbacks (a retry job's POST to
	// the callback_url a tenant registers with PUT /v1/callbacks/{agent_id})
	// and the tenants' alert targets (PUT /v1/alerts/targets/{target}, and
	// the alerts file's) reach loopback, private (RFC 1918, fc00::/7), link-local (169.254.0.0/16,
	// the cloud metadata address among them, fe80::/10), unspecified,
	// multicast and other special-use addresses. Defaults to false when
	// APIKeys are set (tenants must not probe the service's network):
	// PUT /v1/callbacks answers 422 for a callback_url whose host is such an
	// IP address or "localhost", and a callback whose name resolves to one
	// is refused as it connects (so DNS rebinding does not get past), its
	// attempt failing for good. With no APIKeys, every request is the
	// operator's and they are allowed. The Webhook is the operator's and
	// never checked. The check dials through a clone of HTTPClient's
	// Transport if it is an *http.Transport (or nil: http.DefaultTransport),
	// its DialContext replaced and its DialTLS, DialTLSContext and Proxy
	// unset (a proxy's address would be the one checked); a Transport of
	// another type is used as it is, unchecked, and New logs a warning.
	PrivateCallbacks bool
	// JobPoll is how often the job worker looks for due jobs. Default
	// 500ms. A negative JobPoll runs no worker.
	JobPoll time.Duration
	// JobOptions tune the job worker (River) but for its Poll, which is
	// JobPoll: how many jobs run at once, an attempt's timeout (default
	// DefaultJobTimeout), the backoff, when a job whose instance died
	// runs again (default DefaultJobRescueAfter).
	JobOptions store.WorkOptions
	// TenantJobWorkers bounds the jobs of one tenant running at once on
	// this instance, within JobOptions.Workers: a job of a tenant that
	// has as many running is put off (store.Defer: 1 s, doubling each time
	// it is put off again, at most 30 s; no attempt counted) rather than
	// holding a worker, so that a tenant whose callbacks hang cannot make
	// the others' jobs wait. Default: a quarter of the workers (at least
	// 1) when APIKeys name more than one tenant, else all of them.
	TenantJobWorkers int

	// Alerts are the alert rules and targets of the tenants an alerts
	// file names (service.ParseAlerts): read-only through /v1/alerts/…
	// (409); the other tenants keep theirs through the API.
	Alerts map[string]service.AlertConfig
	// PublicURL is the dashboard's address as the alerts' readers reach
	// it: an alert links to its record's page under it
	// (service.Config.PublicURL). Default "": alerts carry no link.
	PublicURL string

	// Retention says how long delivery claims, idempotency keys and
	// attempt counts are kept (store.Retention's defaults: 7 days, 24
	// hours, 7 days), and error records (default: for ever); ExpireEvery
	// how often Serve deletes what is older (default 1 hour; negative:
	// never).
	Retention   store.Retention
	ExpireEvery time.Duration

	// Heartbeat is the interval of /v1/events' keep-alive comments.
	// Default 15s.
	Heartbeat time.Duration
	// EventPoll is how often an event stream reads the store for feedback
	// that other instances saved (this instance's wakes it at once). On a
	// store that announces the instances' changes (store.Announcer:
	// PostgreSQL's LISTEN/NOTIFY) a stream wakes on them, and polls only
	// as a fallback. Default 1s, or DefaultEventPollAnnounced (10s) on a
	// store that announces.
	EventPoll time.Duration
	// TenantStreams bounds the event streams (GET /v1/events) one tenant
	// holds open: beyond it the tenant is answered 429 with Retry-After
	// while the others are still served. A stream takes no request slot
	// (it lasts), and reads the store at each EventPoll. Default 32.
	TenantStreams int
	// MaxReplay bounds the feedback a stream reconnecting with
	// Last-Event-ID is sent from the store; past it, the stream skips to
	// the newest. Default 1,000.
	MaxReplay int

	// Debug adds debug details to problems (never stack traces, keys or
	// headers).
	Debug bool
	// ProblemBaseURI is an absolute http or https URI that each problem's
	// type is resolved against ("https://docs.example/" makes
	// "/errors/rate-limited" "https://docs.example/errors/rate-limited").
	// Defaults to "": types stay relative, and resolve to the type pages
	// this service serves at /errors/{type}.
	ProblemBaseURI string
	// Logger receives the service's logs (and the handler's), through a
	// guard: every string value is redacted (fault.Redact) and cut to
	// logguard.MaxValue bytes, and of the lines of one message at one level,
	// Warn and above, at most LogRepeat are written per LogRepeatWindow,
	// the others counted in one line at the window's end (default 10 per
	// 10s; a negative LogRepeat writes them all). Defaults to
	// slog.Default().
	Logger          *slog.Logger
	LogRepeat       int
	LogRepeatWindow time.Duration
	// TracerProvider, when set, makes a span per request, a child of the
	// caller's span when the request carries a W3C traceparent header
	// (its attributes: method, route, path, status and tenant; never a
	// header or the body), and is the handler's, whose spans are the
	// request's children. Defaults to nil: no request spans, and the
	// handler's go to otel's global provider (a no-op unless set).
	TracerProvider trace.TracerProvider
	// Propagator reads the caller's trace context from a request's
	// headers. Defaults to W3C trace context and baggage.
	Propagator propagation.TextMapPropagator
	// Now tells the time. Defaults to time.Now.
	Now func() time.Time

	// Agents, when set, are run for AG-UI clients at POST
	// /v1/agents/{agent_id}/runs (each agent as a graph; see package aguirun).
	Agents *agent.Manager
	// Bridge, when set, is served at /mcp over MCP's streamable HTTP
	// transport, behind the same API keys and tenants; build it with
	// Owner: MCPOwner so that sessions belong to tenants. The server adds
	// the error store's tools to it (bridge.ServeErrors), over the
	// tenant's records: a bridge serves one server's /mcp.
	Bridge *bridge.Bridge
	// TenantMCPSessions bounds the MCP sessions one tenant holds open at
	// /mcp (a session lasts until it is deleted or idle for 30 minutes):
	// a request that would open one more closes the tenant's least
	// recently used session with nothing in flight, and is answered 429
	// with Retry-After only when every one has work in flight (or is in
	// its handshake); the other tenants are still served. Default 64.
	TenantMCPSessions int
	// MCPMaxBody bounds an /mcp request body. Default 8 MiB: a 1 MiB
	// prompt may take six times its size as escaped JSON.
	MCPMaxBody int64
	// MCPWriteTimeout bounds the answer to an /mcp POST, which streams
	// while a prompt runs. Default 6 minutes, a minute more than a
	// prompt's default timeout.
	MCPWriteTimeout time.Duration
	// MCPStallTimeout bounds how long writing 64 KiB of an /mcp answer
	// may take (a client that stops reading): past it the connection is
	// cut and what the answer held freed. Default 30 s.
	MCPStallTimeout time.Duration
	// MCPMaxBatch bounds a JSON-RPC batch, in messages, in the sessions
	// whose protocol version has batches (2025-03-26 and before; later
	// ones are refused any). Default 16.
	MCPMaxBatch int
	// MCPEventBytesSession and MCPEventBytesTenant bound the events /mcp
	// keeps for streams to resume (GET with Last-Event-ID): a session's,
	// and all of one tenant's sessions'. Default 4 MiB and 16 MiB.
	MCPEventBytesSession, MCPEventBytesTenant int

	// CORSOrigins are the origins ("https://app.example.com", as a
	// browser sends it in Origin: scheme, host, and a port unless the
	// scheme's default) of the web pages allowed to call the API (/v1/…,
	// the AG-UI run endpoint among it) from a browser: their preflight
	// requests are answered (204, the API's methods and request headers,
	// Access-Control-Max-Age CORSMaxAge) and their requests' answers
	// carry Access-Control-Allow-Origin with their own origin, the
	// headers a client reads exposed (Retry-After, RateLimit, …), and
	// Vary: Origin. A page on another origin gets no CORS header, so its
	// browser keeps the answer from it. CORSAllOrigins ("*") alone allows
	// every origin, and needs APIKeys. Credentials (cookies, HTTP
	// authentication) are never allowed: a page sends its API key in a
	// header. "null", wildcards in an origin, paths and default ports are
	// refused by New. Defaults to none: CORS is off, and a browser on
	// another origin cannot read an answer (its preflight is a 405). The
	// dashboard, served on the service's own origin, needs none; /mcp
	// keeps refusing other origins whatever this says.
	CORSOrigins []string

	// UI, when set, is the dashboard (package web's Handler), served
	// without authentication at GET / and GET /assets/{file}, its own
	// static files only: the page sends the API key with its API
	// requests. An asset UI answers 404 is the API's 404 problem, as is
	// every other unknown path: the UI shadows no route. Defaults to nil:
	// no dashboard.
	UI http.Handler
	// JobsUI, when set, is River's web UI for Store's job queue
	// (adapter/riverui.New builds it from the store's RiverClient), served
	// at JobsUIPath + "/": every tenant's jobs, which it can retry, cancel
	// and delete, and the queue, which it can pause. OperatorKey opens it,
	// no tenant's API key does. Serve starts it. Default nil: no /riverui/.
	JobsUI JobsUI
	// OperatorKey opens JobsUI and, when APIKeys are set, GET /metrics
	// (at least 16 characters, none of APIKeys'): sent as the password of
	// HTTP Basic authentication, which a browser prompts for, or as an
	// API key is sent. Required with JobsUI when APIKeys are set; with no
	// APIKeys and no OperatorKey, JobsUI is as open as the rest of the
	// API. /metrics names the reporting agents, whose IDs are the
	// tenants', in triage_handler_reports_total's source label: with
	// APIKeys and no OperatorKey it stays open and names none (every
	// report counted as "(other)"), and New logs a warning.
	OperatorKey string
}

// The defaults.
const (
	DefaultRateLimit     = 50
	DefaultRateBurst     = 100
	DefaultMaxConcurrent = 256
	DefaultMaxBody       = 1 << 20
	DefaultMCPMaxBody    = 8 << 20
	DefaultMCPMaxBatch   = 16
	DefaultJobPoll       = 500 * time.Millisecond
	// DefaultJobTimeout bounds a job's attempt: a callback or webhook
	// call, itself bounded by the HTTP client's timeout (10 s by
	// default).
	DefaultJobTimeout = 30 * time.Second
	// DefaultJobRescueAfter is when a job running on an instance that
	// died runs again (River's leader looks every 30 s): River's own
	// default, an hour, suits long jobs; a job here is one HTTP call.
	DefaultJobRescueAfter = 2 * time.Minute
	DefaultHeartbeat      = 15 * time.Second
	DefaultEventPoll      = time.Second
	// DefaultEventPollAnnounced is EventPoll's default on a store that
	// announces the instances' changes: a fallback only.
	DefaultEventPollAnnounced = 10 * time.Second
	DefaultMaxReplay          = 1000
	DefaultTenantStreams      = 32
	DefaultTenantMCPSessions  = 64
	DefaultBodyTimeout        = 10 * time.Second
	DefaultMinBodyRate        = 1024
	DefaultBodyGrace          = 2 * time.Second
	DefaultAuthFailRate       = 1
	DefaultAuthFailBurst      = 10
	DefaultLogRepeat          = 10
	DefaultLogRepeatWindow    = 10 * time.Second
	// DefaultTenant is the tenant of every request when no API keys are
	// configured.
	DefaultTenant = service.DefaultTenant
)
