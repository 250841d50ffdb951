package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"github.com/triage-go/triage/store/internal/sqlstore"
)

// stmtCacheLimit bounds the statements a stmtCache keeps prepared: the
// store's queries are a fixed set (ErrorRecords' filters make a few dozen
// of them), but a statement beyond the bound runs unprepared rather than
// grow the cache.
const stmtCacheLimit = 256

// stmtCache keeps the statements of one *sql.DB prepared, by query, so
// that SQLite parses and plans each once per connection rather than once
// per run (modernc.org/sqlite reuses a prepared statement's handle).
type stmtCache struct {
	db *sql.DB
	mu sync.Mutex
	// m holds the prepared statements, and nil for the queries that
	// failed to prepare (they run unprepared, and report their error).
	m map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// get returns the prepared statement of query, and whether the cache
// knows query (a nil statement it knows failed to prepare).
func (c *stmtCache) get(query string) (*sql.Stmt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[query]
	return s, ok || len(c.m) >= stmtCacheLimit
}

// prepare prepares query, unless the cache knows it or is full, and
// returns its statement (nil when it is not prepared). It takes a
// connection of the pool: a caller holding one (in a transaction) must
// not call it, lest the pool run dry.
func (c *stmtCache) prepare(ctx context.Context, query string) *sql.Stmt {
	if s, known := c.get(query); known {
		return s
	}
	s, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		if ctx.Err() != nil {
			return nil // not the query's fault: try again next time
		}
		s = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prior, ok := c.m[query]; ok || len(c.m) >= stmtCacheLimit {
		if s != nil {
			s.Close()
		}
		return prior
	}
	c.m[query] = s
	return s
}

// close closes the statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.m {
		if s != nil {
			s.Close()
		}
		delete(c.m, q)
	}
}

// dbQuerier is a sqlstore.Querier on a pool, through its prepared
// statements.
type dbQuerier struct {
	db    *sql.DB
	cache *stmtCache
}

func (q dbQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	var (
		r   sql.Result
		err error
	)
	if s := q.cache.prepare(ctx, query); s != nil {
		r, err = s.ExecContext(ctx, args...)
	} else {
		r, err = q.db.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (q dbQuerier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	var (
		rows *sql.Rows
		err  error
	)
	if s := q.cache.prepare(ctx, query); s != nil {
		rows, err = s.QueryContext(ctx, args...)
	} else {
		rows, err = q.db.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// QueryRow runs a one-row read. Its context is checked before, not
// watched during it: the store's one-row reads are bounded (a lookup by
// key, or a count up to a bound), and watching a context that can end (a
// request's) costs two goroutines a statement, database/sql's and the
// driver's, each made and ended.
func (q dbQuerier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	if err := ctx.Err(); err != nil {
		return errRow{err}
	}
	ctx = context.WithoutCancel(ctx)
	if s := q.cache.prepare(ctx, query); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
}

// txQuerier is a sqlstore.Querier on a transaction, through the prepared
// statements of its pool.
type txQuerier struct {
	tx    *sql.Tx
	cache *stmtCache
	// noCancel keeps the statements from being interrupted when their
	// ctx ends (see writer).
	noCancel bool

	// stmts are the transaction's statements, by query; busy are those
	// whose rows are open: a statement runs once at a time, so a query
	// run again while its rows are open runs unprepared.
	stmts map[string]*sql.Stmt
	busy  map[string]bool
	// rows are the results open: closeRows closes them.
	rows []*txRows
	// missed are the queries to prepare once the transaction ends (the
	// pool may have no other connection to prepare them on until then).
	missed []string
}

func newTxQuerier(tx *sql.Tx, cache *stmtCache, noCancel bool) *txQuerier {
	return &txQuerier{tx: tx, cache: cache, noCancel: noCancel}
}

// stmt returns the transaction's statement of query; nil when query is
// to run unprepared.
func (q *txQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	if q.busy[query] {
		return nil
	}
	if s, ok := q.stmts[query]; ok {
		return s
	}
	prepared, known := q.cache.get(query)
	if !known {
		q.missed = append(q.missed, query)
	}
	if prepared == nil {
		return nil
	}
	s := q.tx.StmtContext(ctx, prepared)
	if q.stmts == nil {
		q.stmts = map[string]*sql.Stmt{}
	}
	q.stmts[query] = s
	return s
}

// prepareMissed prepares the queries the transaction ran unprepared. Call
// it once the transaction ended.
func (q *txQuerier) prepareMissed(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for _, query := range q.missed {
		q.cache.prepare(ctx, query)
	}
	q.missed = nil
}

func (q *txQuerier) context(ctx context.Context) context.Context {
	if q.noCancel {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func (q *txQuerier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx = q.context(ctx)
	var (
		r   sql.Result
		err error
	)
	if s := q.stmt(ctx, query); s != nil {
		r, err = s.ExecContext(ctx, args...)
	} else {
		r, err = q.tx.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

// ExecID is Exec, with the rowid the statement inserted last (see
// sqlstore.IDQuerier).
func (q *txQuerier) ExecID(ctx context.Context, query string, args ...any) (id, rowsAffected int64, err error) {
	ctx = q.context(ctx)
	var r sql.Result
	if s := q.stmt(ctx, query); s != nil {
		r, err = s.ExecContext(ctx, args...)
	} else {
		r, err = q.tx.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, 0, err
	}
	if rowsAffected, err = r.RowsAffected(); err != nil {
		return 0, 0, err
	}
	id, err = r.LastInsertId()
	return id, rowsAffected, err
}

func (q *txQuerier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return q.query(ctx, query, args)
}

func (q *txQuerier) query(ctx context.Context, query string, args []any) (*txRows, error) {
	ctx = q.context(ctx)
	var (
		rows *sql.Rows
		err  error
	)
	s := q.stmt(ctx, query)
	if s != nil {
		rows, err = s.QueryContext(ctx, args...)
	} else {
		rows, err = q.tx.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, err
	}
	r := &txRows{Rows: rows, q: q}
	if s != nil {
		r.query = query
		if q.busy == nil {
			q.busy = map[string]bool{}
		}
		q.busy[query] = true
	}
	q.rows = append(q.rows, r)
	return r, nil
}

func (q *txQuerier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	rows, err := q.query(ctx, query, args)
	if err != nil {
		return errRow{err}
	}
	return firstRow{rows}
}

// closeRows closes the results left open, so that none holds the
// transaction, and returns the first error.
func (q *txQuerier) closeRows() error {
	var first error
	for _, r := range q.rows {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	clear(q.rows)
	q.rows = q.rows[:0]
	return first
}

// txRows are the rows of a txQuerier's statement.
type txRows struct {
	*sql.Rows
	q     *txQuerier
	query string // the prepared statement's, "" for an unprepared one
}

func (r *txRows) Close() error {
	if r.query != "" {
		delete(r.q.busy, r.query)
		r.query = ""
	}
	return r.Rows.Close()
}

// firstRow is the first row of a result, as a *sql.Row is.
type firstRow struct{ rows *txRows }

func (r firstRow) Scan(dest ...any) error {
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	return r.rows.Close()
}

// errRow is a row that failed.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
