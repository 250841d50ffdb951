// Package riverui is River's own web UI (riverqueue.com/riverui) for the
// service's durable jobs: the retries and escalations that store/sqlite
// and store/postgres run on River (github.com/riverqueue/river). New
// takes the River client a store's queue inserts with, typed by the
// store's transactions (postgres.Store.RiverClient, a
// *river.Client[pgx.Tx]; sqlite.Store.RiverClient, a
// *river.Client[*sql.Tx]), and returns riverui's handler for it, which
// lists every job of every tenant and can retry, cancel and delete them,
// and pause the queue. The program that opens the store builds it and
// hands it to the service (server.Config.JobsUI), so that neither the
// service nor the store interfaces carry River's UI, River or a database
// driver.
//
// It is an operator's surface, not a tenant's: River's UI knows nothing of
// tenants (a job's tenant is one of its arguments), so a tenant's API key
// must not open it. The service (package server) serves it at /riverui/
// only when told to (server.Config.JobsUI; `triage serve --riverui`, or
// TRIAGE_RIVERUI=true), off by default, and behind an operator key of its
// own (server.Config.OperatorKey; TRIAGE_OPERATOR_KEY), which is required
// whenever API keys are configured: no tenant's key opens it, and the
// operator key opens nothing else. A browser sends the key as the password
// of HTTP Basic authentication (the service asks for it with a 401); other
// clients may send it as the API keys are sent. With no API keys at all
// (every request is the default tenant's, a development setup) and no
// operator key, it is as open as the rest of the API.
//
// The handler must be started (Handler.Start) for its background counts;
// it answers before that, counting on demand.
package riverui
