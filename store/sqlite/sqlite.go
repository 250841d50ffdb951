package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/riverjobs"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

var dialect = sqlstore.Dialect{
	Name:          "sqlite",
	Least:         "min",
	Greatest:      "max",
	HistoryTotals: true, // migrations/0029_history_keyed.sql
	InsertJob: `INSERT INTO river_job (args, kind, max_attempts, state, scheduled_at, created_at, metadata, tags)
		VALUES (jsonb($1), $2, $3, $4, $5, $7, jsonb($6), jsonb('[]'))`,
	RiverTime: riverTime,
	FullText:  sqlstore.FTS5, // migrations/0016_search.sql
	ByQuery:   "records r INDEXED BY records_by_query",
	Listed:    "r.listed = 1",                                 // migrations/0028_listing_behind.sql
	Unlisted:  "r.seq > (SELECT seq FROM records_fts_behind)", // r.listed = 0
	AnyUnlisted: `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0) >
		(SELECT seq FROM records_fts_behind)`,
}

// riverTime is a time as River's SQLite driver keeps it: text, in UTC, to
// the millisecond, which compares with its own times only so.
func riverTime(t time.Time) any {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// BusyTimeout is how long, in milliseconds, a statement waits for a lock
// another process holds before it fails with SQLITE_BUSY.
const BusyTimeout = 10_000

// Store is a store.Store in one SQLite database file. It is safe for
// concurrent use.
type Store struct {
	path        string
	core        *sqlstore.Store
	write, read *sql.DB
	writer      *writer
	readStmts   *stmtCache
	closeOnce   sync.Once
	closeErr    error
	river       *river.Client[*sql.Tx]
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it if need be) the database file at path and
// applies the migrations it lacks.
func Open(ctx context.Context, path string, opts store.Config) (*Store, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: open: %q is not a database file path", path)
	}
	if err := create(ctx, path); err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	write, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	// One writer connection, which one batch at a time uses (the writer's
	// goroutine's, or a lone write's: see writer.lead): the
	// process's writes queue for it rather than fail with SQLITE_BUSY, and
	// each transaction begins IMMEDIATE (_txlock), taking the write lock
	// before it reads.
	write.SetMaxOpenConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	read, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	n := max(2, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n) // kept, with their prepared statements
	s := &Store{path: path, write: write, read: read, readStmts: newStmtCache(read)}
	// The writer creates the file and turns WAL on before any reader
	// opens it.
	s.writer = newWriter(write)
	s.writer.readers = read
	db := database{w: s.writer, read: read, readStmts: s.readStmts}
	// River works on the writer's pool: its one connection serialises
	// River's writes with the writer's batches.
	queue, err := riverjobs.New(riversqlite.New(write), txOf)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	// River's migrations first, each in a transaction of its own (as
	// River wants them): the store's 0010 uses River's table.
	if err := queue.MigrateDB(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	if _, err := sqlstore.Migrate(ctx, db, dialect, migrationFiles, "migrations"); err != nil {
		s.Close()
		return nil, err
	}
	// records_fts_behind is there (0027): index what a crash left behind.
	s.writer.indexing.Store(true)
	s.writer.dirty.Store(true)
	if err := s.writer.catchUpNow(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.core = sqlstore.New(db, dialect, opts, queue)
	s.river = queue.Client()
	return s, nil
}

// pageSize is the page size of a database the store creates: 2 KB, not
// SQLite's default 4 KB. Most of what a report writes is WAL frames of
// leaves its random keys land on, each a whole page: 2 KB pages wrote a
// fifth fewer bytes per report to disk, at the same CPU per report; 1 KB
// pages wrote no fewer than 2 KB (the file system writes 4 KB blocks, and
// a checkpoint writes the pages back one by one) and cost more pages per
// report (see docs/service.md). An existing database keeps the page size it was created
// with: in WAL mode SQLite changes it only by a VACUUM run after leaving
// WAL mode.
var pageSize = 2048

// walAutocheckpoint is how many WAL frames the writer's commit leaves
// before it checkpoints them into the database (SQLite's default: 1,000).
// A checkpoint writes back each page the frames since the last one hold,
// once: the leaves every report changes (the right-most ones of the
// appending keys, the counts, the search index's queue) are written back
// once per 4,000 frames rather than once per 1,000: a tenth fewer bytes
// written per report, and less CPU (the checkpoint was 8 % of the
// process's CPU at 1,000; see docs/service.md). The WAL grows to ~8 MB of
// 2 KB pages between checkpoints, where it was ~2 MB; a restart replays at
// most that.
const walAutocheckpoint = 4000

// create makes the database file at path, with its page size and in WAL
// mode, when there is none yet (or it is empty). The page size must be
// set before the database's first write, and turning WAL on is one:
// modernc.org/sqlite runs a DSN's _pragma statements sorted by name
// (journal_mode before page_size), so the writer's DSN cannot do it.
func create(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout))
	q.Add("_pragma", fmt.Sprintf("page_size(%d)", pageSize))
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "PRAGMA journal_mode = WAL")
	return err
}

