package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// occurIn saves one more occurrence of errorID, in release, a minute
// after the last, and returns what the save did.
func occurIn(t *testing.T, e *env, tn store.OccurrenceSaver, errorID, release string) store.Saved {
	t.Helper()
	at := e.clock.Advance(time.Minute)
	o := newOccurrence(fmt.Sprintf("d-%s-%d", errorID, at.UnixNano()), errorID, at)
	o.Release, o.Environment = release, "prod"
	saved, err := tn.SaveOccurrence(t.Context(), o)
	must(t, err)
	if saved.WorkflowErr != nil {
		t.Fatal(saved.WorkflowErr)
	}
	return saved
}

// change applies c to errorID by "ana", failing the test on an error.
func change(t *testing.T, tn store.Workflows, errorID string, c triage.Change) store.Changed {
	t.Helper()
	ch, ok, err := tn.ChangeRecord(t.Context(), errorID, c, "ana")
	must(t, err)
	if !ok {
		t.Fatalf("ChangeRecord(%q): not found", errorID)
	}
	return ch
}

// history returns every transition of errorID, the latest first.
func history(t *testing.T, tn store.Workflows, errorID string) []triage.Transition {
	t.Helper()
	var out []triage.Transition
	f := store.HistoryFilter{Limit: 1}
	for {
		p, ok, err := tn.RecordHistory(t.Context(), errorID, f)
		must(t, err)
		if !ok {
			t.Fatalf("RecordHistory(%q): not found", errorID)
		}
		out = append(out, p.Transitions...)
		if p.Next == "" {
			return out
		}
		f.Cursor = p.Next
	}
}

// faultStatus is the HTTP status of err's fault, 0 for another error.
func faultStatus(err error) int {
	var f *fault.Error
	if errors.As(err, &f) {
		return f.Status
	}
	return 0
}

func resolveIn(release string) triage.Change {
	return triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InRelease: release}, Note: "fixed"}
}

