package sqlite

import (
	"database/sql"
	"path/filepath"
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
	check(s.read, "query_only", "1")
	check(s.read, "busy_timeout", "10000")
	if n := s.write.Stats().MaxOpenConnections; n != 1 {
		t.Errorf("the writer has up to %d connections, want 1", n)
	}
	if _, err := s.read.ExecContext(t.Context(), "DELETE FROM records"); err == nil {
		t.Error("a reader connection wrote")
	}
}
