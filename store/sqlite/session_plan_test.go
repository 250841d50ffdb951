package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestSessionFilterReadsItsRange: GET /v1/errors?session_id= reads, of a
// recorded session, the tenant's range of occurrences_by_received
// between the session's opening and its end, in the index's order, its
// bounds looked up once by the sessions' key; of another id, the tenant's
// latest occurrences by its range of occurrences_by_tenant, newest first,
// its LIMIT 0 when the session has a record (which the conformance suite's
// RecordedSessionsWindow tells: a condition in the WHERE clause would
// filter the same rows out, but walk the whole range). No scan of a
// table, no sort but the merge's of the listed records (a page) and those
// behind the listing's indexes (migration 0028): its cost is bounded by
// store.MaxSessionScan whatever the tenant holds.
func TestSessionFilterReadsItsRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	query, args, err := sqlstore.ErrorRecordsSQL(dialect, time.Now(), "a", store.Filter{SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(explain(t, s, query, args...), "\n")
	t.Log(plan)
	for _, want := range []string{
		"SEARCH occurrences USING INDEX occurrences_by_received (tenant=? AND received_at>? AND received_at<?)",
		"SEARCH occurrences USING INDEX occurrences_by_tenant (tenant=?)",
		"SEARCH mcp_sessions USING INDEX sqlite_autoindex_mcp_sessions_1 (tenant=? AND session_id=?)",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan of the session filter has no %q", want)
		}
	}
	// The listed records and those behind the listing's indexes
	// (migration 0028) are merged: each part sorted, the listed a page at
	// most, the others a catch-up's worth at most.
	if _, right, ok := strings.Cut(plan, "\nRIGHT\n"); !strings.HasPrefix(plan, "MERGE (UNION ALL)") || !ok ||
		!strings.Contains(strings.Split(right, "\n")[0], "rowid>?)") {
		t.Error("the plan of the session filter does not merge the listed records with those behind, read by their range of seq")
	}
	sorts := 0
	for _, line := range strings.Split(plan, "\n") {
		if line == "USE TEMP B-TREE FOR ORDER BY" {
			sorts++
		}
		if strings.Contains(line, "SCAN occurrences") || strings.Contains(line, "SCAN mcp_sessions") || strings.Contains(line, "TEMP B-TREE") && sorts > 2 {
			t.Errorf("the plan of the session filter reads a table whole or sorts: %q", line)
		}
	}
}
