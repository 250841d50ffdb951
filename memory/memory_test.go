package memory

import (
	"context"
	"testing"
	"time"

	"github.com/triage-go/triage"
)

// window is the handler's window for persistent failures.
const window = 15 * time.Minute

func TestHistoryWindow(t *testing.T) {
	var h History
	ctx := context.Background()
	at := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	for i, want := range []int{1, 2, 3} {
		if n, _ := h.Record(ctx, "a", "X", at.Add(time.Duration(i)*time.Minute), window); n != want {
			t.Fatalf("record %d: %d in window", i, n)
		}
	}
	if n, _ := h.Record(ctx, "a", "X", at.Add(20*time.Minute), window); n != 1 {
		t.Errorf("after the window: %d", n)
	}
	if n, _ := h.Record(ctx, "b", "X", at, window); n != 1 {
		t.Errorf("another agent: %d", n)
	}
	// A report that arrives late counts the failures in the window before
	// it, not those after.
	var late History
	for _, m := range []time.Duration{0, time.Minute, 2 * time.Minute} {
		late.Record(ctx, "a", "X", at.Add(m), window)
	}
	if n, _ := late.Record(ctx, "a", "X", at.Add(90*time.Second), window); n != 3 {
		t.Errorf("a late report: %d in window, want 3 (0:00, 1:00, 1:30)", n)
	}
	// A burst keeps at most triage.MaxKept.
	var n int
	for range triage.MaxKept + 50 {
		n, _ = h.Record(ctx, "c", "X", at, window)
	}
	if n != triage.MaxKept || len(h.events["c\x00X"]) != triage.MaxKept {
		t.Errorf("a burst: counted %d, kept %d", n, len(h.events["c\x00X"]))
	}
}

func TestBounded(t *testing.T) {
	ctx := context.Background()
	a := &Attempts{Max: 2}
	for _, k := range []string{"a", "a", "b", "c"} {
		a.Next(ctx, k)
	}
	// "a" was the oldest key and is forgotten; "b" is kept.
	if n, _ := a.Next(ctx, "a"); n != 1 {
		t.Errorf("a forgotten key counts from %d", n)
	}
	if n, _ := a.Next(ctx, "c"); n != 2 {
		t.Errorf("a kept key: %d", n)
	}
	d := &Deliveries{Max: 2}
	for _, k := range []string{"x", "y", "z"} {
		if _, first, _ := d.Claim(ctx, k); !first {
			t.Fatalf("%s claimed twice", k)
		}
		d.Complete(ctx, k, &triage.Feedback{ErrorID: k})
	}
	if _, first, _ := d.Claim(ctx, "x"); !first {
		t.Error("the oldest delivery is still remembered")
	}
	if fb, first, _ := d.Claim(ctx, "z"); first || fb.ErrorID != "z" {
		t.Errorf("the newest delivery: %v, %v", fb, first)
	}
	if len(d.seen.m) > 2 || len(d.seen.order) > 2 {
		t.Errorf("kept %d entries, %d keys in order", len(d.seen.m), len(d.seen.order))
	}
}

func TestStart(t *testing.T) {
	ctx := context.Background()
	var s State
	at := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	req := triage.StartRequest{Key: "k1", AttemptKey: "q/X", Agent: "a", Code: "X", At: at, Window: window}
	res, err := s.Start(ctx, req)
	if err != nil || !res.First || res.Attempt != 1 || res.Recent != 1 || res.Prior != nil {
		t.Fatalf("first delivery: %+v, %v", res, err)
	}
	// A duplicate counts nothing, and gets nil while the first is in flight.
	if res, err = s.Start(ctx, req); err != nil || res.First || res.Attempt != 0 || res.Recent != 0 || res.Prior != nil {
		t.Fatalf("a duplicate in flight: %+v, %v", res, err)
	}
	if err := s.Complete(ctx, "k1", &triage.Feedback{ErrorID: "err_1"}); err != nil {
		t.Fatal(err)
	}
	if res, _ = s.Start(ctx, req); res.First || res.Prior == nil || res.Prior.ErrorID != "err_1" {
		t.Fatalf("a duplicate after completion: %+v", res)
	}
	// A second delivery of the same failure is the second attempt.
	req.Key, req.At = "k2", at.Add(time.Minute)
	if res, _ = s.Start(ctx, req); !res.First || res.Attempt != 2 || res.Recent != 2 {
		t.Fatalf("second delivery: %+v", res)
	}
	// A released claim is handled anew.
	if err := s.Release(ctx, "k2"); err != nil {
		t.Fatal(err)
	}
	if res, _ = s.Start(ctx, req); !res.First || res.Attempt != 3 {
		t.Fatalf("after release: %+v", res)
	}
}
