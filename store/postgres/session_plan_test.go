package postgres_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/internal/sqlstore"
)

// TestSessionFilterReadsItsRange: GET /v1/errors?session_id= reads, of a
// recorded session, the tenant's range of occurrences_by_received
// between the session's opening and its end, in the index's order (no
// sort), its bounds looked up once (init plans); of another id, the
// tenant's latest by its range of occurrences_by_tenant, behind a
// one-time filter (the session has no record), so that a recorded
// session's statement never walks it. No scan of a table: its cost is
// bounded by store.MaxSessionScan whatever the tenant holds.
func TestSessionFilterReadsItsRange(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Config{})
	defer s.Close()
	// Tenant a's few occurrences and sessions among b's many.
	for i := range 400 {
		tenant := s.Tenant("b")
		if i%50 == 0 {
			tenant = s.Tenant("a")
		}
		if _, err := tenant.OpenSession(t.Context(), store.MCPSession{SessionID: fmt.Sprint("s-", i)}); err != nil {
			t.Fatal(err)
		}
		o := occurrence(fmt.Sprint("d", i))
		o.ErrorID = fmt.Sprint("e", i%30)
		o.Report = json.RawMessage(fmt.Sprintf(`{"data": {"context": {"session_id": "s-%d"}}}`, i%7))
		if _, err := tenant.SaveOccurrence(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	conn := connect(t, dbURL)
	// The planner rightly reads tables this small whole, and a range it
	// expects to be small by a bitmap, then sorts it: the check is that
	// the indexes serve each read, in order (see docs/service.md).
	for _, q := range []string{"ANALYZE occurrences; ANALYZE mcp_sessions; ANALYZE records", "SET enable_seqscan = off", "SET enable_bitmapscan = off"} {
		if _, err := conn.Exec(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	query, args, err := sqlstore.ErrorRecordsSQL(sqlstore.Dialect{XidPositions: true}, time.Now(), "a", store.Filter{SessionID: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	plan := explainPG(t, conn, query, args...)
	t.Log(plan)
	for _, want := range []string{
		"Index Scan using occurrences_by_received on occurrences",
		"Index Scan Backward using occurrences_by_tenant on occurrences",
		"One-Time Filter: (NOT ",
		"using mcp_sessions_pkey on mcp_sessions",
	} {
		if !strings.Contains(plan, want) {
			t.Errorf("the plan of the session filter has no %q", want)
		}
	}
	if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Sort Key: occurrences") {
		t.Errorf("the plan of the session filter reads a table whole, or sorts the occurrences")
	}
	if !strings.Contains(plan, "Index Cond: ((tenant = 'a'::text) AND (received_at >= ") ||
		!strings.Contains(plan, ") AND (received_at <= ") {
		t.Errorf("the plan of the session filter does not bound occurrences_by_received's range by the session's times")
	}
}