var workflowTests = []test{
	{"RegressOnLaterRelease", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		// The tenant's releases, in the order first reported.
		for _, rel := range []string{"1.3", "1.4", "1.5"} {
			occurIn(t, e, tn, "e-"+rel, rel)
		}
		if s := occurIn(t, e, tn, "e1", "1.3"); !s.NewRecord || s.Workflow.Status != triage.StatusUnresolved || s.Transition != nil {
			t.Fatalf("a new record: %+v", s)
		}
		ch := change(t, tn, "e1", resolveIn("1.4"))
		if ch.Record.Status != triage.StatusResolved || ch.Transition == nil || ch.Transition.By != "ana" || ch.Transition.Note != "fixed" {
			t.Fatalf("resolved: %+v", ch)
		}
		for _, rel := range []string{"1.3", "1.4"} {
			if s := occurIn(t, e, tn, "e1", rel); s.Workflow.Status != triage.StatusResolved || s.Transition != nil || s.Regressed() {
				t.Fatalf("an occurrence in %s regressed: %+v", rel, s)
			}
		}
		s := occurIn(t, e, tn, "e1", "1.5")
		if !s.Regressed() || s.Workflow.Status != triage.StatusRegressed || s.Transition.By != triage.ByService || s.Transition.Release != "1.5" {
			t.Fatalf("an occurrence in 1.5: %+v, want a regression", s)
		}
		r := record(t, tn, "e1")
		if r.Status != triage.StatusRegressed || r.FirstRelease != "1.3" || r.LastRelease != "1.5" || r.LastEnvironment != "prod" {
			t.Errorf("record: status %s, releases %q..%q, environment %q", r.Status, r.FirstRelease, r.LastRelease, r.LastEnvironment)
		}
		h := history(t, tn, "e1")
		if len(h) != 2 || h[0].To.Status != triage.StatusRegressed || h[1].To.Status != triage.StatusResolved || h[1].By != "ana" {
			t.Errorf("history = %+v, want the regression then the resolution", h)
		}
	}},
	{"RegressWithoutRelease", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		change(t, tn, "e1", triage.Change{Status: triage.StatusResolved})
		if s := occurIn(t, e, tn, "e1", ""); !s.Regressed() {
			t.Fatalf("resolved now, seen again: %+v", s)
		}
		// Resolved in a release, seen in none: regressed (it cannot be placed).
		occurIn(t, e, tn, "e2", "2.0")
		change(t, tn, "e2", resolveIn("2.0"))
		if s := occurIn(t, e, tn, "e2", ""); !s.Regressed() {
			t.Fatalf("resolved in 2.0, seen in no release: %+v", s)
		}
		// Resolved in a release not reported yet: earlier ones do not regress.
		occurIn(t, e, tn, "e3", "2.0")
		change(t, tn, "e3", resolveIn("3.0"))
		if s := occurIn(t, e, tn, "e3", "2.0"); s.Regressed() {
			t.Fatalf("resolved in 3.0 (not seen yet), seen in 2.0: %+v", s)
		}
		if got := listed(list(t, tn, store.Filter{Status: triage.StatusRegressed})); !slices.Equal(got, []string{"e2", "e1"}) {
			t.Errorf("regressed = %q, want e2, e1", got)
		}
	}},
	{"NextRelease", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		next := triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InNextRelease: true}}
		if _, _, err := tn.ChangeRecord(t.Context(), "e1", next, "ana"); faultStatus(err) != 409 {
			t.Fatalf("next release with none reported: %v, want a 409 fault", err)
		}
		occurIn(t, e, tn, "e1", "1.0")
		ch := change(t, tn, "e1", next)
		if ch.Record.Resolution == nil || ch.Record.Resolution.InRelease != "1.0" {
			t.Fatalf("resolution = %+v, want in 1.0", ch.Record.Resolution)
		}
		if s := occurIn(t, e, tn, "e1", "1.0"); s.Regressed() {
			t.Fatalf("seen in 1.0 again: %+v", s)
		}
		if s := occurIn(t, e, tn, "e1", "1.1"); !s.Regressed() {
			t.Fatalf("seen in 1.1: %+v, want a regression", s)
		}
	}},
	{"IgnoreForATime", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		change(t, tn, "e1", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Seconds: 3600}})
		if s := occurIn(t, e, tn, "e1", ""); s.Workflow.Status != triage.StatusIgnored || s.Transition != nil {
			t.Fatalf("within the hour: %+v", s)
		}
		if got := listed(list(t, tn, store.Filter{Status: triage.StatusIgnored})); !slices.Equal(got, []string{"e1"}) {
			t.Fatalf("ignored = %q", got)
		}
		e.clock.Advance(2 * time.Hour)
		// Its time passed: it lists and reads as unresolved before it occurs again.
		if got := listed(list(t, tn, store.Filter{Status: triage.StatusUnresolved})); !slices.Equal(got, []string{"e1"}) {
			t.Errorf("unresolved after the hour = %q", got)
		}
		if got := listed(list(t, tn, store.Filter{Status: triage.StatusIgnored})); len(got) != 0 {
			t.Errorf("ignored after the hour = %q", got)
		}
		if r := record(t, tn, "e1"); r.Status != triage.StatusUnresolved {
			t.Errorf("status after the hour = %s", r.Status)
		}
		if s := occurIn(t, e, tn, "e1", ""); s.Workflow.Status != triage.StatusUnresolved || s.Transition == nil {
			t.Fatalf("after the hour: %+v, want it woken", s)
		}
	}},
	{"IgnoreForNMore", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		change(t, tn, "e1", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Count: 3}})
		for i := range 2 {
			if s := occurIn(t, e, tn, "e1", ""); s.Workflow.Status != triage.StatusIgnored || s.Transition != nil {
				t.Fatalf("occurrence %d of 3: %+v", i+1, s)
			}
		}
		if s := occurIn(t, e, tn, "e1", ""); s.Workflow.Status != triage.StatusUnresolved || s.Transition == nil {
			t.Fatalf("occurrence 3 of 3: %+v, want it woken", s)
		}
	}},
	{"IgnoreForNInAWindow", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		at := func(d time.Duration) store.Saved {
			t.Helper()
			e.clock.Advance(d)
			o := newOccurrence(fmt.Sprint("d-", e.clock.Now().UnixNano()), "e1", e.clock.Now())
			s, err := tn.SaveOccurrence(t.Context(), o)
			must(t, err)
			return s
		}
		at(0)
		change(t, tn, "e1", triage.Change{Status: triage.StatusIgnored, Ignore: &triage.IgnoreFor{Count: 3, WindowSeconds: 600}})
		// 3 within 600 s wakes it: 0, 400 s (2 in the window), 800 s (2),
		// 900 s (3: 400, 800, 900).
		for i, d := range []time.Duration{400 * time.Second, 400 * time.Second} {
			if s := at(d); s.Workflow.Status != triage.StatusIgnored {
				t.Fatalf("occurrence %d: %+v", i+2, s)
			}
		}
		if s := at(100 * time.Second); s.Workflow.Status != triage.StatusUnresolved || s.Transition == nil {
			t.Fatalf("3 in 600 s: %+v, want it woken", s)
		}
	}},
	{"ConcurrentOccurrencesRegressOnce", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		change(t, tn, "e1", triage.Change{Status: triage.StatusResolved})
		const n = 8
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			regressed int
		)
		at := e.clock.Advance(time.Minute)
		for i := range n {
			wg.Go(func() {
				s, err := tn.SaveOccurrence(t.Context(), newOccurrence(fmt.Sprint("c-", i), "e1", at.Add(time.Duration(i))))
				if err != nil || s.WorkflowErr != nil {
					t.Error(err, s.WorkflowErr)
					return
				}
				if s.Regressed() {
					mu.Lock()
					regressed++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if regressed != 1 {
			t.Errorf("%d saves regressed the record, want 1", regressed)
		}
		h := history(t, tn, "e1")
		if len(h) != 2 || h[0].To.Status != triage.StatusRegressed {
			t.Errorf("history = %+v, want one regression after the resolution", h)
		}
	}},
	{"ChangeProblems", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		occurIn(t, e, tn, "e1", "")
		if _, ok, err := tn.ChangeRecord(t.Context(), "nope", triage.Change{Status: triage.StatusResolved}, "ana"); ok || err != nil {
			t.Errorf("an unknown record: ok %v, %v", ok, err)
		}
		if _, _, err := tn.ChangeRecord(t.Context(), "e1", triage.Change{Status: triage.StatusRegressed}, "ana"); faultStatus(err) != 422 {
			t.Errorf("asking for regressed: %v, want a 422 fault", err)
		}
		// The same change twice: the second leaves no transition.
		change(t, tn, "e1", triage.Change{Status: triage.StatusResolved})
		if ch := change(t, tn, "e1", triage.Change{Status: triage.StatusResolved}); ch.Transition != nil {
			t.Errorf("resolving twice: %+v", ch.Transition)
		}
		who := "team-db"
		if ch := change(t, tn, "e1", triage.Change{Assignee: &who}); ch.Record.Assignee != who || ch.Record.Status != triage.StatusResolved {
			t.Errorf("assigned: %+v", ch.Record)
		}
		if h := history(t, tn, "e1"); len(h) != 2 {
			t.Errorf("history has %d transitions, want 2", len(h))
		}
	}},
	{"TenantsIsolated", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		occurIn(t, e, a, "e1", "1.0")
		if _, ok, err := b.ChangeRecord(t.Context(), "e1", triage.Change{Status: triage.StatusResolved}, "bob"); ok || err != nil {
			t.Errorf("b changed a's record: ok %v, %v", ok, err)
		}
		if _, ok, err := b.RecordHistory(t.Context(), "e1", store.HistoryFilter{}); ok || err != nil {
			t.Errorf("b read a's history: ok %v, %v", ok, err)
		}
		occurIn(t, e, b, "e1", "")
		next := triage.Change{Status: triage.StatusResolved, Resolution: &triage.Resolution{InNextRelease: true}}
		if _, _, err := b.ChangeRecord(t.Context(), "e1", next, "bob"); faultStatus(err) != 409 {
			t.Errorf("b's next release after a's 1.0: %v, want 409 (b reported none)", err)
		}
		if n, err := b.ChangeRecords(t.Context(), store.Filter{}, triage.Change{Status: triage.StatusIgnored}, "bob"); err != nil || !slices.Equal(n, []string{"e1"}) {
			t.Errorf("b's bulk change: %v, %v, want its one record", n, err)
		}
		if r := record(t, a, "e1"); r.Status != triage.StatusUnresolved {
			t.Errorf("a's record is %s after b's changes", r.Status)
		}
	}},
	{"BulkByFilter", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		// More than a batch of records, a third of them one agent's.
		const n = 1100
		var mine []string
		for i := range n {
			o := newOccurrence(fmt.Sprint("d-", i), fmt.Sprint("e", i), e.clock.Advance(time.Second))
			if i%3 == 0 {
				o.AgentID = "x_agent"
				mine = append(mine, o.ErrorID)
			}
			save(t, tn, o)
		}
		resolve := triage.Change{Status: triage.StatusResolved, Note: "bulk"}
		got, err := tn.ChangeRecords(t.Context(), store.Filter{AgentID: "x_agent", Status: triage.StatusUnresolved}, resolve, "ana")
		slices.Sort(got)
		slices.Sort(mine)
		if err != nil || !slices.Equal(got, mine) {
			t.Fatalf("ChangeRecords changed %d (%v), want %d: the agent's", len(got), err, len(mine))
		}
		if again, err := tn.ChangeRecords(t.Context(), store.Filter{AgentID: "x_agent"}, resolve, "ana"); err != nil || len(again) != 0 {
			t.Errorf("again: %v, %v, want none", again, err)
		}
		p := list(t, tn, store.Filter{Status: triage.StatusResolved, Limit: store.MaxLimit})
		count := len(p.Records)
		for p.Next != "" {
			p = list(t, tn, store.Filter{Status: triage.StatusResolved, Limit: store.MaxLimit, Cursor: p.Next})
			count += len(p.Records)
		}
		if count != len(mine) {
			t.Errorf("%d resolved listed, want %d", count, len(mine))
		}
		// By ids, and with an invalid change refused before any.
		if _, err := tn.ChangeRecords(t.Context(), store.Filter{}, triage.Change{Status: "nope"}, "ana"); faultStatus(err) != 422 {
			t.Errorf("an invalid bulk change: %v, want 422", err)
		}
		ids := store.Filter{ErrorIDs: []string{"e1", "e2", "e3", "missing"}}
		if got, err := tn.ChangeRecords(t.Context(), ids, resolve, "ana"); err != nil || !slices.Equal(got, []string{"e2", "e1"}) { // e3 is x_agent's, resolved
			t.Errorf("by ids: %v, %v, want e2 and e1 (the latest first)", got, err)
		}
		if h := history(t, tn, "e1"); len(h) != 1 || h[0].Note != "bulk" || h[0].By != "ana" {
			t.Errorf("e1's history = %+v", h)
		}
	}},
}

