// Package riverjobs is the durable job queue of store/sqlite and
// store/postgres, on River (github.com/riverqueue/river): a job is a
// River job of kind "retry" or "escalation" whose arguments are the
// tenant, the error's ID and the payload; jobs enqueued with an
// occurrence are inserted by the store itself in the occurrence's
// transaction, as rows Rows makes (River's Go insert prepares its SQLite
// statement anew each time: half of the writer's time per report); a
// record's jobs are listed in the record's read transaction (ListTx); and
// Work runs River clients with River's fetching, leader election, rescue
// of stuck jobs and cleaning of finished ones.
//
// What is Triage's rather than River's: the backoff between attempts
// (store.WorkOptions.Backoff, never sooner than a failure's Retry-After),
// a permanent failure cancelling the job (store.ErrPermanent), uniqueness
// by arguments for Insert (a job enqueued twice runs once), and how long finished
// jobs are kept (CompletedRetention and the others).
package riverjobs
