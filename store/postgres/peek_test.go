package postgres_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// TestPeekWithoutTheCount: a report whose decision does not read the
// window's count (StartRequest.NoRecent, handler.Handler.Classify) is
// peeked and started without it on PostgreSQL, which counts by walking
// the window's failures (up to triage.MaxKept-1 entries of history_by_key
// and their rows for a busy agent): Recent is 1 whatever the window
// holds. Its failure is recorded all the same, and counted by the next
// report that reads the count.
func TestPeekWithoutTheCount(t *testing.T) {
	_, s := freshStore(t)
	ctx := t.Context()
	tn := s.Tenant("a")
	at := time.Now()
	req := func(i int, noRecent bool) triage.StartRequest {
		return triage.StartRequest{Key: fmt.Sprint("d", i), AttemptKey: fmt.Sprint("q", i, "/E"), Agent: "busy", Code: "E",
			At: at.Add(time.Duration(i) * time.Millisecond), Window: time.Hour, NoRecent: noRecent}
	}
	const failures = 10
	for i := range failures {
		if _, err := tn.Start(ctx, req(i, false)); err != nil {
			t.Fatal(err)
		}
	}
	counted, err := tn.PeekReport(ctx, req(failures, false))
	if err != nil || !counted.First || counted.Recent != failures+1 {
		t.Fatalf("a counted peek after %d failures = %+v, %v; want first, recent %d", failures, counted, err, failures+1)
	}
	p, err := tn.PeekReport(ctx, req(failures, true))
	if err != nil || !p.First || p.Attempt != 1 || p.Recent != 1 {
		t.Fatalf("a peek without the count = %+v, %v; want first, attempt 1, recent 1", p, err)
	}
	if _, err := tn.Report(ctx, req(failures, true), p.StartResult, reportOccurrence(req(failures, true), p.Attempt)); err != nil {
		t.Fatal(err)
	}
	started, err := tn.Start(ctx, req(failures+1, true))
	if err != nil || !started.First || started.Recent != 1 {
		t.Fatalf("a start without the count = %+v, %v; want first, recent 1", started, err)
	}
	if p, err := tn.PeekReport(ctx, req(failures+2, false)); err != nil || p.Recent != failures+3 {
		t.Fatalf("a counted peek after the report and the start without the count = %+v, %v; want recent %d (both recorded)", p, err, failures+3)
	}
}

// reportOccurrence is the occurrence of req's report at attempt.
func reportOccurrence(req triage.StartRequest, attempt int) store.Occurrence {
	o := occurrence(req.Key)
	o.Attempt = attempt
	return o
}
