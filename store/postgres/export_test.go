package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/triage-go/triage/store/internal/riverjobs"
	"github.com/triage-go/triage/store/internal/sqlstore"
	"github.com/triage-go/triage/store/storetest"
)

// OldSchema makes the database at url of the schema of the migrations up
// to last (River's first: 0010 uses its table), and fills it with the
// statements fill executes, in one transaction: a database an older
// build left, which Open then migrates the rest of the way. With fill nil
// the caller fills it (in transactions of its own).
func OldSchema(ctx context.Context, url string, last int64, fill func(exec storetest.Exec) error) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	queue, err := riverjobs.New(riverpgxv5.New(pool), txOf)
	if err != nil {
		return err
	}
	if err := migrateRiver(ctx, pool, queue); err != nil {
		return err
	}
	applied, err := sqlstore.MigrateTo(ctx, database{pool, sqlstore.NewHealth(reason)}, dialect, migrationFiles, "migrations", last)
	if err != nil {
		return err
	}
	if len(applied) == 0 || applied[len(applied)-1] != last {
		return fmt.Errorf("migrating to %04d applied %v", last, applied)
	}
	if fill == nil {
		return nil
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return fill(func(query string, args ...any) error {
			_, err := tx.Exec(ctx, query, args...)
			return err
		})
	})
}

// The migrations' locks, for TestSchemasMigrateApart: the statement an
// instance takes its schema's with, their class, and the database-wide
// key an earlier build took.
var MigrationLockSQL = migrationLockSQL

const (
	MigrationLockClass    = migrationLockClass
	DatabaseMigrationLock = 0x7472696167650001
)
