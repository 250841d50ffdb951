package sqlite_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/disktest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/store/storetest"
)

// reasonOf is the reason Ready's error gives, "" for nil.
func reasonOf(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var nr *store.NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("Ready's error %v is not a *store.NotReadyError", err)
	}
	return nr.Reason
}

// TestReadOnlyFileRecovers: a store opened on a database file it may not
// write (the service started so) is not ready, and every write fails;
// once the file is writable again, the same store is ready and writes
// again, without a restart, and its readers see what it wrote. SQLite
// opens such a file read-only, silently, and the connection stayed so.
func TestReadOnlyFileRecovers(t *testing.T) {
	if !disktest.InSubprocess(t, disktest.Options{Unprivileged: true}) {
		return
	}
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "before", CallbackURL: "http://x"}))
	must(t, s.Close())
	disktest.Chmod(t, 0o444, path) // SQLite makes the -wal and -shm files with the database's mode
	s, err = sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatalf("Open on a read-only file: %v", err)
	}
	defer s.Close()
	if _, err := s.Tenant("a").Next(t.Context(), "q|E"); err == nil {
		t.Fatal("a write to a read-only file succeeded")
	}
	if r := reasonOf(t, s.Ready(t.Context())); r != store.ReadOnly {
		t.Fatalf("Ready on a read-only file: %q, want %q", r, store.ReadOnly)
	}
	if _, ok, err := s.Tenant("a").Agent(t.Context(), "before"); err != nil || !ok {
		t.Fatalf("a read of a read-only file: %v, %v", ok, err)
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v (the file is readable)", err)
	}

	disktest.Writable(t, path)
	time.Sleep(store.ReadyProbeEvery) // till then, Ready answers its latest probe's outcome
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready once the file is writable: %v", err)
	}
	if n, err := s.Tenant("a").Next(t.Context(), "q|E"); err != nil || n != 1 {
		t.Fatalf("a write once the file is writable: %d, %v", n, err)
	}
	must(t, s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "after", CallbackURL: "http://y"}))
	if a, ok, err := s.Tenant("a").Agent(t.Context(), "after"); err != nil || !ok || a.CallbackURL != "http://y" {
		t.Fatalf("reading back the write: %+v, %v, %v", a, ok, err)
	}
}

// TestFileSizeLimit: with every write of the files refused (a file size
// limit of 0, RLIMIT_FSIZE: what a full disk does to a write that needs
// room), writes fail, Ready is not, and a claim whose release failed does
// not hold the retry; once the limit is lifted, Ready is, and the writes
// go on.
func TestFileSizeLimit(t *testing.T) {
	if !disktest.InSubprocess(t, disktest.Options{Own: true}) {
		return
	}
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := s.Tenant("a")
	req := triage.StartRequest{Key: "delivery", AttemptKey: "q|E", Agent: "agent", Code: "E"}
	if res, err := tn.Start(t.Context(), req); err != nil || !res.First {
		t.Fatalf("Start: %+v, %v", res, err)
	}
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready: %v", err)
	}

	lift := disktest.LimitFileSize(t, 0)
	big := strings.Repeat("x", 64<<10)
	failed := false
	for i := range 64 { // past what the WAL's pages hold already
		if err := tn.PutAgent(t.Context(), store.Agent{ID: fmt.Sprint("agent", i), CallbackURL: big}); err != nil {
			failed = true
			break
		}
	}
	if !failed {
		t.Fatal("every write succeeded under a file size limit of 0")
	}
	if r := reasonOf(t, s.Ready(t.Context())); r != store.IOError && r != store.DiskFull {
		t.Fatalf("Ready under the limit: %q, want io_error or disk_full", r)
	}
	if err := tn.Release(t.Context(), "delivery"); err == nil {
		t.Log("the release fit in the WAL") // the claim goes anyway
	}

	lift()
	time.Sleep(store.ReadyProbeEvery)
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready once the limit is lifted: %v", err)
	}
	if res, err := tn.Start(t.Context(), req); err != nil || !res.First {
		t.Fatalf("the retry once the limit is lifted: %+v, %v; want it handled anew", res, err)
	}
	must(t, tn.PutAgent(t.Context(), store.Agent{ID: "after", CallbackURL: big}))
}

// TestReleaseRetried runs storetest.ReleaseRetried: a trigger refuses the
// deletes of delivery claims.
func TestReleaseRetried(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	storetest.ReleaseRetried(t, func(t *testing.T, opts store.Config) store.Store {
		s, err := sqlite.Open(t.Context(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, func(t *testing.T, on bool) {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		stmt := `DROP TRIGGER refuse_release`
		if on {
			stmt = `CREATE TRIGGER refuse_release BEFORE DELETE ON deliveries BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`
		}
		if _, err := db.ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
