package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

var throttleTests = []test{
	{"FireAlert", func(t *testing.T, e *env) {
		ctx := t.Context()
		a, b := e.s.Tenant("a"), e.s.Tenant("b")
		fire := func(tn store.Throttles, subject string, job int64) store.Firing {
			t.Helper()
			f, err := tn.FireAlert(ctx, "escalation", subject, time.Hour, job)
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
				f, err := a.FireAlert(t.Context(), "escalation", "err_c", time.Hour, int64(i+1))
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
}
