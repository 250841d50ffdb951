package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// oldFailures are the failures FillOldHistory writes, around at: tenant
// a's planner failed with E twice at -10 minutes, twice at +5 (after the
// window of a report at at) and once at -20, -5 and at; with F once at
// -1; tenant b's planner with E three times at -30 minutes.
var oldFailures = []struct {
	tenant, agent, code string
	at                  time.Duration
	n                   int
}{
	{"a", "planner", "E", -20 * time.Minute, 1},
	{"a", "planner", "E", -10 * time.Minute, 2},
	{"a", "planner", "E", -5 * time.Minute, 1},
	{"a", "planner", "E", 0, 1},
	{"a", "planner", "E", 5 * time.Minute, 2},
	{"a", "planner", "F", -time.Minute, 1},
	{"b", "planner", "E", -30 * time.Minute, 3},
}

// FillOldHistory writes, with exec, the handler's failures (oldFailures)
// in history as the schemas before SQLite's migration 0029 and
// PostgreSQL's 0029 kept them: a row per failure (on SQLite,
// history_counts counts them by trigger). CheckMigratedHistory checks
// them after the migration.
func FillOldHistory(at time.Time, exec Exec) error {
	for _, f := range oldFailures {
		for range f.n {
			if err := exec(`INSERT INTO history (tenant, agent, code, at) VALUES ($1, $2, $3, $4)`,
				f.tenant, f.agent, f.code, at.Add(f.at).UnixNano()); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckMigratedHistory checks the failures FillOldHistory wrote around
// at, on s migrated since: the windows' counts a peek reads are those of
// before, and the next failures recorded count those of their window and
// forget those before it.
func CheckMigratedHistory(t *testing.T, s store.Store, at time.Time) {
	t.Helper()
	ctx := t.Context()
	i := 0
	peek := func(tenant, agent, code string, window time.Duration, want int) {
		t.Helper()
		i++
		req := triage.StartRequest{Key: fmt.Sprint("hk", i), AttemptKey: fmt.Sprint("ha", i), Agent: agent, Code: code,
			At: at, Window: window}
		p, err := s.Tenant(tenant).PeekReport(ctx, req)
		if err != nil || !p.First {
			t.Fatalf("PeekReport(%s %s %s, %v) = %+v, %v", tenant, agent, code, window, p, err)
		}
		if p.Recent != want+1 {
			t.Errorf("%s's %s %s: %d failures in the window of %v, want %d", tenant, agent, code, p.Recent-1, window, want)
		}
	}
	peek("a", "planner", "E", 15*time.Minute, 4) // -10 twice, -5, 0
	peek("a", "planner", "E", 30*time.Minute, 5) // and -20
	peek("a", "planner", "E", 0, 1)
	peek("a", "planner", "F", 15*time.Minute, 1)
	peek("a", "planner", "G", 15*time.Minute, 0)
	peek("a", "sql", "E", 15*time.Minute, 0)
	peek("b", "planner", "E", 15*time.Minute, 0)
	peek("b", "planner", "E", time.Hour, 3)

	record := func(tenant, agent, code string, when time.Time, window time.Duration, want int) {
		t.Helper()
		n, err := s.Tenant(tenant).Record(ctx, agent, code, when, window)
		if err != nil || n != want {
			t.Errorf("Record(%s %s %s at %v, %v) = %d, %v; want %d", tenant, agent, code, when.Sub(at), window, n, err, want)
		}
	}
	// One more at at: the window's four and this one; -20 is forgotten.
	record("a", "planner", "E", at, 15*time.Minute, 5)
	peek("a", "planner", "E", 30*time.Minute, 5) // -10 twice, -5, 0 twice
	// At +5, with the two there, in a window of none: -10, -5 and 0 are
	// forgotten.
	record("a", "planner", "E", at.Add(5*time.Minute), 0, 3)
	peek("a", "planner", "E", time.Hour, 0) // all of them after at
	record("b", "planner", "E", at, time.Hour, 4)
	record("b", "planner", "E", at, 15*time.Minute, 2) // the three at -30 forgotten
}
