package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// newOccurrence is a delivery of error errorID, received at.
func newOccurrence(key, errorID string, at time.Time) store.Occurrence {
	return store.Occurrence{
		DeliveryKey: key,
		ErrorID:     errorID,
		QueryID:     "q-" + errorID,
		AgentID:     "sql_agent",
		ErrorType:   "schema_error",
		Severity:    "high",
		NextAction:  "resume",
		Attempt:     1,
		ReportedAt:  at.Add(-time.Second),
		ReceivedAt:  at,
		Report:      json.RawMessage(fmt.Sprintf(`{"agent_id": "sql_agent", "data": {"message": "boom %s", "query_id": "q-%s"}}`, key, errorID)),
		Feedback:    json.RawMessage(fmt.Sprintf(`{"error_id": %q, "delivery": %q, "next_action": "resume"}`, errorID, key)),
		Actions:     json.RawMessage(`[{"action": "retry", "status": "done", "detail": "retry:2"}]`),
	}
}

// save saves o and returns its ID (0 when it was saved already).
func save(t testing.TB, tn store.OccurrenceSaver, o store.Occurrence) int64 {
	t.Helper()
	saved, err := tn.SaveOccurrence(t.Context(), o)
	must(t, err)
	return saved.ID
}

// record returns an error's record, failing the test when there is none.
func record(t *testing.T, tn store.Records, errorID string) store.Record {
	t.Helper()
	r, ok, err := tn.ErrorRecord(t.Context(), errorID)
	must(t, err)
	if !ok {
		t.Fatalf("ErrorRecord(%q): not found", errorID)
	}
	return r
}

func checkOccurrence(t *testing.T, got, want store.Occurrence) {
	t.Helper()
	if got.ErrorID != want.ErrorID || got.QueryID != want.QueryID || got.AgentID != want.AgentID ||
		got.ErrorType != want.ErrorType || got.Severity != want.Severity || got.NextAction != want.NextAction ||
		got.Attempt != want.Attempt || !got.ReportedAt.Equal(want.ReportedAt) || !got.ReceivedAt.Equal(want.ReceivedAt) ||
		!sameJSON(got.Report, want.Report) || !sameJSON(got.Feedback, want.Feedback) || !sameJSON(got.Actions, want.Actions) {
		t.Errorf("occurrence =\n%+v\nwant\n%+v", got, want)
	}
}

// checkSummary checks r's fields against the occurrences saved of it, the
// one received last giving the latest.
func checkSummary(t *testing.T, r store.RecordSummary, count int, first, last time.Time, latest store.Occurrence) {
	t.Helper()
	if r.ErrorID != latest.ErrorID || r.Count != count || !r.FirstSeen.Equal(first) || !r.LastSeen.Equal(last) {
		t.Errorf("record %s: count %d, first seen %v, last seen %v; want %s, %d, %v, %v",
			r.ErrorID, r.Count, r.FirstSeen, r.LastSeen, latest.ErrorID, count, first, last)
	}
	if r.QueryID != latest.QueryID || r.AgentID != latest.AgentID || r.ErrorType != latest.ErrorType ||
		r.Severity != latest.Severity || r.NextAction != latest.NextAction {
		t.Errorf("record %s =\n%+v\nwant the latest occurrence's fields\n%+v", r.ErrorID, r, latest)
	}
}

// checkRecord checks r as checkSummary does, and its report and feedback.
func checkRecord(t *testing.T, r store.Record, count int, first, last time.Time, latest store.Occurrence) {
	t.Helper()
	checkSummary(t, r.RecordSummary, count, first, last, latest)
	if !sameJSON(r.Report, latest.Report) || !sameJSON(r.Feedback, latest.Feedback) {
		t.Errorf("record %s: report %s, feedback %s; want the latest occurrence's\n%s\n%s",
			r.ErrorID, r.Report, r.Feedback, latest.Report, latest.Feedback)
	}
}