// dsn is the data source name of path for modernc.org/sqlite, whose
// connections run the _pragma statements as they open.
//
// synchronous=FULL makes a commit durable once it returns, power loss
// included: a 201 means the report is stored. In WAL mode NORMAL, the
// usual choice, syncs only at checkpoints, so a power loss may lose the
// last transactions committed.
//
// temp_store=MEMORY keeps the statement journal of each write's savepoint
// in memory: on disk it cost an open, writes and a close per write, a
// fifth of the writer's time. The page cache keeps SQLite's default
// size (2 MiB): a larger one costs every commit a scan of its hash table
// (a 64 MiB cache made the load benchmark ~7 % slower, empty database or
// not; see docs/service.md).
func dsn(path string, write bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout))
	q.Add("_pragma", "foreign_keys(1)")
	if write {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walAutocheckpoint))
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return path + "?" + q.Encode()
}

// Tenant returns the view of one tenant's data.
func (s *Store) Tenant(id string) store.Tenant { return s.core.Tenant(id) }

// Jobs returns the durable job queue, shared by every tenant.
func (s *Store) Jobs() store.Jobs { return s.core.Jobs() }

// RiverClient returns the River client the job queue inserts with, on the
// writer's pool, for River's own tools: its web UI (adapter/riverui) lists,
// retries and cancels the jobs through it. Jobs inserted through it
// outside Triage's kinds are never run.
func (s *Store) RiverClient() *river.Client[*sql.Tx] { return s.river }

// Expire deletes the bookkeeping older than r keeps: delivery claims,
// idempotency keys, attempt counts, graph checkpoints, run records.
func (s *Store) Expire(ctx context.Context, r store.Retention) (int64, error) {
	return s.core.Expire(ctx, r)
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Ready reports whether a write can be committed now: see
// store.Store.Ready. The writer tells it every transaction's outcome;
// its probe is a write of the heartbeat row, in the writer's next batch.
// A write that fails for want of a writable file drops the writer's
// connection, so that the store recovers once the file is writable again
// (SQLite opens a file it may not write read-only, and the connection
// stays so).
//
// A full disk may still take a small write (SQLite writes the WAL over
// from its start once it is checkpointed) though not a report: Ready
// reports disk_full as well while the file system holding the database
// has less than MinFree bytes available (on Linux).
func (s *Store) Ready(ctx context.Context) error {
	if err := s.Ping(ctx); err != nil {
		r := reason(err) // a connection that cannot open its files
		if r == "" {
			r = store.NotReachable
		}
		return &store.NotReadyError{Reason: r, Since: time.Now(), Err: err}
	}
	if n, ok := freeSpace(filepath.Dir(s.path)); ok && n < MinFree {
		return &store.NotReadyError{Reason: store.DiskFull, Since: time.Now(),
			Err: fmt.Errorf("sqlite: %d bytes available to the database, under MinFree (%d)", n, MinFree)}
	}
	return s.writer.health.Ready(ctx, s.probe)
}

// MinFree is the space Ready wants available for the database: room for a
// report of the service's largest default size (1 MiB) with its feedback,
// written to the WAL and then to the database, several times over.
const MinFree = 8 << 20

// freeSpace tells the bytes available in a directory (a variable, for the
// tests).
var freeSpace = available

// probe writes the heartbeat row; once more when the write dropped the
// connections (see writer.reconnect): the file may have become writable
// since they opened.
func (s *Store) probe(ctx context.Context) error {
	n := s.writer.reconnects.Load()
	err := s.core.Heartbeat(ctx)
	if err != nil && s.writer.reconnects.Load() != n {
		err = s.core.Heartbeat(ctx)
	}
	return err
}

// Close closes the database, once the writes queued are committed. The
// writes that come later fail with ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.core != nil {
			s.core.Close() // its background releases write through the writer
		}
		s.writer.stop()
		s.readStmts.close()
		if err := errors.Join(s.read.Close(), s.write.Close()); err != nil {
			s.closeErr = fmt.Errorf("sqlite: close: %w", err)
		}
	})
	return s.closeErr
}

// database adapts the writer and the readers to sqlstore.DB. Every write
// goes through the writer (group commit); the reads use the readers'
// prepared statements.
type database struct {
	w         *writer
	read      *sql.DB
	readStmts *stmtCache
}

func (d database) Writer() sqlstore.Execer  { return execer{d.w} }
func (d database) Reader() sqlstore.Querier { return dbQuerier{d.read, d.readStmts} }
func (d database) Conns() int               { return d.read.Stats().MaxOpenConnections }

// ReadIdle runs the short read fn on the writer's connection when the
// writer is idle (sqlstore.IdleReader; see writer.readIdle).
func (d database) ReadIdle(ctx context.Context, fn func(sqlstore.Querier) error) (bool, error) {
	return d.w.readIdle(ctx, fn)
}

// CatchUp indexes the records the search index is behind (see
// writer.catchUp): sqlstore.Behind.
func (d database) CatchUp(ctx context.Context) error { return d.w.catchUpNow(ctx) }

func (d database) Write(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return d.w.write(ctx, fn)
}

// Read runs fn in a read-only transaction of a reader.
func (d database) Read(ctx context.Context, fn func(sqlstore.Querier) error) error {
	tx, err := d.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	q := newTxQuerier(tx, d.readStmts, false)
	defer q.prepareMissed(ctx)
	err = fn(q)
	if cerr := q.closeRows(); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

// txOf returns the transaction a Querier of database's Write or Read runs
// on.
func txOf(q sqlstore.Querier) (*sql.Tx, error) {
	if tq, ok := q.(*txQuerier); ok {
		return tq.tx, nil
	}
	return nil, fmt.Errorf("sqlite: %T is not a transaction", q)
}

// ignoreDone drops the error of rolling back a transaction the context's
// end rolled back already.
func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}
