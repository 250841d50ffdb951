package postgres

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/riverjobs"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// The migrations' advisory locks are per schema: each is a key of two
// 32-bit halves (a key space apart from the single 64-bit keys), a
// class of its own and the hash of the schema the tables go to
// (current_schema(), the first of the search path), taken exclusively,
// so that the instances of one schema take turns while those of other
// schemas, in one database, migrate side by side. Two schemas whose
// names hash alike take turns, as every schema did before. An earlier
// build took one database-wide key (0x7472696167650001, River's
// …0002), which this one does not wait for: an instance of each
// migrating one schema at once is kept apart by the migrations'
// transaction (the one that commits second fails on schema_migrations'
// key, or on what the first created, and applies nothing; its Open
// fails, and the next finds the schema migrated or newer), not by the
// lock. Taking that key shared besides, to wait for earlier builds,
// queued every schema's Open behind their migrations (PostgreSQL
// queues a shared request behind a waiting exclusive one): the wait
// this lock removes.
const (
	// migrationLockClass is the class of the store's per-schema keys.
	migrationLockClass = 0x74720001 // "tr", 1
	// riverMigrationLockClass is River's.
	riverMigrationLockClass = 0x74720002 // "tr", 2
)

// schemaLockSQL is the statement that takes the key of class for the
// schema: f is pg_advisory_xact_lock (held until the transaction ends)
// or pg_advisory_lock (until unlocked, schemaUnlockSQL).
func schemaLockSQL(f string, class int32) string {
	return fmt.Sprintf("SELECT %s(%d, hashtext(COALESCE(current_schema(), '')))", f, class)
}

// schemaUnlockSQL releases the session lock schemaLockSQL took.
func schemaUnlockSQL(class int32) string {
	return fmt.Sprintf("SELECT pg_advisory_unlock(%d, hashtext(COALESCE(current_schema(), '')))", class)
}

// migrationLockSQL is the statement that takes the store's migration locks
// for the migrations' transaction, which holds them until it ends,
// however it ends.
var migrationLockSQL = schemaLockSQL("pg_advisory_xact_lock", migrationLockClass)

var dialect = sqlstore.Dialect{
	Name:          "postgres",
	Least:         "LEAST",
	Greatest:      "GREATEST",
	ForUpdate:     " FOR UPDATE",
	MigrationLock: migrationLockSQL,
	WritableCTE:   true,
	InsertJob: `INSERT INTO river_job (args, kind, max_attempts, state, scheduled_at, metadata, created_at)
		VALUES ($1::jsonb, $2, $3, $4::river_job_state, $5, $6::jsonb, $7)`,
	RiverTime:       func(t time.Time) any { return t },
	XidPositions:    true, // migrations/0006_occurrence_xid.sql
	WritesHoldConns: true,
	FullText:        sqlstore.TSVector, // migrations/0017_search.sql
}

// Store is a store.Store in a PostgreSQL database, which many instances of
// the service may share. It is safe for concurrent use.
type Store struct {
	core   *sqlstore.Store
	pool   *pgxpool.Pool
	health *sqlstore.Health
	river  *river.Client[pgx.Tx]
}

var _ store.Store = (*Store)(nil)

// DefaultMaxConns is the connection pool's size unless the URL sets
// pool_max_conns.
const DefaultMaxConns = 32

// Open connects to the database at url (a postgres:// URL or a keyword/value
// connection string, as pgx reads them) and applies the migrations it
// lacks. The tables go to the first schema of the search path, which the
// URL may set (search_path=…).
func Open(ctx context.Context, url string, opts store.Config) (*Store, error) {
	return open(ctx, url, opts, nil)
}

// open is Open, with configure (when not nil) given the pool's
// configuration before the pool is made: the tests' tracer.
func open(ctx context.Context, url string, opts store.Config, configure func(*pgxpool.Config)) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors leave the password out.
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		// pgx's default, four connections on a two-core machine, queues
		// a busy service's requests behind each other's commits; the
		// database batches concurrent commits itself.
		cfg.MaxConns = DefaultMaxConns
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	db := database{pool, sqlstore.NewHealth(reason)}
	queue, err := riverjobs.New(riverpgxv5.New(pool), txOf)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := migrateRiver(ctx, pool, queue); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if _, err := sqlstore.Migrate(ctx, db, dialect, migrationFiles, "migrations"); err != nil {
		pool.Close()
		return nil, err
	}
	if _, err := pool.Exec(ctx, forgetForeignRunXids); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if _, err := pool.Exec(ctx, forgetForeignXids); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	return &Store{core: sqlstore.New(db, dialect, opts, queue), pool: pool, health: db.health, river: queue.Client()}, nil
}

