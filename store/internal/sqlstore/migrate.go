package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage/store"
)

// migration is one numbered schema change.
type migration struct {
	version int64
	name    string
	sql     string
}

// migrations reads the files NNNN_name.sql of dir in fsys, by version.
func migrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var list []migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		digits, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: the name does not start with a version number", name)
		}
		if i := slices.IndexFunc(list, func(m migration) bool { return m.version == v }); i >= 0 {
			return nil, fmt.Errorf("migrations %s and %s have one version", list[i].name, name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		list = append(list, migration{version: v, name: name, sql: string(b)})
	}
	slices.SortFunc(list, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	return list, nil
}

// Migrate applies the migrations of dir in fsys (files NNNN_name.sql) that
// the database's schema_migrations table does not list, in order, in one
// transaction: the schema is either migrated completely or left as it was.
// It refuses (store.ErrNewerSchema) a database that lists a migration it does
// not know: a later build migrated it, and what that build writes, this
// one's code may misread.
// The dialect's MigrationLock (or, on SQLite, the write transaction)
// serialises the instances that migrate one database at once: the later
// ones find the migrations applied. It returns the versions applied.
func Migrate(ctx context.Context, db DB, d Dialect, fsys fs.FS, dir string) ([]int64, error) {
	return MigrateTo(ctx, db, d, fsys, dir, math.MaxInt64)
}

// MigrateTo is Migrate, with the migrations up to version last only: a
// database of an older schema, which the migrations' tests fill and then
// migrate the rest of the way.
func MigrateTo(ctx context.Context, db DB, d Dialect, fsys fs.FS, dir string, last int64) ([]int64, error) {
	list, err := migrations(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: migrate: %w", d.Name, err)
	}
	list = slices.DeleteFunc(list, func(m migration) bool { return m.version > last })
	var applied []int64
	err = db.Write(ctx, func(q Querier) error {
		applied = nil
		if d.MigrationLock != "" {
			if _, err := q.Exec(ctx, d.MigrationLock); err != nil {
				return err
			}
		}
		if _, err := q.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version BIGINT PRIMARY KEY,
			name TEXT NOT NULL,
			applied_at BIGINT NOT NULL
		)`); err != nil {
			return err
		}
		done := map[int64]bool{}
		rows, err := q.Query(ctx, `SELECT version FROM schema_migrations`)
		err = scanAll(rows, err, func(row Row) error {
			var v int64
			err := row.Scan(&v)
			done[v] = true
			return err
		})
		if err != nil {
			return err
		}
		// A schema a later build migrated is not this build's to use: its
		// code would misread what the later one writes.
		for v := range done {
			if !slices.ContainsFunc(list, func(m migration) bool { return m.version == v }) {
				return fmt.Errorf("%w: it has migration %04d, which this build does not know", store.ErrNewerSchema, v)
			}
		}
		for _, m := range list {
			if done[m.version] {
				continue
			}
			if _, err := q.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if _, err := q.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, nanos(time.Now())); err != nil {
				return err
			}
			applied = append(applied, m.version)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: migrate: %w", d.Name, err)
	}
	return applied, nil
}
