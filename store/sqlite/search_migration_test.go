package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestSearchPerBatchMigration (since migration 0027, through to it)
// migrates a database of the schema before
// migration 0025 (records_fts written by the records' triggers) whose
// records were indexed, then writes through the queue 0025 makes: a new
// record, a record's new words, a record inserted and changed in one
// transaction, one inserted and deleted in one, one deleted once indexed.
// The index then holds exactly the records' words (FTS5's integrity-check
// against its content table), each search finds what it should, and the
// queue is empty.
func TestSearchPerBatchMigration(t *testing.T) {
	ctx := t.Context()
	s := openTitled(t, 24, "alpha", "beta")
	tn := s.Tenant("default")
	reportTitled(t, tn, "d_gamma", "err_gamma", "gamma after")
	reportTitled(t, tn, "d_beta2", "err_beta", "delta after") // beta's record, new words

	// Records copied from gamma's under new error IDs, by SQL: inserted
	// and changed, inserted and deleted, in one transaction each.
	var cols []string
	rows, err := s.read.QueryContext(ctx, `SELECT name FROM pragma_table_info('records') WHERE name NOT IN ('seq', 'error_id', 'title')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	list := strings.Join(cols, ", ")
	copyAs := func(q sqlstore.Querier, errorID, title string) error {
		_, err := q.Exec(ctx, fmt.Sprintf(`INSERT INTO records (error_id, title, %s) SELECT $1, $2, %s FROM records WHERE error_id = 'err_gamma'`, list, list), errorID, title)
		return err
	}
	exec := func(q sqlstore.Querier, query string, args ...any) error {
		_, err := q.Exec(ctx, query, args...)
		return err
	}
	for _, fn := range []func(q sqlstore.Querier) error{
		func(q sqlstore.Querier) error {
			if err := copyAs(q, "err_eps", "epsilon first"); err != nil {
				return err
			}
			return exec(q, `UPDATE records SET title = 'zeta second' WHERE error_id = 'err_eps'`)
		},
		func(q sqlstore.Querier) error {
			if err := copyAs(q, "err_eta", "eta gone"); err != nil {
				return err
			}
			return exec(q, `DELETE FROM records WHERE error_id = 'err_eta'`)
		},
		func(q sqlstore.Querier) error { return copyAs(q, "err_theta", "theta indexed") },
		func(q sqlstore.Querier) error { return exec(q, `DELETE FROM records WHERE error_id = 'err_theta'`) },
	} {
		if err := s.writer.write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}

	// The index behind the records (migration 0027) caught up, as a
	// search does first.
	if err := s.writer.catchUpNow(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.writer.write(ctx, func(q sqlstore.Querier) error {
		return exec(q, `INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)`)
	}); err != nil {
		t.Errorf("records_fts does not match the records: %v", err)
	}
	for word, want := range map[string][]string{
		"alpha": {"err_alpha"}, "gamma": {"err_gamma"}, "delta": {"err_beta"}, "beta": nil,
		"zeta": {"err_eps"}, "epsilon": nil, "eta": nil, "theta": nil,
	} {
		var got []string
		rows, err := s.read.QueryContext(ctx, `SELECT r.error_id FROM records_fts f JOIN records r ON r.seq = f.rowid WHERE records_fts MATCH ? ORDER BY 1`, "title:"+word)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q finds %v, want %v", word, got, want)
		}
	}
	assertCaughtUp(t, s)
}

// assertCaughtUp fails unless s's search index is caught up with every
// record it holds (migration 0027's mark at the greatest seq taken).
func assertCaughtUp(t *testing.T, s *Store) {
	t.Helper()
	var last, mark int64
	if err := s.read.QueryRowContext(t.Context(), behindSQL).Scan(&last, &mark); err != nil || mark != last {
		t.Errorf("the search index is at seq %d, the records at %d (%v)", mark, last, err)
	}
}

// reportTitled stores a new report of errorID whose record's title is
// title, as the service does (PeekReport, then Report).
func reportTitled(t *testing.T, tn store.Tenant, key, errorID, title string) {
	t.Helper()
	ctx := context.Background()
	req := triage.StartRequest{Key: key, AttemptKey: "q|" + key, Agent: "query_engine",
		Code: "DB_TIMEOUT", At: time.Now(), Window: time.Hour}
	occ := store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: "q_" + key,
		AgentID: "query_engine", ErrorType: "query_error", Severity: "medium", NextAction: "retry",
		Attempt: 1, ReportedAt: time.Now(), Report: json.RawMessage(`{"status":"error"}`),
		Feedback: json.RawMessage(`{"error_id":"` + errorID + `"}`), Code: "DB_TIMEOUT", Title: title}
	p, err := tn.PeekReport(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	occ.Attempt = p.Attempt
	if _, err := tn.Report(ctx, req, p.StartResult, occ); err != nil {
		t.Fatal(err)
	}
}

// openTitled opens a store migrated from the schema of migration from,
// which held one record per word, each reported once by reportTitled
// (delivery "d_"+word, error "err_"+word, titled word+" before"); it is
// closed at the test's end.
func openTitled(t *testing.T, from int64, words ...string) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "triage.db")
	oldSchema(t, path, from, func(old oldStore) error {
		for _, w := range words {
			reportTitled(t, old.Tenant("default"), "d_"+w, "err_"+w, w+" before")
		}
		return nil
	})
	s, err := Open(t.Context(), path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
