package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// Exec executes a statement of a migration test's filling of a database
// of an older schema (its arguments $1, $2, …), in the transaction that
// fills it.
type Exec func(query string, args ...any) error

// FillOldCounts writes, with exec, records of the schema before the
// hourly counts were keyed by the record's seq (SQLite's migration 0022,
// PostgreSQL's 0023), whose triggers count them by error ID: tenant a's
// e1 twice in the hour before now, its e2 once now, tenant b's e1 four
// times now. CheckMigratedCounts checks them after the migration.
func FillOldCounts(now time.Time, exec Exec) error {
	for _, r := range []struct {
		tenant, errorID, agent string
		at                     time.Time
		n                      int
	}{
		{"a", "e1", "planner", now.Add(-time.Hour), 2},
		{"a", "e2", "sql", now, 1},
		{"b", "e1", "sql", now, 4},
	} {
		// The insert counts the first occurrence, each update one more.
		if err := exec(`INSERT INTO records (tenant, error_id, query_id, agent_id, error_type, severity,
			first_seen, last_seen, occurrence_count, code, title)
			VALUES ($1, $2, 'q', $3, 'query_error', 'low', $4, $4, 1, 'DB_TIMEOUT', 'DB_TIMEOUT: timed out')`,
			r.tenant, r.errorID, r.agent, r.at.UnixNano()); err != nil {
			return err
		}
		for range r.n - 1 {
			if err := exec(`UPDATE records SET occurrence_count = occurrence_count + 1
				WHERE tenant = $1 AND error_id = $2`, r.tenant, r.errorID); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckMigratedCounts checks the counts FillOldCounts wrote at now, on s
// migrated since: a record's series, the series by record and by agent
// read them, and the next occurrence of a record counts into its hour.
func CheckMigratedCounts(t *testing.T, s store.Store, now time.Time) {
	t.Helper()
	ctx := t.Context()
	lastTwo := func(tenant, errorID string) []int64 {
		t.Helper()
		c, found, err := s.Tenant(tenant).RecordCounts(ctx, errorID, store.CountFilter{})
		if err != nil || !found || len(c.Series) != 1 || len(c.Series[0].Counts) < 2 {
			t.Fatalf("RecordCounts(%s, %s) = %+v, %v, %v", tenant, errorID, c, found, err)
		}
		n := c.Series[0].Counts
		return n[len(n)-2:] // the hour before and this one
	}
	for _, c := range []struct {
		tenant, errorID string
		want            []int64
	}{{"a", "e1", []int64{2, 0}}, {"a", "e2", []int64{0, 1}}, {"b", "e1", []int64{0, 4}}} {
		if got := lastTwo(c.tenant, c.errorID); !slices.Equal(got, c.want) {
			t.Errorf("%s's %s: the last two hours count %v, want %v", c.tenant, c.errorID, got, c.want)
		}
	}
	byRecord, err := s.Tenant("a").Counts(ctx, store.CountFilter{})
	if err != nil || len(byRecord.Series) != 2 || byRecord.Series[0].Key != "e1" || byRecord.Series[0].Total != 2 ||
		byRecord.Series[1].Key != "e2" || byRecord.Series[1].Total != 1 {
		t.Errorf("tenant a's series by record = %+v, %v; want e1 (2), then e2 (1)", byRecord.Series, err)
	}
	byAgent, err := s.Tenant("b").Counts(ctx, store.CountFilter{By: store.CountByAgent})
	if err != nil || len(byAgent.Series) != 1 || byAgent.Series[0].Key != "sql" || byAgent.Series[0].Total != 4 {
		t.Errorf("tenant b's series by agent = %+v, %v; want sql (4)", byAgent.Series, err)
	}
	o := store.Occurrence{ErrorID: "e2", QueryID: "q", AgentID: "sql", ErrorType: "query_error", Severity: "low",
		ReceivedAt: now, Code: "DB_TIMEOUT", Title: "DB_TIMEOUT: timed out"}
	if _, err := s.Tenant("a").SaveOccurrence(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got := lastTwo("a", "e2"); got[1] != 2 {
		t.Errorf("a's e2 counts %v after one more occurrence, want 2 this hour", got)
	}
}
