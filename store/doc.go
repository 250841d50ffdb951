// Package store is the durable storage of the Error Handler service
// (triage serve): error records, the handler's state (attempt counts,
// failure history, delivered feedback, the schema inventory, cached
// results), idempotency keys, agents' callback addresses and durable jobs.
//
// Store is the interface; store/sqlite (modernc.org/sqlite, WAL, the
// embedded default) and store/postgres (pgx, for many instances sharing one
// database) implement it, and both pass one conformance suite,
// store/storetest.
//
// Every read and write goes through a Tenant view: a tenant never sees
// another's records. A Tenant implements the handler's store interfaces
// (triage.Attempts, History, Deliveries, Synonyms, Cache), so that a
// handler.Handler built on it keeps its state across restarts and shares
// it between instances.
package store
