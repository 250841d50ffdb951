// Package postgres is store.Store in a PostgreSQL database, on pgx
// (pgxpool): for many instances of the service sharing one database.
//
// The schema is store/sqlite's in PostgreSQL's dialect: times as BIGINT
// nanoseconds since the Unix epoch (UTC), JSON documents as TEXT (kept
// byte for byte), a tenant column in every table, which every statement of
// a Tenant view filters on. Open applies the embedded migrations
// (migrations/NNNN_name.sql) the database lacks, in one transaction
// holding an advisory lock of the schema's, so that instances of one
// schema starting together do not race: the later ones wait, then find
// the schema migrated. Instances of other schemas of the database
// migrate meanwhile. The tables go to the first schema of the search
// path, which the connection URL may set (search_path=…).
//
// River's migrations run first, each in its own transaction (its enum
// changes need that), under a session advisory lock of the schema's held
// by the instance migrating. Jobs run on River (riverpgxv5): its fetches lock with FOR
// UPDATE SKIP LOCKED, so that the instances' workers never run one job
// twice at once, and one instance, River's elected leader, rescues the
// jobs of an instance that died. The
// handler's state is kept with atomic upserts (attempt counts, delivery
// claims) and row locks (idempotency keys); ErrorRecord reads one
// REPEATABLE READ snapshot. A commit is durable when it returns, as
// PostgreSQL's synchronous_commit (on by default) makes it.
//
// A Tenant keeps the checkpoints of graph runs for checkpoint.New (package store/checkpoint; the
// graph.Checkpointer that lets a run resume after a restart, or on another
// instance), one row per tenant and run in the checkpoints table, replaced
// at each step by one upsert: the state and the branches' results as JSON
// TEXT, at most store.MaxCheckpointSize encoded; names that TEXT cannot
// hold (NULs, invalid UTF-8) are refused, on store/sqlite too. Expire
// deletes the finished runs' and the old ones' (store.Retention), 50 at a
// time.
//
// The event streams read occurrences by the ID of the transaction that
// saved each (an xid8 column), up to the oldest transaction still running
// (pg_current_snapshot's xmin), so that one committed late is not passed
// over: this needs PostgreSQL 13 or later.
//
// Where package store leaves a detail open, the store behaves as
// store/storetest settles it, as store/sqlite does: both are one
// implementation over two dialects.
package postgres
