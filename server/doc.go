// Package server is the Error Handler service behind `triage serve`: the
// handler package's agent behind an HTTP API, with durable storage
// (package store), tenancy, limits and durable jobs.
//
// # The API
//
// OpenAPI 3.1 at /openapi.json; docs/service.md walks through it.
//
//	POST /v1/errors               a report → 201 feedback (new) / 200 (duplicate)
//	GET  /v1/errors               record summaries: query_id, agent_id, error_type, severity, status, since, cursor
//	GET  /v1/errors/{error_id}    a record: report, feedback, its latest occurrences and jobs
//	GET  /v1/errors/{error_id}/occurrences   the occurrences, a page at a time: limit, cursor
//	PATCH /v1/errors/{error_id}   a change of the record's workflow (status, assignee, note)
//	POST /v1/errors/changes       one change to every record a filter selects (bulk)
//	GET  /v1/errors/{error_id}/history       the record's transitions, a page at a time
//	GET  /v1/events               Server-Sent Events of each new feedback
//	PUT  /v1/schemas/{source}     the schema inventory, for map_synonym
//	PUT  /v1/cache/{query_id}     a query's last good result, for use_cache
//	PUT  /v1/agents/{agent_id}    an agent's retry callback URL
//	GET  /v1/agents               the agent registry that AG-UI runs and /mcp serve
//	GET  /healthz, /readyz, /metrics, /openapi.json
//	GET  /, /assets/{file}        the dashboard, when Config.UI is set (package web)
//
// Every error response is application/problem+json (RFC 9457, written by
// wire/problem) with a Triage code: invalid reports 422 with every field
// error, malformed JSON 400, a body over the limit 413, a body that is not
// JSON 415, an unknown route 404 NOT_FOUND, a wrong method 405.
//
// Another ingress (a message bus: `triage serve --nats`, docs/nats.md)
// takes reports through Accept, the pipeline behind POST /v1/errors: the
// same checks, records, idempotency keys and problems; RegisterReadiness
// makes /readyz report it.
//
// # Tenancy and limits
//
// API keys map to tenants (Config.APIKeys; TRIAGE_API_KEYS): a request
// presents one as Authorization: Bearer KEY or X-API-Key, compared in
// constant time; none is 401 TENANT_REQUIRED, a wrong one 403
// TENANT_UNAUTHORIZED. Every read and write is the tenant's: another
// tenant's record is a 404. Each tenant has a token bucket (429
// RATE_LIMITED with Retry-After and the RateLimit header fields), and the
// requests in progress are bounded (503 SERVICE_UNAVAILABLE with
// Retry-After), each tenant's to a share of them (429). A body must arrive
// within a deadline and above a minimum rate (408 TIMEOUT); failed
// authentication is throttled by client address (429); the logs go
// through a guard that redacts and cuts every value and counts repeated
// warnings and errors rather than writing them all (logguard.go).
//
// A web page on another origin may call the API from a browser only when
// Config.CORSOrigins names its origin (`triage serve --cors-origins`; off
// by default): CORS for /v1/…, never with credentials (cors.go).
//
// # Durability
//
// A 201 or a 200 is sent after the occurrence is committed. Idempotency-Key
// follows the IETF draft: a repeat returns the stored response, another
// payload under the same key is a 422, a repeat in flight a 409. The retry
// and escalate actions enqueue durable jobs that the service's worker
// (service.Service.Work, which Serve runs) runs at least once, with backoff
// and a bounded number of attempts, each recorded; the server hands it its
// configuration (Config.Webhook, HTTPClient, PrivateCallbacks, JobPoll,
// JobOptions, TenantJobWorkers) and nothing else of the jobs is its.
package server
