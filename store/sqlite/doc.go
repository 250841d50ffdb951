// Package sqlite is store.Store in one SQLite database file, on
// modernc.org/sqlite (pure Go, no cgo): the service's embedded default.
//
// The database runs in WAL mode with synchronous=FULL, so that a commit
// (a 201 to a report) survives a power loss, with foreign keys on and a
// busy timeout for the other processes that may open the file. The store
// writes through one connection, whose transactions begin IMMEDIATE, and
// reads through a small pool of read-only connections: writes are
// serialised in the process rather than failing with SQLITE_BUSY, and
// readers never wait for them.
//
// Writes are group-committed: one goroutine takes the writes waiting (up
// to MaxBatch), runs each in a savepoint of one transaction and commits
// them at once, so that a batch costs one fsync; a write that finds the
// writer idle runs its batch itself, on the writer's connection and under
// its exclusion, sparing the hand-offs to and from that goroutine (one
// client at a time). A write that fails is
// rolled back to its savepoint, alone; a write returns only once its
// batch is committed (or with the error of the COMMIT, which every write
// of the batch gets), so that a write that succeeded is durable. A write
// whose context ends before it starts does not run; once it started, it
// waits for the commit. Close commits the writes queued; later ones fail
// with ErrClosed. Statements are prepared once per connection.
//
// Open applies River's migrations the file lacks (each in a transaction
// of its own, recorded in river_migration), then the embedded migrations
// (migrations/NNNN_name.sql) it lacks, in one transaction, recorded in
// schema_migrations.
// Times are stored as integer nanoseconds since the Unix epoch (UTC) and
// JSON documents as TEXT; every table has a tenant column, which every
// statement of a Tenant view filters on (the job queue is River's
// river_job table, whose arguments hold the tenant: a record's jobs are
// found through the river_job_by_error index). Failures older than the window a History.Record
// asks for are deleted as it records; history is one B-tree keyed by
// tenant, agent, code and time (WITHOUT ROWID), each key's total of
// failures kept in its row at the greatest time, so that Record does not
// read them all (migration 0029).
//
// Jobs run on River with its SQLite driver (riversqlite) on the writer's
// pool: its one connection serialises River's statements with the
// writer's batches, so River never meets SQLITE_BUSY from this process.
// A job saved with an occurrence is inserted in the writer's transaction.
//
// A Tenant keeps the checkpoints of graph runs for checkpoint.New (package store/checkpoint; the
// graph.Checkpointer that lets a run resume after the process restarts),
// one row per tenant and run in the checkpoints table, replaced at each
// step by an upsert through the writer: the state and the branches'
// results as JSON TEXT, at most store.MaxCheckpointSize encoded. Expire
// deletes the finished runs' and the old ones' (store.Retention), 50 at a
// time, so that a large expiry does not hold the writer long.
//
// Ready is true when a write can be committed: the writer tells it the
// outcome of every transaction, a failure of the storage (SQLITE_FULL,
// SQLITE_READONLY, SQLITE_IOERR, …) holds until its probe, an upsert of
// the heartbeat row, commits, and on Linux it wants MinFree bytes
// available on the database's file system. Such a failure also closes the
// writer's connection and the readers' idle ones, so that a file that was
// read-only when they opened (SQLite then opens it read-only, silently,
// for good) is written again once it is writable, without a restart.
//
// Where package store leaves a detail open, the store behaves as
// store/storetest settles it, as store/postgres does: both are one
// implementation over two dialects.
package sqlite
