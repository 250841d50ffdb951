package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

var storeTests = []test{
	{"Expire", func(t *testing.T, e *env) {
		ctx := t.Context()
		tn := e.s.Tenant("a")
		_, _, err := tn.Claim(ctx, "old-delivery")
		must(t, err)
		_, _, err = tn.BeginRequest(ctx, "old-key", "h")
		must(t, err)
		_, err = tn.Next(ctx, "old-attempt")
		must(t, err)
		_, err = tn.Next(ctx, "old-attempt")
		must(t, err)
		e.clock.Advance(2 * 24 * time.Hour) // past the idempotency retention only
		_, _, err = tn.Claim(ctx, "new-delivery")
		must(t, err)
		must(t, tn.Complete(ctx, "new-delivery", &triage.Feedback{ErrorID: "e1"}))
		n, err := e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 1 {
			t.Errorf("Expire after two days deleted %d rows, want 1 (the idempotency key)", n)
		}
		if st, _, err := tn.BeginRequest(ctx, "old-key", "other"); err != nil || st != store.IdemNew {
			t.Errorf("an expired key: %v %v, want IdemNew", st, err)
		}
		e.clock.Advance(6 * 24 * time.Hour) // eight days: the old delivery and attempts too
		n, err = e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 3 { // the old delivery, the old attempt count, and the key begun again six days ago
			t.Errorf("Expire after eight days deleted %d rows, want 3", n)
		}
		if _, first, err := tn.Claim(ctx, "old-delivery"); err != nil || !first {
			t.Errorf("an expired delivery: first %v %v", first, err)
		}
		if _, first, err := tn.Claim(ctx, "new-delivery"); err != nil || first {
			t.Errorf("a delivery six days old was expired (first %v %v)", first, err)
		}
		if got, err := tn.Next(ctx, "old-attempt"); err != nil || got != 1 {
			t.Errorf("an expired attempt count: %d %v, want 1", got, err)
		}
	}},
	{"ExpireRecords", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		const day = 24 * time.Hour
		keep := store.Retention{Records: 7 * day}
		t0 := e.clock.Now()
		save(t, a, newOccurrence("d1", "old", t0))
		save(t, b, newOccurrence("d1", "old", t0)) // another tenant's, as old
		withJob := newOccurrence("d2", "pending", t0)
		// Due in a second of the real clock, River's: scheduled.
		withJob.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: "pending", RunAt: time.Now().Add(time.Second)}}
		save(t, a, withJob)
		save(t, a, newOccurrence("d3", "recent", t0))
		e.clock.Advance(5 * day)
		save(t, a, newOccurrence("d4", "recent", e.clock.Now())) // seen again
		e.clock.Advance(3 * day)                                 // eight days after t0

		// Without Records, records are kept whatever their age.
		if _, err := e.s.Expire(ctx, store.Retention{}); err != nil {
			t.Fatal(err)
		}
		record(t, a, "old")
		n, err := e.s.Expire(ctx, keep)
		must(t, err)
		if n != 6 { // two records, their two occurrences (their deliveries expired above) and their hourly counts
			t.Errorf("Expire deleted %d rows, want 6", n)
		}
		for _, tn := range []store.Records{a, b} {
			if _, ok, err := tn.ErrorRecord(ctx, "old"); err != nil || ok {
				t.Errorf("a record last seen 8 days ago is still there (%v)", err)
			}
		}
		if r := record(t, a, "recent"); r.Count != 2 || len(r.Occurrences) != 2 {
			t.Errorf("the record seen 3 days ago lost occurrences: %+v", r)
		}
		r := record(t, a, "pending")
		if len(r.Jobs) != 1 || store.JobFinished(r.Jobs[0].State) {
			t.Fatalf("the record with a job to run: %+v", r)
		}
		page, err := a.ErrorRecords(ctx, store.Filter{})
		must(t, err)
		if len(page.Records) != 2 {
			t.Errorf("listing after Expire: %d records, want 2", len(page.Records))
		}

		// Once its job ended, the record goes, with the job.
		stop := work(t, e.s, func(context.Context, store.Job) error { return nil }, store.WorkOptions{})
		waitState(t, a, "pending", r.Jobs[0].ID, store.JobCompleted)
		stop()
		n, err = e.s.Expire(ctx, keep)
		must(t, err)
		if n != 4 { // the record, its occurrence, its hourly count, its job
			t.Errorf("Expire after the job ended deleted %d rows, want 4", n)
		}
		if _, ok, err := a.ErrorRecord(ctx, "pending"); err != nil || ok {
			t.Errorf("the record whose job ended is still there (%v)", err)
		}
		// A new report of an expired error starts a new record.
		save(t, a, newOccurrence("d5", "old", e.clock.Now()))
		if r := record(t, a, "old"); r.Count != 1 {
			t.Errorf("the error reported again: count %d, want 1", r.Count)
		}
	}},
	{"ExpireRecordsInChunks", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		const n = 450 // more than one chunk
		for i := range n {
			save(t, tn, newOccurrence(fmt.Sprint("d", i), fmt.Sprint("e", i), e.clock.Now()))
		}
		e.clock.Advance(2 * time.Hour)
		deleted, err := e.s.Expire(t.Context(), store.Retention{Records: time.Hour})
		must(t, err)
		if deleted != 4*n { // records, occurrences, their deliveries (younger than their own retention) and hourly counts
			t.Errorf("Expire deleted %d rows, want %d", deleted, 4*n)
		}
		// A repeat of an expired error's delivery is no duplicate: its
		// claim went with it, so it does not replay feedback of an error
		// that is gone.
		claim(t, tn, "d0", nil, true)
		page, err := tn.ErrorRecords(t.Context(), store.Filter{})
		must(t, err)
		if len(page.Records) != 0 {
			t.Errorf("%d records left", len(page.Records))
		}
	}},
	{"Ping", func(t *testing.T, e *env) {
		if err := e.s.Ping(t.Context()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	}},
	{"Ready", func(t *testing.T, e *env) {
		// A fresh store is ready (its probe commits), and stays so
		// through writes, asked as often as anyone likes.
		for range 3 {
			if err := e.s.Ready(t.Context()); err != nil {
				t.Fatalf("Ready: %v", err)
			}
			must(t, e.s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "agent", CallbackURL: "http://x"}))
		}
	}},
	{"Close", func(t *testing.T, e *env) {
		s := e.open(t, store.Config{Now: e.clock.Now})
		must(t, s.Tenant("a").PutAgent(t.Context(), store.Agent{ID: "agent", CallbackURL: "http://x"}))
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}},
}

