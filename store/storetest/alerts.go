package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

var throttleTests = []test{
	{"FireAlert", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		fire := func(tn store.Throttles, subject string, job int64) store.Firing {
			t.Helper()
			f, err := tn.FireAlert(ctx, "escalation", subject, time.Hour, job, nil)
			must(t, err)
			return f
		}
		first := e.clock.Now()
		if f := fire(a, "err_1", 1); !f.Send || f.Held != 0 {
			t.Fatalf("the first firing: %+v, want a notification", f)
		}
		// 152 more within the hour, by other jobs: held back, counted.
		var heldSince time.Time
		for i := range 152 {
			e.clock.Advance(time.Second)
			if i == 0 {
				heldSince = e.clock.Now()
			}
			if f := fire(a, "err_1", int64(2+i)); f.Send {
				t.Fatalf("firing %d within the hour notified: %+v", i+2, f)
			}
		}
		// The winner's next attempt (its post failed) notifies again, as
		// the first time.
		if f := fire(a, "err_1", 1); !f.Send || f.Held != 0 {
			t.Errorf("the winner's retry: %+v, want a notification", f)
		}
		// Another subject, and another tenant's same subject, have their own.
		if f := fire(a, "err_2", 500); !f.Send {
			t.Errorf("another record: %+v", f)
		}
		if f := fire(b, "err_1", 501); !f.Send {
			t.Errorf("another tenant: %+v", f)
		}
		// An hour after the first: the next notifies for the 152 held.
		e.clock.Advance(first.Add(time.Hour).Sub(e.clock.Now()))
		f := fire(a, "err_1", 600)
		if !f.Send || f.Held != 152 || !f.HeldSince.Equal(heldSince) {
			t.Fatalf("after the hour: %+v, want a notification for 152 held since %v", f, heldSince)
		}
		if again := fire(a, "err_1", 600); again != f {
			t.Errorf("the new winner's retry: %+v, want %+v", again, f)
		}
		if f := fire(a, "err_1", 1); f.Send {
			t.Errorf("the old winner's late retry notified: %+v", f)
		}

		// A throttle idle for more than a week and holding nothing goes;
		// one holding firings stays.
		e.clock.Advance(8 * 24 * time.Hour)
		n, err := e.s.Expire(ctx, store.Retention{})
		must(t, err)
		if n != 2 {
			t.Errorf("Expire deleted %d rows, want 2 (a's err_2 and b's err_1)", n)
		}
		if f := fire(a, "err_1", 701); !f.Send || f.Held != 1 {
			t.Errorf("a throttle holding a firing was expired: %+v", f)
		}
	}},
	{"FireAlertConcurrently", func(t *testing.T, e *env) {
		// Of 20 firings at once, on a new throttle, one notifies: the
		// others see its row, whichever instance they run on.
		a := e.s.Tenant("a")
		var wg sync.WaitGroup
		var mu sync.Mutex
		sent, held := 0, 0
		for i := range 20 {
			wg.Go(func() {
				f, err := a.FireAlert(t.Context(), "escalation", "err_c", time.Hour, int64(i+1), nil)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if f.Send {
					sent++
				} else {
					held++
				}
			})
		}
		wg.Wait()
		if sent != 1 || held != 19 {
			t.Errorf("%d notified and %d were held, want 1 and 19", sent, held)
		}
	}},
	{"AlertDigest", func(t *testing.T, e *env) {
		// The first firing held back enqueues the one digest, due when
		// the interval ends; the later ones enqueue none.
		ctx := t.Context()
		a := e.s.Tenant("a")
		save(t, a, newOccurrence("d1", "err_d", Epoch))
		digest := &store.NewJob{Kind: store.JobAlert, ErrorID: "err_d", Payload: []byte(`{"digest":true}`)}
		fire := func(job int64) store.Firing {
			t.Helper()
			f, err := a.FireAlert(ctx, "freq/hook", "err_d", time.Hour, job, digest)
			must(t, err)
			return f
		}
		first := e.clock.Now()
		if f := fire(1); !f.Send {
			t.Fatalf("the first firing: %+v", f)
		}
		e.clock.Advance(time.Minute)
		heldSince := e.clock.Now()
		for i := range 5 {
			if f := fire(int64(2 + i)); f.Send {
				t.Fatalf("firing %d notified", i+2)
			}
		}
		var digests []store.Job
		for _, j := range record(t, a, "err_d").Jobs {
			if j.Kind == store.JobAlert {
				digests = append(digests, j)
			}
		}
		// (Due at first+1h, by the test clock: in the past, which River
		// runs at once.)
		if len(digests) != 1 || digests[0].RunAt.Before(first.Add(time.Hour)) {
			t.Fatalf("the digests enqueued: %+v, want one, due at %v or later", digests, first.Add(time.Hour))
		}
		dig := func(job int64) store.Firing {
			t.Helper()
			f, err := a.DigestAlert(ctx, "freq/hook", "err_d", time.Hour, job)
			must(t, err)
			return f
		}
		// Early (another instance's clock): not yet, and when.
		if f := dig(100); f.Send || !f.DigestAt.Equal(first.Add(time.Hour)) {
			t.Fatalf("an early digest: %+v", f)
		}
		e.clock.Advance(time.Hour)
		want := store.Firing{Send: true, Held: 5, HeldSince: heldSince}
		if f := dig(100); f != want {
			t.Fatalf("the digest: %+v, want %+v", f, want)
		}
		if f := dig(100); f != want {
			t.Errorf("the digest's retry: %+v, want %+v", f, want)
		}
		// It restarted the throttle: the next firing within the hour is held.
		if f := fire(200); f.Send {
			t.Errorf("a firing after the digest notified: %+v", f)
		}
		// A notification that carried the held firings leaves the digest
		// nothing.
		e.clock.Advance(time.Hour)
		if f := fire(300); !f.Send || f.Held != 1 {
			t.Fatalf("the next notification: %+v", f)
		}
		if f := dig(301); f != (store.Firing{}) {
			t.Errorf("a digest after a notification carried its firings: %+v", f)
		}
	}},
	{"AlertRules", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		rules, targets, err := a.AlertRules(ctx)
		must(t, err)
		if rules != nil || targets != nil {
			t.Fatalf("a new tenant's: %v %v", rules, targets)
		}
		wantR := []triage.AlertRule{{ID: "freq", When: triage.TriggerFrequency, Count: 10, WindowSeconds: 60, Targets: []string{"hook"}}}
		wantT := []triage.AlertTarget{{Name: "hook", Kind: triage.TargetWebhook, URL: "https://hooks.example.com/x", Secret: "whsec_c2VjcmV0"}}
		must(t, a.ChangeAlertRules(ctx, func(r []triage.AlertRule, tg []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
			return append(r, wantR...), append(tg, wantT...), nil
		}))
		rules, targets, err = a.AlertRules(ctx)
		must(t, err)
		if !reflect.DeepEqual(rules, wantR) || !reflect.DeepEqual(targets, wantT) {
			t.Errorf("read back: %+v %+v", rules, targets)
		}
		if rules, targets, err := b.AlertRules(ctx); err != nil || rules != nil || targets != nil {
			t.Errorf("another tenant's: %v %v %v", rules, targets, err)
		}
		// A change refused changes nothing and returns its error.
		refused := errors.New("no")
		err = a.ChangeAlertRules(ctx, func(r []triage.AlertRule, tg []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
			return nil, nil, refused
		})
		if !errors.Is(err, refused) {
			t.Errorf("a refused change: %v", err)
		}
		// Concurrent changes each see the one before.
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				err := b.ChangeAlertRules(ctx, func(r []triage.AlertRule, tg []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
					return append(r, triage.AlertRule{ID: "r", When: triage.TriggerNew}), tg, nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if rules, _, err := b.AlertRules(ctx); err != nil || len(rules) != 10 {
			t.Errorf("after 10 concurrent changes: %d rules (%v)", len(rules), err)
		}
		if rules, _, err := a.AlertRules(ctx); err != nil || !reflect.DeepEqual(rules, wantR) {
			t.Errorf("a's after b's changes: %+v (%v)", rules, err)
		}
		// Emptied: none.
		must(t, a.ChangeAlertRules(ctx, func([]triage.AlertRule, []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
			return nil, nil, nil
		}))
		if rules, targets, err := a.AlertRules(ctx); err != nil || rules != nil || targets != nil {
			t.Errorf("emptied: %v %v %v", rules, targets, err)
		}
	}},
	{"CountRuns", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		start := func(tn store.Tenant, id, agent string) {
			t.Helper()
			_, err := tn.StartRun(ctx, store.Run{RunID: id, ThreadID: "th", AgentID: agent})
			must(t, err)
		}
		end := func(tn store.Tenant, id string, failed bool) {
			t.Helper()
			en := store.RunEnd{Outcome: store.RunFinished}
			if failed {
				en = failedEnd()
			}
			_, err := tn.FinishRun(ctx, id, en)
			must(t, err)
		}
		before := e.clock.Now()
		start(a, "old", "planner")
		end(a, "old", true)
		e.clock.Advance(time.Minute)
		since := e.clock.Now()
		for i := range 10 {
			id := "r" + string(rune('0'+i))
			start(a, id, "planner")
			end(a, id, i < 4) // 4 of 10 failed
			e.clock.Advance(time.Second)
		}
		start(a, "running", "planner") // not ended: not counted
		start(a, "other", "writer")
		end(a, "other", true)
		start(b, "theirs", "planner")
		end(b, "theirs", true)
		count := func(s time.Time, atMost int) (int, int) {
			t.Helper()
			f, n, err := a.CountRuns(ctx, "planner", s, atMost)
			must(t, err)
			return f, n
		}
		if f, n := count(since, 100); f != 4 || n != 10 {
			t.Errorf("in the window: %d failed of %d, want 4 of 10", f, n)
		}
		if f, n := count(before, 100); f != 5 || n != 11 {
			t.Errorf("from before: %d failed of %d, want 5 of 11", f, n)
		}
		// The latest 6: r4 to r9, none failed.
		if f, n := count(since, 6); f != 0 || n != 6 {
			t.Errorf("the latest 6: %d failed of %d, want 0 of 6", f, n)
		}
		if f, n, err := a.CountRuns(ctx, "nobody", before, 100); err != nil || f != 0 || n != 0 {
			t.Errorf("an agent without runs: %d %d %v", f, n, err)
		}
	}},
}
