package sqlite

import (
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/triage-go/triage/store"
)

// TestPragmas checks the settings durability and concurrency rest on.
func TestPragmas(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(db *sql.DB, pragma, want string) {
		t.Helper()
		var got string
		if err := db.QueryRowContext(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	check(s.write, "journal_mode", "wal")
	check(s.write, "synchronous", "2") // FULL
	check(s.write, "foreign_keys", "1")
	check(s.write, "temp_store", "2")     // MEMORY
	check(s.write, "cache_size", "-2000") // the default: see dsn
	check(s.write, "busy_timeout", "10000")
	check(s.write, "wal_autocheckpoint", strconv.Itoa(walAutocheckpoint))
	check(s.write, "page_size", strconv.Itoa(pageSize))
	check(s.read, "query_only", "1")
	check(s.read, "busy_timeout", "10000")
	if n := s.write.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("the writer has up to %d connections, want 1", n)
	}
	if _, err := s.read.ExecContext(t.Context(), "DELETE FROM records"); err == nil {
		t.Error("a reader connection wrote")
	}
}

// TestPageSize: a new store's pages are pageSize (2 KB); a store made
// with SQLite's default 4 KB pages keeps them, and works.
func TestPageSize(t *testing.T) {
	if pageSize != 2048 {
		t.Errorf("pageSize = %d, want 2048 (docs/service.md measures it)", pageSize)
	}
	pageOf := func(s *Store) int {
		t.Helper()
		var n int
		if err := s.read.QueryRowContext(t.Context(), "PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "new.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if n := pageOf(s); n != pageSize {
		t.Errorf("a new store's page size is %d, want %d", n, pageSize)
	}
	s.Close()

	// A database of 4 KB pages in WAL mode, as the store made them before.
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path+"?_pragma=page_size(4096)")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode = WAL", "CREATE TABLE before_us (x)"} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err = Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := pageOf(s); n != 4096 {
		t.Errorf("an existing store's page size is %d, want it kept (4096)", n)
	}
	reportTitled(t, s.Tenant("default"), "d_old", "err_old", "kept pages")
	var title string
	if err := s.read.QueryRowContext(t.Context(), `SELECT title FROM records WHERE error_id = 'err_old'`).Scan(&title); err != nil || title != "kept pages" {
		t.Errorf("the report's record on 4 KB pages: %q, %v", title, err)
	}
}