var attemptsTests = []stateTest{
	{"CountsPerKey", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		steps := []struct {
			key  string
			want int
		}{{"q1|E", 1}, {"q1|E", 2}, {"q2|E", 1}, {"q1|E", 3}, {"q1|F", 1}, {"q2|E", 2}}
		for _, st := range steps {
			n, err := tn.Next(t.Context(), st.key)
			must(t, err)
			if n != st.want {
				t.Errorf("Next(%q) = %d, want %d", st.key, n, st.want)
			}
		}
	}},
}

// historyStep is a failure recorded, and the count of the window (10
// minutes) it should give.
type historyStep struct {
	agent, code string
	at          time.Duration // after Epoch
	want        int
}

// historySteps are History's and Start's steps.
var historySteps = []historyStep{
	{"sql", "TIMEOUT", 0, 1},
	{"sql", "TIMEOUT", 5 * time.Minute, 2},
	{"sql", "TIMEOUT", 12 * time.Minute, 2},   // the first is out of the window
	{"sql", "TIMEOUT", 15 * time.Minute, 3},   // 5m is exactly at the window's start: in
	{"sql", "TIMEOUT", 40 * time.Minute, 1},   // everything else is out
	{"sql", "OTHER", 40 * time.Minute, 1},     // another code
	{"chart", "TIMEOUT", 40 * time.Minute, 1}, // another agent
	{"sql", "TIMEOUT", 41 * time.Minute, 2},
}

var historyTests = []stateTest{
	{"CountsWithinWindow", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		const window = 10 * time.Minute
		steps := historySteps
		for _, st := range steps {
			n, err := tn.Record(t.Context(), st.agent, st.code, Epoch.Add(st.at), window)
			must(t, err)
			if n != st.want {
				t.Errorf("Record(%s, %s, +%v) = %d, want %d", st.agent, st.code, st.at, n, st.want)
			}
		}
	}},
	{"IgnoresLaterFailures", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		for _, at := range []time.Duration{time.Minute, 20 * time.Minute} {
			_, err := tn.Record(t.Context(), "sql", "E", Epoch.Add(at), time.Hour)
			must(t, err)
		}
		// A failure reported late counts those in its own window, up to
		// its time.
		n, err := tn.Record(t.Context(), "sql", "E", Epoch.Add(10*time.Minute), time.Hour)
		must(t, err)
		if n != 2 {
			t.Errorf("Record(+10m) after +1m and +20m = %d, want 2", n)
		}
	}},
}

