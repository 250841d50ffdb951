package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestStreamsReadTheirTenantsRange checks the plans of the event streams'
// reads: each goes through its tenant's range of an index, so that what
// a stream costs does not grow with other tenants' rows (by the positions'
// own index, a tenant with few occurrences resuming from position 0 read
// the whole table).
func TestStreamsReadTheirTenantsRange(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ query, want string }{
		{sqlstore.FeedbackAfterSQL(dialect), "SEARCH occurrences USING INDEX occurrences_by_tenant (tenant=? AND rowid>?)"},
		{sqlstore.RunsEndedAfterSQL(dialect), "SEARCH runs USING INDEX runs_by_tenant_end (tenant=? AND ended_pos>?)"},
	} {
		rows, err := s.read.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+c.query, "a", 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(plan) != 1 || plan[0] != c.want {
			t.Errorf("the plan of\n%s\nis\n%s\nwant %s (the tenant's range, in order, no sort)", c.query, strings.Join(plan, "\n"), c.want)
		}
	}
}
