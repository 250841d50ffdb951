package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/storetest"
)

// refuse makes the writes of table (its statements op: INSERT, DELETE,
// UPDATE, or several joined by OR) fail with SQLSTATE code, as PostgreSQL
// fails them on a full disk (53100) or a read-only database (25006); or,
// with code "", takes them again. The trigger is the test schema's.
func refuse(t *testing.T, dbURL, table, op, code string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	stmts := []string{`DROP TRIGGER IF EXISTS refuse_` + table + ` ON ` + table}
	if code != "" {
		stmts = append(stmts,
			`CREATE OR REPLACE FUNCTION refuse_`+table+`() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '`+code+`'; END $$`,
			`CREATE TRIGGER refuse_`+table+` BEFORE `+op+` ON `+table+` FOR EACH STATEMENT EXECUTE FUNCTION refuse_`+table+`()`)
	}
	for _, s := range stmts {
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
}

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

// TestReadyFollowsWrites: a write that fails with disk_full (53100) or
// read_only_sql_transaction (25006) makes Ready fail with that reason while
// its probe (the heartbeat row) fails too, and Ready recovers once a write
// commits again: the store keeps no state that needs a restart.
func TestReadyFollowsWrites(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	if err := s.Ready(t.Context()); err != nil {
		t.Fatalf("Ready: %v", err)
	}
	for _, c := range []struct{ code, reason string }{{"53100", store.DiskFull}, {"25006", store.ReadOnly}} {
		refuse(t, dbURL, "agents", "INSERT OR UPDATE", c.code)
		refuse(t, dbURL, "heartbeat", "INSERT OR UPDATE", c.code)
		if err := s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "agent", CallbackURL: "http://x"}); err == nil {
			t.Fatal("the write succeeded")
		}
		if r := reasonOf(t, s.Ready(t.Context())); r != c.reason {
			t.Fatalf("Ready after SQLSTATE %s: %q, want %q", c.code, r, c.reason)
		}
		if err := s.Ping(t.Context()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		refuse(t, dbURL, "agents", "", "")
		refuse(t, dbURL, "heartbeat", "", "")
		time.Sleep(store.ReadyProbeEvery) // till then, Ready answers its latest probe's outcome
		if err := s.Ready(t.Context()); err != nil {
			t.Fatalf("Ready once the writes commit again: %v", err)
		}
		if err := s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "agent", CallbackURL: "http://x"}); err != nil {
			t.Fatalf("the write once the database takes it: %v", err)
		}
	}
}

// TestReleaseRetried runs storetest.ReleaseRetried: a trigger refuses the
// deletes of delivery claims with disk_full.
func TestReleaseRetried(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	storetest.ReleaseRetried(t, func(t *testing.T, opts store.Config) store.Store {
		return open(t, dbURL, opts)
	}, func(t *testing.T, on bool) {
		code := ""
		if on {
			code = "53100"
		}
		refuse(t, dbURL, "deliveries", "DELETE", code)
	})
}