var deliveriesTests = []stateTest{
	{"FirstClaimIsFirst", func(t *testing.T, e *stateEnv) {
		claim(t, e.tenant("a"), "k", nil, true)
	}},
	{"SecondClaimWhileInFlight", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		claim(t, tn, "k", nil, true)
		claim(t, tn, "k", nil, false)
		e.clock.Advance(store.ClaimLease / 2)
		claim(t, tn, "k", nil, false)
	}},
	{"ClaimAfterCompleteReturnsFeedback", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		fb := sampleFeedback("e1", Epoch)
		claim(t, tn, "k", nil, true)
		must(t, tn.Complete(t.Context(), "k", fb))
		claim(t, tn, "k", fb, false)
		// Feedback stored is never taken over.
		e.clock.Advance(3 * store.ClaimLease)
		claim(t, tn, "k", fb, false)
	}},
	{"ReleaseMakesItFirstAgain", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		claim(t, tn, "k", nil, true)
		must(t, tn.Release(t.Context(), "k"))
		claim(t, tn, "k", nil, true)
		claim(t, tn, "k", nil, false)
	}},
	{"KeysAreIndependent", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		claim(t, tn, "k1", nil, true)
		must(t, tn.Complete(t.Context(), "k1", sampleFeedback("e1", Epoch)))
		claim(t, tn, "k2", nil, true)
	}},
}

var startTests = []stateTest{
	{"CountsHistoryAsRecordDoes", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		const window = 10 * time.Minute
		steps := append(slices.Clip(historySteps), historyStep{"sql", "TIMEOUT", 30 * time.Minute, 1}) // late: counts up to its own time
		for i, st := range steps {
			res, err := tn.Start(t.Context(), triage.StartRequest{Key: fmt.Sprint("k", i), AttemptKey: "q/" + st.code,
				Agent: st.agent, Code: st.code, At: Epoch.Add(st.at), Window: window})
			must(t, err)
			if !res.First || res.Recent != st.want {
				t.Errorf("Start(%s, %s, +%v) = %+v, want first with recent %d", st.agent, st.code, st.at, res, st.want)
			}
		}
		// A storm is counted exactly up to triage.MaxKept; past it, a
		// store may stop counting there (as Record may).
		for i := range triage.MaxKept + 5 {
			res, err := tn.Start(t.Context(), triage.StartRequest{Key: fmt.Sprint("s", i), AttemptKey: "q/STORM",
				Agent: "sql", Code: "STORM", At: Epoch.Add(time.Duration(i) * time.Millisecond), Window: window})
			must(t, err)
			if res.Recent != i+1 && (i+1 <= triage.MaxKept || res.Recent != triage.MaxKept) {
				t.Fatalf("storm failure %d: recent %d, want %d (or %d past it)", i+1, res.Recent, i+1, triage.MaxKept)
			}
		}
	}},
	{"FirstCountsAndRecords", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		// Counts that Next and Record began are Start's too.
		_, err := tn.Next(t.Context(), "q1/E")
		must(t, err)
		_, err = tn.Record(t.Context(), "sql", "E", Epoch, time.Hour)
		must(t, err)
		res := start(t, tn, "k1", "q1/E", time.Minute)
		if !res.First || res.Prior != nil || res.Attempt != 2 || res.Recent != 2 {
			t.Errorf("Start(k1) = %+v; want first, attempt 2, recent 2", res)
		}
		// And Start's are theirs.
		if n, err := tn.Next(t.Context(), "q1/E"); err != nil || n != 3 {
			t.Errorf("Next after Start = %d, %v; want 3", n, err)
		}
		if n, err := tn.Record(t.Context(), "sql", "E", Epoch.Add(2*time.Minute), time.Hour); err != nil || n != 3 {
			t.Errorf("Record after Start = %d, %v; want 3", n, err)
		}
	}},
	{"DuplicateCountsNothing", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		start(t, tn, "k1", "q1/E", 0)
		// In flight: neither first nor counted.
		if res := start(t, tn, "k1", "q1/E", 0); res != (triage.StartResult{}) {
			t.Errorf("Start(k1) again while in flight = %+v; want the zero result", res)
		}
		fb := sampleFeedback("e1", Epoch)
		must(t, tn.Complete(t.Context(), "k1", fb))
		res := start(t, tn, "k1", "q1/E", 0)
		if res.First || !reflect.DeepEqual(res.Prior, fb) || res.Attempt != 0 || res.Recent != 0 {
			t.Errorf("Start(k1) after Complete = %+v; want the feedback and nothing counted", res)
		}
		// A new delivery of the same failure is the second attempt.
		if res := start(t, tn, "k2", "q1/E", 0); res.Attempt != 2 || res.Recent != 2 {
			t.Errorf("Start(k2) = %+v; want attempt 2, recent 2", res)
		}
	}},
	{"ClaimsAsClaimDoes", func(t *testing.T, e *stateEnv) {
		tn := e.tenant("a")
		start(t, tn, "k1", "q1/E", 0)
		claim(t, tn, "k1", nil, false)
		must(t, tn.Release(t.Context(), "k1"))
		if res := start(t, tn, "k1", "q1/E", 0); !res.First || res.Attempt != 2 {
			t.Errorf("Start(k1) after Release = %+v; want first, attempt 2", res)
		}
		// Another tenant's delivery, attempt and history are its own.
		if res := start(t, e.tenant("b"), "k1", "q1/E", 0); !res.First || res.Attempt != 1 || res.Recent != 1 {
			t.Errorf("tenant b's Start(k1) = %+v; want first, attempt 1, recent 1", res)
		}
	}},
}

