package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// reason is the store.NotReadyError reason of an error of PostgreSQL's
// storage, by its SQLSTATE, "" for any other error.
func reason(err error) string {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return ""
	}
	switch e.Code {
	case "53100": // disk_full
		return store.DiskFull
	case "25006": // read_only_sql_transaction: a standby, default_transaction_read_only
		return store.ReadOnly
	case "58030": // io_error
		return store.IOError
	case "XX001", "XX002": // data_corrupted, index_corrupted
		return store.Corrupt
	}
	return ""
}

// writer is the pool's single statements that write, telling health their
// outcome.
type writer struct {
	q      querier
	health *sqlstore.Health
}

func (w writer) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	n, err := w.q.Exec(ctx, sql, args...)
	w.health.Observe(err)
	return n, err
}

func (w writer) QueryRow(ctx context.Context, sql string, args ...any) sqlstore.Row {
	return observedRow{w.q.QueryRow(ctx, sql, args...), w.health}
}

// observedRow is a row whose statement runs when it is scanned.
type observedRow struct {
	row    sqlstore.Row
	health *sqlstore.Health
}

func (r observedRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	r.health.Observe(err)
	return err
}
