package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestSessionFilterReadsTheTenantsLatest: GET /v1/errors?session_id=
// reads the tenant's latest occurrences by its range of
// occurrences_by_tenant, newest first, with no sort (its cost bounded by
// store.MaxSessionScan whatever the tenant holds), once.
func TestSessionFilterReadsTheTenantsLatest(t *testing.T) {
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
	if !strings.Contains(plan, "SEARCH occurrences USING INDEX occurrences_by_tenant (tenant=?)") || strings.Contains(plan, "TEMP B-TREE FOR ORDER BY\n") && strings.Count(plan, "occurrences") > 1 {
		t.Errorf("the plan of the session filter:\n%s", plan)
	}
}