// leaseTests are the store's own: a claim in flight longer than
// store.ClaimLease is taken over (its instance is taken to have died). A
// triage.State in one process (memory.State) has no such lease.
var leaseTests = []test{
	{"StaleClaimIsTakenOver", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		claim(t, tn, "k", nil, true)
		e.clock.Advance(store.ClaimLease - time.Second)
		claim(t, tn, "k", nil, false)
		e.clock.Advance(2 * time.Second)
		claim(t, tn, "k", nil, true) // older than the lease: lost
		claim(t, tn, "k", nil, false)
		e.clock.Advance(store.ClaimLease - time.Second)
		claim(t, tn, "k", nil, false) // the take-over's lease runs from it
	}},
	{"StartTakesOverAStaleClaim", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		start(t, tn, "k1", "q1/E", 0)
		e.clock.Advance(store.ClaimLease + time.Second)
		if res := start(t, tn, "k1", "q1/E", 0); !res.First || res.Attempt != 2 {
			t.Errorf("Start(k1) past its lease = %+v; want first (taken over), attempt 2", res)
		}
	}},
}

// start starts delivery key of a failure of agent "sql" with code "E",
// reported at Epoch+at, and returns what Start answered.
func start(t *testing.T, s triage.State, key, attemptKey string, at time.Duration) triage.StartResult {
	t.Helper()
	res, err := s.Start(t.Context(), triage.StartRequest{
		Key: key, AttemptKey: attemptKey, Agent: "sql", Code: "E", At: Epoch.Add(at), Window: time.Hour,
	})
	must(t, err)
	return res
}

// claim claims key and checks the answer.
func claim(t *testing.T, d triage.Deliveries, key string, wantPrior *triage.Feedback, wantFirst bool) {
	t.Helper()
	prior, first, err := d.Claim(t.Context(), key)
	must(t, err)
	if first != wantFirst {
		t.Errorf("Claim(%q): first = %v, want %v", key, first, wantFirst)
	}
	if !reflect.DeepEqual(prior, wantPrior) {
		t.Errorf("Claim(%q): prior =\n%+v\nwant\n%+v", key, prior, wantPrior)
	}
}

var synonymsTests = []test{
	{"LookupAndFields", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		must(t, tn.PutSchema(t.Context(), "orders", triage.SchemaInfo{
			Fields:   []string{"order_id", "sku_id", "sales"},
			Synonyms: map[string]string{"product_id": "sku_id", "revenue": "sales"},
		}))
		lookup(t, tn, "orders", "product_id", "sku_id", true)
		lookup(t, tn, "orders", "revenue", "sales", true)
		lookup(t, tn, "orders", "price", "", false)
		lookup(t, tn, "customers", "product_id", "", false)
		fields(t, tn, "orders", []string{"order_id", "sku_id", "sales"})
		fields(t, tn, "customers", nil)
	}},
	{"PutSchemaReplaces", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		must(t, tn.PutSchema(t.Context(), "orders", triage.SchemaInfo{
			Fields:   []string{"order_id", "sku_id"},
			Synonyms: map[string]string{"product_id": "sku_id"},
		}))
		must(t, tn.PutSchema(t.Context(), "orders", triage.SchemaInfo{
			Fields:   []string{"order_id", "item_id"},
			Synonyms: map[string]string{"sku_id": "item_id"},
		}))
		lookup(t, tn, "orders", "product_id", "", false)
		lookup(t, tn, "orders", "sku_id", "item_id", true)
		fields(t, tn, "orders", []string{"order_id", "item_id"})
	}},
	{"SourcesAreIndependent", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		must(t, tn.PutSchema(t.Context(), "orders", triage.SchemaInfo{Fields: []string{"a"}}))
		must(t, tn.PutSchema(t.Context(), "customers", triage.SchemaInfo{Fields: []string{"b"}}))
		fields(t, tn, "orders", []string{"a"})
		fields(t, tn, "customers", []string{"b"})
	}},
}

