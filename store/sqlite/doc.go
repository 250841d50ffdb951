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
// Open applies the embedded migrations (migrations/NNNN_name.sql) the
// file lacks, in one transaction, recording them in schema_migrations.
// Times are stored as integer nanoseconds since the Unix epoch (UTC) and
// JSON documents as TEXT; every table has a tenant column, which every
// statement of a Tenant view filters on (the job queue is shared: its
// worker's statements do not). Failures older than the window a History.Record
// asks for are deleted as it records.
//
// Where package store leaves a detail open, the store behaves as
// store/storetest settles it, as store/postgres does: both are one
// implementation over two dialects.
package sqlite
