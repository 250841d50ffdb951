package storetest

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// Opener opens a fresh, empty store using opts.
type Opener = func(t *testing.T, opts store.Config) store.Store

// Run runs the conformance suite on the stores open opens: the state
// suite (RunState) on their tenants, then the store's own groups. Each
// subtest has a store of its own and runs in parallel with the others (as
// many at once as -test.parallel allows).
func Run(t *testing.T, open Opener) {
	t.Run("State", func(t *testing.T) {
		RunState(t, func(t *testing.T, now func() time.Time) func(string) triage.State {
			s := open(t, store.Config{Now: now})
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			return func(tenant string) triage.State { return s.Tenant(tenant) }
		})
	})
	groups := []struct {
		name  string
		tests []test
	}{
		{"Store", storeTests},
		{"Isolation", isolationTests},
		{"Leases", leaseTests},
		{"Synonyms", synonymsTests},
		{"Cache", cacheTests},
		{"Agents", agentsTests},
		{"Occurrences", occurrenceTests},
		{"Report", reportTests},
		{"Hold", holdTests},
		{"ErrorRecords", listTests},
		{"Pages", pageTests},
		{"Search", searchTests},
		{"Behind", behindTests},
		{"Counts", countTests},
		{"Idempotency", idemTests},
		{"Jobs", jobsTests},
		{"Concurrency", concurrencyTests},
		{"Checkpoints", checkpointTests},
		{"Runs", runTests},
		{"Sessions", sessionTests},
		{"RunEvents", runEventTests},
		{"Throttles", throttleTests},
		{"Shares", shareTests},
		{"Workflow", workflowTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, newEnv(t, open))
				})
			}
		})
	}
}

// StateOpener opens fresh, empty state whose clock is now, and returns
// each tenant's: the tenants' states must be independent of each other.
type StateOpener = func(t *testing.T, now func() time.Time) (tenant func(name string) triage.State)

// RunState runs the state suite, the contract of triage.State (Attempts,
// History, Deliveries and Start), on the states open opens: every store's
// tenants (Run runs it) and memory.State. What a store adds, a claim's
// lease, is Run's.
func RunState(t *testing.T, open StateOpener) {
	groups := []struct {
		name  string
		tests []stateTest
	}{
		{"Attempts", attemptsTests},
		{"History", historyTests},
		{"Deliveries", deliveriesTests},
		{"Start", startTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					e := &stateEnv{clock: &clock{now: Epoch}}
					e.tenant = open(t, e.clock.Now)
					tc.run(t, e)
				})
			}
		})
	}
}

// stateTest is one subtest of the state suite.
type stateTest struct {
	name string
	run  func(t *testing.T, e *stateEnv)
}

// stateEnv is a state subtest's tenants and clock.
type stateEnv struct {
	tenant func(name string) triage.State
	clock  *clock
}

// test is one subtest.
type test struct {
	name string
	run  func(t *testing.T, e *env)
}

// env is a subtest's store and clock.
type env struct {
	s     store.Store
	clock *clock
	open  Opener
}

// Epoch is when the fake clock starts: it has nanoseconds, which a store
// must keep.
var Epoch = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

func newEnv(t *testing.T, open Opener) *env {
	t.Helper()
	e := &env{clock: &clock{now: Epoch}, open: open}
	e.s = open(t, store.Config{Now: e.clock.Now})
	t.Cleanup(func() {
		if err := e.s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

// clock is a fake clock, safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// must fails the test now on an error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sameJSON reports whether two JSON documents are equal as values (a
// store may reformat them).
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// sampleFeedback is a feedback with every kind of field set.
func sampleFeedback(errorID string, at time.Time) *triage.Feedback {
	return &triage.Feedback{
		ErrorID:             errorID,
		ErrorType:           triage.SchemaError,
		ErrorSource:         "sql_agent",
		Severity:            triage.SeverityHigh,
		Confidence:          0.875,
		UserMessage:         "The field product_id is now sku_id; I used it instead.",
		RecoverySuggestions: []string{"Use sku_id", "Check the schema"},
		AutomatedActions:    []string{"map_synonym:product_id->sku_id", "retry:2"},
		ContextPreserved:    true,
		QueryID:             "q-" + errorID,
		Timestamp:           at,
		NextAction:          triage.Resume,
		RootCause: triage.RootCause{
			Cause: triage.CauseSchemaDrift, Confidence: 0.9,
			Evidence: []string{"product_id missing", "synonym sku_id"},
		},
		Attempt: 2,
		Fault: triage.FaultInfo{
			Code: "AGENT_EXECUTION_ERROR", HTTPStatus: 502, Retryable: true, RetryAfter: 3,
		},
		Context:    map[string]any{"table": "orders", "rows": 1500.0, "nested": map[string]any{"ok": true}},
		ContextRef: "checkpoint-7",
	}
}