var occurrenceTests = []test{
	{"NewRecord", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		for i, c := range []struct {
			tn      store.Tenant
			key, id string
			saved   bool
			created bool
		}{
			{a, "d1", "e1", true, true},
			{a, "d2", "e1", true, false},  // the record's second occurrence
			{a, "d1", "e1", false, false}, // the delivery again: nothing added
			{b, "d1", "e1", true, true},   // another tenant's record
			{a, "", "e2", true, true},     // no delivery key
			{a, "", "e2", true, false},
		} {
			saved, err := c.tn.SaveOccurrence(t.Context(), newOccurrence(c.key, c.id, e.clock.Advance(time.Second)))
			must(t, err)
			if (saved.ID != 0) != c.saved || saved.NewRecord != c.created {
				t.Errorf("save %d (%s of %s): %+v; want an occurrence added %t, the record created %t", i, c.key, c.id, saved, c.saved, c.created)
			}
		}
	}},
	{"CountOccurrences", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		start := e.clock.Now()
		for i := range 5 {
			save(t, a, newOccurrence(fmt.Sprint("d", i), "e1", e.clock.Advance(time.Minute)))
		}
		save(t, a, newOccurrence("other", "e2", e.clock.Now()))
		save(t, b, newOccurrence("d9", "e1", e.clock.Now()))
		for _, c := range []struct {
			tn     store.Tenant
			id     string
			since  time.Time
			atMost int
			want   int
		}{
			{a, "e1", start, 100, 5},
			{a, "e1", start, 3, 3}, // it stops at atMost
			{a, "e1", start.Add(3 * time.Minute), 100, 3},
			{a, "e1", e.clock.Now().Add(time.Nanosecond), 100, 0},
			{a, "e1", start, 0, 0},
			{a, "e2", start, 100, 1},
			{b, "e1", start, 100, 1},
			{a, "unknown", start, 100, 0},
		} {
			n, err := c.tn.CountOccurrences(t.Context(), c.id, c.since, c.atMost)
			if err != nil || n != c.want {
				t.Errorf("CountOccurrences(%s, since %v, at most %d) = %d, %v; want %d", c.id, c.since.Sub(start), c.atMost, n, err, c.want)
			}
		}
	}},
	{"IDsAndFeedbackAfter", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		head, err := a.LatestOccurrence(t.Context())
		must(t, err)
		if none, err := a.FeedbackAfter(t.Context(), head, 10); err != nil || len(none) != 0 {
			t.Errorf("FeedbackAfter(LatestOccurrence) of an empty store = %+v, %v; want none", none, err)
		}
		var ids []int64
		keys := []string{"d1", "d2", "d3"}
		for i, key := range keys {
			id := save(t, a, newOccurrence(key, fmt.Sprint("e", i%2), e.clock.Advance(time.Second)))
			if id <= 0 || (len(ids) > 0 && id <= ids[len(ids)-1]) {
				t.Fatalf("occurrence %s saved with ID %d after %v: want a growing positive ID", key, id, ids)
			}
			ids = append(ids, id)
		}
		if id := save(t, a, newOccurrence("d2", "e1", e.clock.Now())); id != 0 {
			t.Errorf("saving a delivery again returned ID %d, want 0", id)
		}
		save(t, b, newOccurrence("d9", "e9", e.clock.Advance(time.Second))) // another tenant's
		saved := feedbackAfter(t, a, head, 3)
		if len(saved) != 3 {
			t.Fatalf("FeedbackAfter(the empty store's LatestOccurrence) = %d events, want 3 (tenant a's)", len(saved))
		}
		latest := latestFrom(t, a.LatestOccurrence, saved[2].ID)
		save(t, a, newOccurrence("d4", "e4", e.clock.Advance(time.Second)))
		next := feedbackAfter(t, a, latest, 1)
		if len(next) != 1 || !sameJSON(next[0].Feedback, newOccurrence("d4", "e4", Epoch).Feedback) {
			t.Fatalf("FeedbackAfter(LatestOccurrence) = %+v, want the one occurrence saved since", next)
		}
		all := feedbackAfter(t, a, 0, 4)
		if len(all) != 4 {
			t.Fatalf("FeedbackAfter(0) = %d, want 4 (tenant a's)", len(all))
		}
		keys = append(keys, "d4")
		for i, f := range all {
			want := newOccurrence(keys[i], fmt.Sprint("e", i%2), Epoch)
			if i == 3 {
				want = newOccurrence("d4", "e4", Epoch)
			}
			if (i > 0 && f.ID <= all[i-1].ID) || (i < 3 && f.ID != saved[i].ID) || !sameJSON(f.Feedback, want.Feedback) {
				t.Errorf("feedback %d: %d %s, want %s at a growing position", i, f.ID, f.Feedback, want.Feedback)
			}
		}
		after, err := a.FeedbackAfter(t.Context(), all[0].ID, 1)
		must(t, err)
		if len(after) != 1 || after[0].ID != all[1].ID {
			t.Errorf("FeedbackAfter(%d, 1) = %+v, want the one at %d", all[0].ID, after, all[1].ID)
		}
		if none, err := a.FeedbackAfter(t.Context(), all[3].ID, 10); err != nil || len(none) != 0 {
			t.Errorf("FeedbackAfter(the last) = %+v, %v; want none", none, err)
		}
		// ErrorRecord's occurrences carry their IDs, the latest first.
		if r := record(t, a, "e0"); len(r.Occurrences) != 2 || r.Occurrences[0].ID != ids[2] || r.Occurrences[1].ID != ids[0] {
			t.Errorf("record e0's occurrences: %+v", r.Occurrences)
		}
	}},
	{"SaveCompletesTheDeliveryAndEnqueuesJobs", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		_, first, err := tn.Claim(t.Context(), "d1")
		must(t, err)
		if !first {
			t.Fatal("a new key's claim is not first")
		}
		o := newOccurrence("d1", "e1", Epoch)
		o.Feedback = json.RawMessage(`{"error_id":"e1","user_message":"saved","next_action":"resume"}`)
		runAt := time.Now().Add(time.Minute) // River's clock is the real one
		o.Jobs = []store.NewJob{
			{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"attempt":2}`), RunAt: runAt},
			{Kind: store.JobEscalation, ErrorID: "e1", Payload: json.RawMessage(`{}`), MaxAttempts: 3},
		}
		save(t, tn, o)
		prior, first, err := tn.Claim(t.Context(), "d1")
		must(t, err)
		if first || prior == nil || prior.UserMessage != "saved" {
			t.Fatalf("after SaveOccurrence, Claim = %+v, first %v: want the saved feedback", prior, first)
		}
		e.clock.Advance(3 * store.ClaimLease) // a saved delivery is no claim in flight: it does not expire
		res, err := tn.Start(t.Context(), triage.StartRequest{Key: "d1", AttemptKey: "q|e1", Agent: "agent", Code: "X", At: Epoch})
		must(t, err)
		if res.First || res.Prior == nil || res.Prior.UserMessage != "saved" {
			t.Fatalf("after SaveOccurrence and 3 leases, Start = %+v: want the saved feedback", res)
		}
		save(t, tn, o) // again: nothing changes
		r := record(t, tn, "e1")
		if r.Count != 1 || len(r.Jobs) != 2 || r.Jobs[0].Kind != store.JobRetry || r.Jobs[1].Kind != store.JobEscalation ||
			!near(r.Jobs[0].RunAt, runAt) || r.Jobs[0].State != store.JobScheduled {
			t.Errorf("record after saving twice: count %d, jobs %+v", r.Count, r.Jobs)
		}
		if len(r.Jobs) == 2 && (!sameJSON(r.Jobs[0].Payload, json.RawMessage(`{"attempt":2}`)) || r.Jobs[0].MaxAttempts != store.DefaultMaxAttempts ||
			r.Jobs[1].MaxAttempts != 3 || store.JobFinished(r.Jobs[0].State) || r.Jobs[1].State != store.JobAvailable) {
			t.Errorf("the saved jobs: %+v", r.Jobs)
		}
		if _, _, err := e.s.Tenant("b").Claim(t.Context(), "d1"); err != nil {
			t.Fatal(err)
		}
		if rb, ok, _ := e.s.Tenant("b").ErrorRecord(t.Context(), "e1"); ok {
			t.Errorf("tenant b sees %+v", rb)
		}
	}},
	{"SaveAndGet", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		o := newOccurrence("d1", "e1", Epoch)
		o.ReceivedAt = time.Time{} // received now
		save(t, tn, o)
		o.ReceivedAt = Epoch
		r := record(t, tn, "e1")
		checkRecord(t, r, 1, Epoch, Epoch, o)
		if len(r.Occurrences) != 1 {
			t.Fatalf("occurrences = %d, want 1", len(r.Occurrences))
		}
		checkOccurrence(t, r.Occurrences[0], o)
		if len(r.Jobs) != 0 {
			t.Errorf("jobs = %+v, want none", r.Jobs)
		}
	}},
	{"UnknownError", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		save(t, tn, newOccurrence("d1", "e1", Epoch))
		if r, ok, err := tn.ErrorRecord(t.Context(), "e2"); err != nil || ok {
			t.Errorf("ErrorRecord(e2) = %+v, %v, %v; want not found", r, ok, err)
		}
	}},
	{"IdempotentOnDeliveryKey", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		o := newOccurrence("d1", "e1", Epoch)
		save(t, tn, o)
		again := newOccurrence("d1", "e1", Epoch.Add(time.Minute))
		again.Severity, again.Report = "critical", json.RawMessage(`{"other": true}`)
		save(t, tn, again)
		save(t, tn, o)
		r := record(t, tn, "e1")
		checkRecord(t, r, 1, Epoch, Epoch, o)
		if len(r.Occurrences) != 1 {
			t.Errorf("occurrences = %d, want 1", len(r.Occurrences))
		}
	}},
	{"SavedAgainCompletesAndEnqueues", func(t *testing.T, e *env) {
		// A delivery handled anew after its claim expired: its occurrence
		// is there, but the feedback the client got is the new one, and
		// the jobs it promised run.
		tn := e.s.Tenant("a")
		o := newOccurrence("d1", "e1", Epoch)
		o.Jobs = []store.NewJob{{Kind: store.JobRetry, ErrorID: "e1", RunAt: Epoch}}
		save(t, tn, o)
		e.clock.Advance(8 * 24 * time.Hour)
		_, err := e.s.Expire(t.Context(), store.Retention{}) // the claim, not the record
		must(t, err)
		claim(t, tn, "d1", nil, true)
		again := newOccurrence("d1", "e1", e.clock.Now())
		again.Feedback = json.RawMessage(`{"error_id": "e1", "attempt": 2}`)
		again.Jobs = []store.NewJob{{Kind: store.JobEscalation, ErrorID: "e1", RunAt: Epoch}}
		if id := save(t, tn, again); id != 0 {
			t.Errorf("saved again: ID %d, want 0", id)
		}
		r := record(t, tn, "e1")
		if r.Count != 1 || len(r.Occurrences) != 1 {
			t.Errorf("count %d, %d occurrences; want 1, 1", r.Count, len(r.Occurrences))
		}
		if len(r.Jobs) != 2 || r.Jobs[0].Kind != store.JobRetry || r.Jobs[1].Kind != store.JobEscalation {
			t.Errorf("jobs %+v; want the first save's retry and the second's escalation", r.Jobs)
		}
		// Saved once more, as a duplicate would be: nothing changes.
		save(t, tn, again)
		if r := record(t, tn, "e1"); len(r.Jobs) != 2 {
			t.Errorf("a third save enqueued again: %d jobs", len(r.Jobs))
		}
		prior, first, err := tn.Claim(t.Context(), "d1")
		must(t, err)
		if first || prior == nil || prior.Attempt != 2 {
			t.Errorf("the delivery after the second save: first %v, feedback %+v; want its feedback (attempt 2)", first, prior)
		}
	}},
	{"NoDeliveryKeyIsNeverADuplicate", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		o := newOccurrence("", "e1", Epoch)
		save(t, tn, o)
		save(t, tn, o)
		if r := record(t, tn, "e1"); r.Count != 2 || len(r.Occurrences) != 2 {
			t.Errorf("count %d, %d occurrences; want 2, 2", r.Count, len(r.Occurrences))
		}
	}},
	{"StreamStart", func(t *testing.T, e *env) {
		a := e.s.Tenant("a")
		save(t, a, newOccurrence("d1", "e1", e.clock.Advance(time.Second)))
		save(t, e.s.Tenant("b"), newOccurrence("d2", "e2", e.clock.Advance(time.Second)))
		start, before, err := a.StreamStart(t.Context(), 10)
		must(t, err)
		// What a stream from start reads now was committed before it began.
		now, err := a.FeedbackAfter(t.Context(), start, 10)
		must(t, err)
		for _, f := range now {
			if !slices.Contains(before, f.ID) {
				t.Errorf("StreamStart = %d, %v; FeedbackAfter(%d) has %d, committed before it but not in it", start, before, start, f.ID)
			}
		}
		// What is saved after, it reads, and it is not among before.
		save(t, a, newOccurrence("d3", "e3", e.clock.Advance(time.Second)))
		want := newOccurrence("d3", "e3", Epoch).Feedback
		deadline := time.Now().Add(10 * time.Second) // on PostgreSQL, other transactions may hold it back a moment
		for {
			got, err := a.FeedbackAfter(t.Context(), start, 10)
			must(t, err)
			i := slices.IndexFunc(got, func(f store.SavedFeedback) bool { return sameJSON(f.Feedback, want) })
			if i >= 0 {
				if slices.Contains(before, got[i].ID) {
					t.Errorf("the occurrence saved after StreamStart is among its before, %v", before)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("FeedbackAfter(StreamStart) = %+v, without the occurrence saved since", got)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}},
	{"LatestOccurrenceWins", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		o1 := newOccurrence("d1", "e1", Epoch)
		o2 := newOccurrence("d2", "e1", Epoch.Add(time.Hour))
		o2.Severity, o2.NextAction, o2.Attempt, o2.AgentID = "critical", "escalate", 2, "sql_agent_v2"
		save(t, tn, o1)
		save(t, tn, o2)
		r := record(t, tn, "e1")
		checkRecord(t, r, 2, Epoch, Epoch.Add(time.Hour), o2)
		if len(r.Occurrences) != 2 {
			t.Fatalf("occurrences = %d, want 2", len(r.Occurrences))
		}
		checkOccurrence(t, r.Occurrences[0], o2)
		checkOccurrence(t, r.Occurrences[1], o1)
	}},
	{"OccurrencesLatestFirst", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		late := newOccurrence("d1", "e1", Epoch.Add(2*time.Hour))
		early := newOccurrence("d2", "e1", Epoch.Add(time.Hour))
		early.Severity = "low"
		save(t, tn, late)
		save(t, tn, early) // saved last, received first
		r := record(t, tn, "e1")
		checkRecord(t, r, 2, Epoch.Add(time.Hour), Epoch.Add(2*time.Hour), late)
		if len(r.Occurrences) != 2 {
			t.Fatalf("occurrences = %d, want 2", len(r.Occurrences))
		}
		checkOccurrence(t, r.Occurrences[0], late)
		checkOccurrence(t, r.Occurrences[1], early)
	}},
	{"RecordHasItsJobs", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		save(t, tn, newOccurrence("d1", "e1", Epoch))
		save(t, tn, newOccurrence("d2", "e2", Epoch))
		later := time.Now().Add(time.Hour)
		j1 := enqueue(t, tn, store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 1}`), RunAt: later, MaxAttempts: 3})
		enqueue(t, tn, store.NewJob{Kind: store.JobRetry, ErrorID: "e2"})
		before := time.Now()
		j3 := enqueue(t, tn, store.NewJob{Kind: store.JobEscalation, ErrorID: "e1"})
		after := time.Now()
		r := record(t, tn, "e1")
		if len(r.Jobs) != 2 || r.Jobs[0].ID != j1 || r.Jobs[1].ID != j3 || r.MoreJobs {
			t.Fatalf("jobs = %+v, more %v; want %d and %d", r.Jobs, r.MoreJobs, j1, j3)
		}
		want := store.Job{ID: j1, Tenant: "a", Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 1}`),
			State: store.JobScheduled, RunAt: later, MaxAttempts: 3}
		checkJob(t, r.Jobs[0], want)
		want = store.Job{ID: j3, Tenant: "a", Kind: store.JobEscalation, ErrorID: "e1",
			State: store.JobAvailable, MaxAttempts: store.DefaultMaxAttempts}
		checkJob(t, r.Jobs[1], want)
		if at := r.Jobs[1].RunAt; at.Before(before.Add(-time.Second)) || at.After(after.Add(time.Second)) {
			t.Errorf("a job without RunAt is due at %v, want now (%v)", at, before)
		}
	}},
}

// listed returns the error IDs of a page.
func listed(p store.Page) []string {
	var ids []string
	for _, r := range p.Records {
		ids = append(ids, r.ErrorID)
	}
	return ids
}

func list(t *testing.T, tn store.Records, f store.Filter) store.Page {
	t.Helper()
	p, err := tn.ErrorRecords(t.Context(), f)
	must(t, err)
	return p
}

// saveErrors saves one occurrence of each error, a minute apart.
func saveErrors(t *testing.T, e *env, tn store.OccurrenceSaver, ids ...string) {
	t.Helper()
	for _, id := range ids {
		save(t, tn, newOccurrence("d-"+id, id, e.clock.Advance(time.Minute)))
	}
}

var listTests = []test{
	{"NewestFirstSeenFirst", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		saveErrors(t, e, tn, "e1", "e2", "e3")
		// Seen again, e1 keeps its place.
		o := newOccurrence("d-e1-again", "e1", e.clock.Advance(time.Minute))
		save(t, tn, o)
		p := list(t, tn, store.Filter{Sort: store.SortFirstSeen})
		if got := listed(p); !slices.Equal(got, []string{"e3", "e2", "e1"}) {
			t.Fatalf("records = %q, want e3, e2, e1", got)
		}
		if p.Next != "" {
			t.Errorf("Next = %q on the only page", p.Next)
		}
		checkSummary(t, p.Records[2], 2, Epoch.Add(time.Minute), o.ReceivedAt, o)
	}},
	{"Empty", func(t *testing.T, e *env) {
		p := list(t, e.s.Tenant("a"), store.Filter{})
		if len(p.Records) != 0 || p.Next != "" {
			t.Errorf("ErrorRecords of none = %+v", p)
		}
	}},
	{"Filters", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		for i, f := range []struct{ id, query, agent, typ, sev string }{
			{"e1", "q1", "sql_agent", "schema_error", "high"},
			{"e2", "q1", "chart_agent", "chart_error", "low"},
			{"e3", "q2", "sql_agent", "query_error", "high"},
			{"e4", "q3", "sql_agent", "schema_error", "critical"},
		} {
			o := newOccurrence("d-"+f.id, f.id, Epoch.Add(time.Duration(i)*time.Minute))
			o.QueryID, o.AgentID, o.ErrorType, o.Severity = f.query, f.agent, f.typ, f.sev
			save(t, tn, o)
		}
		// e1 again, later: last seen at +10m.
		o := newOccurrence("d-e1-again", "e1", Epoch.Add(10*time.Minute))
		o.QueryID = "q1"
		save(t, tn, o)
		for _, c := range []struct {
			f    store.Filter
			want []string
		}{
			{store.Filter{QueryID: "q1"}, []string{"e2", "e1"}},
			{store.Filter{AgentID: "sql_agent"}, []string{"e4", "e3", "e1"}},
			{store.Filter{ErrorType: "schema_error"}, []string{"e4", "e1"}},
			{store.Filter{Severity: "high"}, []string{"e3", "e1"}},
			{store.Filter{Since: Epoch.Add(2 * time.Minute)}, []string{"e4", "e3", "e1"}},
			{store.Filter{Since: Epoch.Add(10*time.Minute + 1)}, nil},
			{store.Filter{AgentID: "sql_agent", ErrorType: "schema_error", Severity: "critical"}, []string{"e4"}},
			{store.Filter{QueryID: "q1", Since: Epoch.Add(time.Minute + 1)}, []string{"e1"}},
			{store.Filter{QueryID: "nope"}, nil},
		} {
			c.f.Sort = store.SortFirstSeen
			if got := listed(list(t, tn, c.f)); !slices.Equal(got, c.want) {
				t.Errorf("ErrorRecords(%+v) = %q, want %q", c.f, got, c.want)
			}
		}
	}},
	{"EnvironmentAndRelease", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		// Each record's occurrences, in order: release and environment.
		for _, r := range []struct {
			id  string
			occ [][2]string
		}{
			{"e1", [][2]string{{"1.0", "prod"}, {"1.1", "staging"}}},
			{"e2", [][2]string{{"1.1", "prod"}}},
			{"e3", [][2]string{{"", ""}, {"1.2", "prod"}, {"", ""}}},
			{"e4", [][2]string{{"1.0", "prod"}, {"1.1", "prod"}, {"1.2", "prod"}}},
			{"e5", [][2]string{{"", ""}}},
		} {
			for i, occ := range r.occ {
				o := newOccurrence(fmt.Sprintf("d-%s-%d", r.id, i), r.id, e.clock.Advance(time.Minute))
				o.Release, o.Environment = occ[0], occ[1]
				save(t, tn, o)
			}
		}
		for _, c := range []struct {
			f    store.Filter
			want []string
		}{
			// The latest environment named: e1's moved to staging.
			{store.Filter{Environment: "prod"}, []string{"e4", "e3", "e2"}},
			{store.Filter{Environment: "staging"}, []string{"e1"}},
			// The first or latest release named: e4's 1.1 is neither.
			{store.Filter{Release: "1.0"}, []string{"e4", "e1"}},
			{store.Filter{Release: "1.1"}, []string{"e2", "e1"}},
			{store.Filter{Release: "1.2"}, []string{"e4", "e3"}},
			{store.Filter{Release: "1.1", Environment: "prod"}, []string{"e2"}},
			{store.Filter{Release: "1.2", Search: "sql"}, []string{"e4", "e3"}},
			{store.Filter{Release: "2.0"}, nil},
			{store.Filter{Environment: "dev"}, nil},
		} {
			c.f.Sort = store.SortFirstSeen
			p := list(t, tn, c.f)
			if got := listed(p); !slices.Equal(got, c.want) || p.Total != len(c.want) {
				t.Errorf("ErrorRecords(%+v) = %q (total %d), want %q", c.f, got, p.Total, c.want)
			}
		}
		// A bulk change selects the same records.
		changed, err := tn.ChangeRecords(t.Context(), store.Filter{Release: "1.2"}, triage.Change{Status: triage.StatusResolved}, "ana")
		must(t, err)
		slices.Sort(changed)
		if !slices.Equal(changed, []string{"e3", "e4"}) {
			t.Errorf("ChangeRecords(release 1.2) changed %q, want e3, e4", changed)
		}
	}},
	{"Pages", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		var all []string
		for i := range 11 {
			all = append(all, fmt.Sprintf("e%02d", i))
		}
		saveErrors(t, e, tn, all...)
		slices.Reverse(all)
		for _, size := range []int{1, 3, 4, 11} {
			var got []string
			f := store.Filter{Limit: size}
			for pages := 1; ; pages++ {
				p := list(t, tn, f)
				if len(p.Records) > size {
					t.Fatalf("limit %d: page of %d", size, len(p.Records))
				}
				got = append(got, listed(p)...)
				if p.Next == "" {
					if want := (len(all) + size - 1) / size; pages != want {
						t.Errorf("limit %d: %d pages, want %d", size, pages, want)
					}
					break
				}
				if pages > len(all) {
					t.Fatalf("limit %d: more pages than records", size)
				}
				f.Cursor = p.Next
			}
			if !slices.Equal(got, all) {
				t.Errorf("limit %d: paged through %q, want %q", size, got, all)
			}
		}
	}},
	{"PagesWithFilter", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		var want []string
		for i := range 9 {
			o := newOccurrence(fmt.Sprint("d", i), fmt.Sprint("e", i), e.clock.Advance(time.Minute))
			if i%3 == 0 {
				o.AgentID = "chart_agent"
				want = append([]string{o.ErrorID}, want...)
			}
			save(t, tn, o)
		}
		var got []string
		f := store.Filter{AgentID: "chart_agent", Limit: 2}
		for range 10 {
			p := list(t, tn, f)
			got = append(got, listed(p)...)
			if f.Cursor = p.Next; f.Cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("paged through %q, want %q", got, want)
		}
	}},
	{"NewRecordsDoNotShiftPages", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		saveErrors(t, e, tn, "e1", "e2", "e3", "e4")
		p := list(t, tn, store.Filter{Limit: 2})
		saveErrors(t, e, tn, "e5")
		p = list(t, tn, store.Filter{Limit: 2, Cursor: p.Next})
		if got := listed(p); !slices.Equal(got, []string{"e2", "e1"}) || p.Next != "" {
			t.Errorf("second page = %q, next %q; want e2, e1 and no next", got, p.Next)
		}
	}},
	{"BadCursor", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		saveErrors(t, e, tn, "e1", "e2")
		for _, c := range []string{"garbage!", "%%%", "bm90IGEgY3Vyc29y" /* base64 of "not a cursor" */} {
			_, err := tn.ErrorRecords(t.Context(), store.Filter{Cursor: c})
			if !errors.Is(err, store.ErrBadCursor) {
				t.Errorf("ErrorRecords(cursor %q) error = %v, want ErrBadCursor", c, err)
			}
		}
	}},
	{"LimitBounds", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		for i := range store.MaxLimit + 1 {
			save(t, tn, newOccurrence(fmt.Sprint("d", i), fmt.Sprint("e", i), e.clock.Advance(time.Second)))
		}
		for _, c := range []struct{ limit, want int }{
			{0, store.DefaultLimit},
			{-5, store.DefaultLimit},
			{1, 1},
			{store.MaxLimit, store.MaxLimit},
			{store.MaxLimit + 1, store.MaxLimit},
			{100 * store.MaxLimit, store.MaxLimit},
		} {
			p := list(t, tn, store.Filter{Limit: c.limit})
			if len(p.Records) != c.want || p.Next == "" {
				t.Errorf("limit %d: %d records, next %q; want %d and a next page", c.limit, len(p.Records), p.Next, c.want)
			}
		}
	}},
}

var isolationTests = []test{
	{"Attempts", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		for range 3 {
			if _, err := a.Next(t.Context(), "q1|E"); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := b.Next(t.Context(), "q1|E"); err != nil || n != 1 {
			t.Errorf("tenant b: Next = %d, %v; want 1", n, err)
		}
	}},
	{"History", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		for range 3 {
			if _, err := a.Record(t.Context(), "sql", "E", Epoch, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := b.Record(t.Context(), "sql", "E", Epoch, time.Hour); err != nil || n != 1 {
			t.Errorf("tenant b: Record = %d, %v; want 1", n, err)
		}
	}},
	{"Deliveries", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		claim(t, a, "k", nil, true)
		must(t, a.Complete(t.Context(), "k", sampleFeedback("e1", Epoch)))
		claim(t, b, "k", nil, true)
		must(t, b.Release(t.Context(), "k"))
		claim(t, a, "k", sampleFeedback("e1", Epoch), false)
	}},
	{"Schemas", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		must(t, a.PutSchema(t.Context(), "orders", triage.SchemaInfo{
			Fields: []string{"sku_id"}, Synonyms: map[string]string{"product_id": "sku_id"},
		}))
		lookup(t, b, "orders", "product_id", "", false)
		fields(t, b, "orders", nil)
		lookup(t, a, "orders", "product_id", "sku_id", true)
	}},
	{"Cache", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		must(t, a.PutCache(t.Context(), "q1", triage.CachedResult{StoredAt: Epoch, Summary: "4 rows"}))
		if _, ok, err := b.Get(t.Context(), "q1"); err != nil || ok {
			t.Errorf("tenant b: Get = %v, %v; want not found", ok, err)
		}
	}},
	{"Agents", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		must(t, a.PutAgent(t.Context(), store.Agent{ID: "sql_agent", CallbackURL: "https://a.example"}))
		if _, ok, err := b.Agent(t.Context(), "sql_agent"); err != nil || ok {
			t.Errorf("tenant b: Agent = %v, %v; want not found", ok, err)
		}
		must(t, b.PutAgent(t.Context(), store.Agent{ID: "sql_agent", CallbackURL: "https://b.example"}))
		checkAgent(t, a, store.Agent{ID: "sql_agent", CallbackURL: "https://a.example", UpdatedAt: Epoch})
	}},
	{"Records", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		o := newOccurrence("d1", "e1", Epoch)
		save(t, a, o)
		enqueue(t, a, store.NewJob{Kind: store.JobRetry, ErrorID: "e1"})
		if _, ok, err := b.ErrorRecord(t.Context(), "e1"); err != nil || ok {
			t.Errorf("tenant b: ErrorRecord = %v, %v; want not found", ok, err)
		}
		if p := list(t, b, store.Filter{}); len(p.Records) != 0 {
			t.Errorf("tenant b: ErrorRecords = %q, want none", listed(p))
		}
		// The same delivery of the same error is tenant b's own.
		save(t, b, o)
		r := record(t, b, "e1")
		checkRecord(t, r, 1, Epoch, Epoch, o)
		if len(r.Jobs) != 0 {
			t.Errorf("tenant b's record has tenant a's jobs: %+v", r.Jobs)
		}
		if ra := record(t, a, "e1"); ra.Count != 1 || len(ra.Jobs) != 1 {
			t.Errorf("tenant a's record: count %d, %d jobs; want 1, 1", ra.Count, len(ra.Jobs))
		}
	}},
	{"IdempotencyKeys", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		begin(t, a, "key", "h1", store.IdemNew, store.StoredResponse{})
		begin(t, b, "key", "h2", store.IdemNew, store.StoredResponse{})
		resp := store.StoredResponse{Status: 201, ContentType: "application/json", Body: []byte(`{"a": 1}`)}
		must(t, a.FinishRequest(t.Context(), "key", resp))
		begin(t, b, "key", "h2", store.IdemInFlight, store.StoredResponse{})
		must(t, b.AbandonRequest(t.Context(), "key"))
		begin(t, a, "key", "h1", store.IdemDone, resp)
	}},
	{"Jobs", func(t *testing.T, e *env) {
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		save(t, a, newOccurrence("d1", "e1", Epoch))
		save(t, b, newOccurrence("d1", "e1", Epoch))
		// The same job of two tenants is two jobs.
		j := store.NewJob{Kind: store.JobRetry, ErrorID: "e1", Payload: json.RawMessage(`{"n": 1}`)}
		ja, jb := enqueue(t, a, j), enqueue(t, b, j)
		if ja == jb {
			t.Fatalf("tenants a and b enqueued one job, %d", ja)
		}
		for tenant, id := range map[string]int64{"a": ja, "b": jb} {
			r := record(t, e.s.Tenant(tenant), "e1")
			if len(r.Jobs) != 1 || r.Jobs[0].ID != id || r.Jobs[0].Tenant != tenant || r.MoreJobs {
				t.Errorf("tenant %s: jobs %+v, want only %d", tenant, r.Jobs, id)
			}
		}
	}},
}

// feedbackAfter reads tn's FeedbackAfter(after) until it holds want
// events (or more), for at most 5 s, and returns the last read. Where
// positions are transaction IDs (PostgreSQL), an occurrence is readable
// only once every transaction older than its own has ended, and other
// clients of the database (River's, in tests running beside these) may
// have one open for a moment.
// latestFrom returns what latest returns once it is at or after pos: on
// PostgreSQL a transaction open elsewhere in the cluster (another test's,
// another database's) holds the latest position back until it ends.
func latestFrom(t *testing.T, latest func(context.Context) (int64, error), pos int64) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := latest(t.Context())
		must(t, err)
		if got >= pos {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("latest position = %d, still before %d, committed 10 s ago", got, pos)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func feedbackAfter(t *testing.T, tn store.Feed, after int64, want int) []store.SavedFeedback {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := tn.FeedbackAfter(t.Context(), after, 10)
		must(t, err)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}
