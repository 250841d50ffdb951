// Package sqlstore is the SQL implementation of store.Store that
// store/sqlite and store/postgres share: one set of queries, written in the
// SQL both dialects speak ($1 parameters, INSERT … ON CONFLICT … RETURNING),
// over a small database interface each package adapts its driver to. What
// differs between the dialects (row locks, LEAST/GREATEST, the lock that
// serialises migrations) is in a Dialect.
//
// Concurrency rests on the databases, not on this package: every
// read-modify-write runs either as one atomic statement (an upsert with
// RETURNING) or in a transaction DB.Write starts. On SQLite every write
// runs on the one writer goroutine, in a savepoint of a transaction that
// commits a batch of writes at once (group commit), so writes are
// serialised; on PostgreSQL the statements lock the rows they read (FOR
// UPDATE, FOR UPDATE SKIP LOCKED for the job queue) and the upserts settle
// races on unique keys.
package sqlstore
