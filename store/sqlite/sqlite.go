package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

var dialect = sqlstore.Dialect{
	Name:     "sqlite",
	Least:    "min",
	Greatest: "max",
}

// BusyTimeout is how long, in milliseconds, a statement waits for a lock
// another process holds before it fails with SQLITE_BUSY.
const BusyTimeout = 10_000

// Store is a store.Store in one SQLite database file. It is safe for
// concurrent use.
type Store struct {
	core        *sqlstore.Store
	write, read *sql.DB
}

var _ store.Store = (*Store)(nil)

// Open opens (creating it if need be) the database file at path and
// applies the migrations it lacks.
func Open(ctx context.Context, path string, opts store.Options) (*Store, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: open: %q is not a database file path", path)
	}
	write, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	// One writer connection: the process's writes queue in database/sql
	// rather than fail with SQLITE_BUSY, and each transaction begins
	// IMMEDIATE (_txlock), taking the write lock before it reads.
	write.SetMaxOpenConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	read, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	read.SetMaxOpenConns(max(2, runtime.GOMAXPROCS(0)))
	s := &Store{write: write, read: read}
	db := database{write: write, read: read}
	// The writer creates the file and turns WAL on before any reader
	// opens it.
	if _, err := sqlstore.Migrate(ctx, db, dialect, migrationFiles, "migrations"); err != nil {
		s.Close()
		return nil, err
	}
	s.core = sqlstore.New(db, dialect, opts)
	return s, nil
}

// dsn is the data source name of path for modernc.org/sqlite, whose
// connections run the _pragma statements as they open.
//
// synchronous=FULL makes a commit durable once it returns, power loss
// included: a 201 means the report is stored. In WAL mode NORMAL, the
// usual choice, syncs only at checkpoints, so a power loss may lose the
// last transactions committed.
func dsn(path string, write bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout))
	q.Add("_pragma", "foreign_keys(1)")
	if write {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
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

// Close closes the database.
func (s *Store) Close() error {
	err := errors.Join(s.read.Close(), s.write.Close())
	if err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	return nil
}

// database adapts the writer and the readers to sqlstore.DB.
type database struct{ write, read *sql.DB }

func (d database) Writer() sqlstore.Querier { return querier{d.write} }
func (d database) Reader() sqlstore.Querier { return querier{d.read} }

func (d database) Write(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return inTx(ctx, d.write, nil, fn)
}

func (d database) Read(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return inTx(ctx, d.read, &sql.TxOptions{ReadOnly: true}, fn)
}

// inTx runs fn in a transaction of db: committed when fn returns nil,
// rolled back otherwise.
func inTx(ctx context.Context, db *sql.DB, opts *sql.TxOptions, fn func(sqlstore.Querier) error) error {
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	if err := fn(querier{tx}); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	return tx.Commit()
}

// ignoreDone drops the error of rolling back a transaction the context's
// end rolled back already.
func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// conn is what *sql.DB and *sql.Tx share.
type conn interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// querier adapts a conn to sqlstore.Querier.
type querier struct{ c conn }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	r, err := q.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	r, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.c.QueryRowContext(ctx, query, args...)
}