func lookup(t *testing.T, s triage.Synonyms, source, field, want string, wantOK bool) {
	t.Helper()
	got, ok, err := s.Lookup(t.Context(), source, field)
	must(t, err)
	if got != want || ok != wantOK {
		t.Errorf("Lookup(%q, %q) = %q, %v; want %q, %v", source, field, got, ok, want, wantOK)
	}
}

func fields(t *testing.T, s triage.Synonyms, source string, want []string) {
	t.Helper()
	got, err := s.Fields(t.Context(), source)
	must(t, err)
	if !slices.Equal(got, want) {
		t.Errorf("Fields(%q) = %q, want %q", source, got, want)
	}
}

var cacheTests = []test{
	{"RoundTrip", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		if _, ok, err := tn.Get(t.Context(), "q1"); err != nil || ok {
			t.Fatalf("Get of an empty cache = %v, %v; want not found", ok, err)
		}
		r := triage.CachedResult{
			StoredAt: Epoch.Add(-2 * time.Hour),
			Summary:  "sales by region, 4 rows",
			Data:     map[string]any{"rows": []any{"north", "south"}, "total": 12.5, "final": true},
		}
		must(t, tn.PutCache(t.Context(), "q1", r))
		checkCache(t, tn, "q1", r)
		if _, ok, err := tn.Get(t.Context(), "q2"); err != nil || ok {
			t.Errorf("Get(q2) = %v, %v; want not found", ok, err)
		}
	}},
	{"PutCacheReplaces", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		must(t, tn.PutCache(t.Context(), "q1", triage.CachedResult{StoredAt: Epoch, Summary: "old", Data: map[string]any{"v": 1.0}}))
		r := triage.CachedResult{StoredAt: Epoch.Add(time.Minute), Summary: "new"}
		must(t, tn.PutCache(t.Context(), "q1", r))
		checkCache(t, tn, "q1", r)
	}},
}

func checkCache(t *testing.T, c triage.Cache, queryID string, want triage.CachedResult) {
	t.Helper()
	got, ok, err := c.Get(t.Context(), queryID)
	must(t, err)
	if !ok {
		t.Fatalf("Get(%q): not found", queryID)
	}
	if !got.StoredAt.Equal(want.StoredAt) || got.Summary != want.Summary || !reflect.DeepEqual(got.Data, want.Data) {
		t.Errorf("Get(%q) =\n%+v\nwant\n%+v", queryID, got, want)
	}
}

var agentsTests = []test{
	{"PutAndGet", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		if _, ok, err := tn.Agent(t.Context(), "sql_agent"); err != nil || ok {
			t.Fatalf("Agent of none = %v, %v; want not found", ok, err)
		}
		must(t, tn.PutAgent(t.Context(), store.Agent{ID: "sql_agent", CallbackURL: "https://agents.example/retry"}))
		checkAgent(t, tn, store.Agent{ID: "sql_agent", CallbackURL: "https://agents.example/retry", UpdatedAt: Epoch})
	}},
	{"PutAgentReplaces", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		must(t, tn.PutAgent(t.Context(), store.Agent{ID: "sql_agent", CallbackURL: "https://old.example"}))
		later := e.clock.Advance(time.Hour)
		must(t, tn.PutAgent(t.Context(), store.Agent{ID: "sql_agent", CallbackURL: "https://new.example"}))
		checkAgent(t, tn, store.Agent{ID: "sql_agent", CallbackURL: "https://new.example", UpdatedAt: later})
	}},
	{"KeepsGivenUpdatedAt", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		a := store.Agent{ID: "chart_agent", CallbackURL: "https://c.example", UpdatedAt: Epoch.Add(-time.Hour)}
		must(t, tn.PutAgent(t.Context(), a))
		checkAgent(t, tn, a)
	}},
}

func checkAgent(t *testing.T, tn store.Agents, want store.Agent) {
	t.Helper()
	got, ok, err := tn.Agent(t.Context(), want.ID)
	must(t, err)
	if !ok || got.ID != want.ID || got.CallbackURL != want.CallbackURL || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("Agent(%q) = %+v, %v; want %+v", want.ID, got, ok, want)
	}
}