// MeasureBulkChange saves n records of one agent and resolves them by
// filter (the agent, unresolved) with one ChangeRecords, then asks again
// (nothing to change), logging how long each took; it fails when a count
// is wrong. It is the by-hand measure of docs/service.md (n = 10,000
// there).
func MeasureBulkChange(t testing.TB, s store.Store, n int) {
	tn := s.Tenant("bulk")
	at := Epoch
	for i := range n {
		at = at.Add(time.Millisecond)
		save(t, tn, newOccurrence(fmt.Sprint("d-", i), fmt.Sprint("e", i), at))
	}
	f := store.Filter{AgentID: "sql_agent", Status: triage.StatusUnresolved}
	resolve := triage.Change{Status: triage.StatusResolved, Note: "bulk"}
	start := time.Now()
	got, err := tn.ChangeRecords(t.Context(), f, resolve, "ana")
	elapsed := time.Since(start)
	must(t, err)
	if len(got) != n {
		t.Fatalf("ChangeRecords changed %d, want %d", len(got), n)
	}
	f.Status = ""
	start = time.Now()
	again, err := tn.ChangeRecords(t.Context(), f, resolve, "ana")
	elapsed2 := time.Since(start)
	must(t, err)
	if len(again) != 0 {
		t.Fatalf("again: %d changed, want 0", len(again))
	}
	t.Logf("resolved %d records by filter (agent_id, status=unresolved) in %v; the same change again (none changed) in %v",
		len(got), elapsed.Round(time.Millisecond), elapsed2.Round(time.Millisecond))
}