// migrateRiver applies River's migrations (before the store's, whose
// 0010 uses River's table), holding River's migration locks (per schema,
// as the store's) on a connection of its own.
func migrateRiver(ctx context.Context, pool *pgxpool.Pool, queue *riverjobs.Queue[pgx.Tx]) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, schemaLockSQL("pg_advisory_lock", riverMigrationLockClass)); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), schemaUnlockSQL(riverMigrationLockClass)); err != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // the session's lock goes with it
		}
	}()
	return queue.MigrateDB(ctx)
}

// forgetForeignXids clears the stream positions (transaction IDs) of
// occurrences that another cluster wrote: a logical restore (pg_dump) or
// a move to a new cluster brings xids this one has not reached, which a
// transaction here would take again (a duplicate position) and which the
// streams would send as new once it does. Those occurrences are history:
// they are no longer streamed. An xid at or past the snapshot's xmax is
// one no transaction of this cluster has taken yet.
const forgetForeignXids = `UPDATE occurrences SET xid = NULL
	WHERE xid >= pg_snapshot_xmax(pg_current_snapshot())`

// forgetForeignRunXids does the same for the positions of runs' ends.
const forgetForeignRunXids = `UPDATE runs SET ended_xid = NULL
	WHERE ended_xid >= pg_snapshot_xmax(pg_current_snapshot())`

// Tenant returns the view of one tenant's data.
func (s *Store) Tenant(id string) store.Tenant { return s.core.Tenant(id) }

// Jobs returns the durable job queue, shared by every tenant.
func (s *Store) Jobs() store.Jobs { return s.core.Jobs() }

// RiverClient returns the River client the job queue inserts with, on the
// store's pool, for River's own tools: its web UI (adapter/riverui) lists,
// retries and cancels the jobs through it. Jobs inserted through it
// outside Triage's kinds are never run.
func (s *Store) RiverClient() *river.Client[pgx.Tx] { return s.river }

// Expire deletes the bookkeeping older than r keeps: delivery claims,
// idempotency keys, attempt counts, graph checkpoints, run records.
func (s *Store) Expire(ctx context.Context, r store.Retention) (int64, error) {
	return s.core.Expire(ctx, r)
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Ready reports whether a write can be committed now: see
// store.Store.Ready. Every write's outcome tells it; its probe is a write
// of the heartbeat row.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.Ping(ctx); err != nil {
		r := reason(err) // a connection that cannot open its files
		if r == "" {
			r = store.NotReachable
		}
		return &store.NotReadyError{Reason: r, Since: time.Now(), Err: err}
	}
	return s.health.Ready(ctx, s.core.Heartbeat)
}

// Close closes the connections, once the ones in use are released.
func (s *Store) Close() error {
	s.core.Close() // its background releases use the pool
	s.pool.Close()
	return nil
}

// database adapts the pool to sqlstore.DB. It tells health the outcome of
// every write.
type database struct {
	pool   *pgxpool.Pool
	health *sqlstore.Health
}

func (d database) Writer() sqlstore.Execer  { return writer{querier{d.pool}, d.health} }
func (d database) Reader() sqlstore.Querier { return querier{d.pool} }
func (d database) Conns() int               { return int(d.pool.Config().MaxConns) }

func (d database) Write(ctx context.Context, fn func(sqlstore.Querier) error) error {
	err := d.inTx(ctx, pgx.TxOptions{}, fn)
	d.health.Observe(err)
	return err
}

// Read runs fn in a read-only REPEATABLE READ transaction: its statements
// see one snapshot.
func (d database) Read(ctx context.Context, fn func(sqlstore.Querier) error) error {
	return d.inTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

func (d database) inTx(ctx context.Context, opts pgx.TxOptions, fn func(sqlstore.Querier) error) error {
	return pgx.BeginTxFunc(ctx, d.pool, opts, func(tx pgx.Tx) error { return fn(querier{tx}) })
}

// txOf returns the transaction a Querier of database's Write or Read runs
// on.
func txOf(q sqlstore.Querier) (pgx.Tx, error) {
	if qq, ok := q.(querier); ok {
		if tx, ok := qq.c.(pgx.Tx); ok {
			return tx, nil
		}
	}
	return nil, fmt.Errorf("postgres: %T is not a transaction", q)
}

// conn is what *pgxpool.Pool and pgx.Tx share.
type conn interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// querier adapts a conn to sqlstore.Querier. pgx.ErrNoRows is
// sql.ErrNoRows to errors.Is.
type querier struct{ c conn }

func (q querier) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := q.c.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (q querier) Query(ctx context.Context, sql string, args ...any) (sqlstore.Rows, error) {
	r, err := q.c.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

func (q querier) QueryRow(ctx context.Context, sql string, args ...any) sqlstore.Row {
	return q.c.QueryRow(ctx, sql, args...)
}

// rows adapts pgx.Rows, whose Close reports nothing: Err tells what ended
// the rows.
type rows struct{ pgx.Rows }

func (r rows) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}
