package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// ReleaseRetried checks that a delivery claim whose Release failed (the
// storage refused the delete: a full disk refuses it as it refused the
// save before it) does not hold the delivery's retries for its lease
// (store.ClaimLease of 409 SESSION_BUSY). The store that failed to
// release it takes it over at the delivery's next Start; another
// instance (another store on the same database) finds it released within
// a few seconds; a claim saved meanwhile is not released; and the other
// tenants' claims of the same key are left alone.
//
// open opens a store on one database, the same at every call, with opts;
// ReleaseRetried closes the stores. failRelease makes the database refuse
// (on) or take (off) the deletes of the table deliveries, with an error.
func ReleaseRetried(t *testing.T, open func(t *testing.T, opts store.Config) store.Store, failRelease func(t *testing.T, on bool)) {
	ctx := t.Context()
	clk := &clock{now: Epoch}
	a := open(t, store.Config{Now: clk.Now})
	defer a.Close()
	b := open(t, store.Config{Now: clk.Now})
	defer b.Close()
	start := func(s store.Store, tenant, key string) triage.StartResult {
		t.Helper()
		res, err := s.Tenant(tenant).Start(ctx, triage.StartRequest{Key: key, AttemptKey: "q|E", Agent: "agent", Code: "E",
			At: clk.Now(), Window: time.Hour})
		must(t, err)
		return res
	}
	if !start(a, "t", "retried").First || !start(a, "u", "retried").First {
		t.Fatal("the first claims are not first")
	}
	failRelease(t, true)
	if err := a.Tenant("t").Release(ctx, "retried"); err == nil {
		t.Fatal("Release succeeded though the database refuses deletes")
	}
	// The retry, on the store that failed to release the claim (the
	// database still refusing deletes): handled anew.
	if res := start(a, "t", "retried"); !res.First {
		t.Fatalf("the retry after a failed release: %+v; want the claim taken over", res)
	}
	if res := start(a, "t", "retried"); res.First {
		t.Fatalf("a duplicate of the retry: %+v; want it in flight", res)
	}
	if res := start(a, "u", "retried"); res.First {
		t.Fatalf("tenant u's claim of the same key: %+v; want it in flight still", res)
	}

	// Retries at once: one takes the claim over, the others find it in
	// flight.
	if !start(a, "t", "concurrent").First {
		t.Fatal("the claim is not first")
	}
	if err := a.Tenant("t").Release(ctx, "concurrent"); err == nil {
		t.Fatal("Release succeeded though the database refuses deletes")
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first int
	)
	for range 8 {
		wg.Go(func() {
			res, err := a.Tenant("t").Start(ctx, triage.StartRequest{Key: "concurrent", AttemptKey: "q|E", Agent: "agent",
				Code: "E", At: clk.Now(), Window: time.Hour})
			if err != nil {
				t.Error(err)
				return
			}
			if res.First {
				mu.Lock()
				first++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != 1 {
		t.Fatalf("%d of 8 retries at once took the claim over, want 1", first)
	}

	// Another instance's retry: the store that failed releases the claim
	// in the background once the database takes deletes again.
	if !start(a, "t", "elsewhere").First {
		t.Fatal("the claim is not first")
	}
	if err := a.Tenant("t").Release(ctx, "elsewhere"); err == nil {
		t.Fatal("Release succeeded though the database refuses deletes")
	}
	// A claim saved after its release failed stays saved.
	if !start(a, "t", "saved").First {
		t.Fatal("the claim is not first")
	}
	if err := a.Tenant("t").Release(ctx, "saved"); err == nil {
		t.Fatal("Release succeeded though the database refuses deletes")
	}
	occ := store.Occurrence{DeliveryKey: "saved", ErrorID: "e1", QueryID: "q", AgentID: "agent", ErrorType: "data",
		Severity: "low", NextAction: "retry", Attempt: 1, ReportedAt: clk.Now(), ReceivedAt: clk.Now(),
		Report: json.RawMessage(`{"r":1}`), Feedback: json.RawMessage(`{"error_id":"e1"}`)}
	if _, err := a.Tenant("t").SaveOccurrence(ctx, occ); err != nil {
		t.Fatal(err)
	}
	failRelease(t, false)
	deadline := time.Now().Add(10 * time.Second)
	for !start(b, "t", "elsewhere").First {
		if time.Now().After(deadline) {
			t.Fatal("another instance's retry still finds the claim in flight after 10s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // the background releases run
	if res := start(b, "t", "saved"); res.First || res.Prior == nil || res.Prior.ErrorID != "e1" {
		t.Fatalf("a saved delivery whose release had failed: %+v; want a duplicate with its feedback", res)
	}
	if res := start(b, "u", "retried"); res.First {
		t.Fatalf("tenant u's claim: %+v; want it in flight still", res)
	}
	if res := start(b, "t", "retried"); res.First {
		t.Fatalf("the claim the retry took over: %+v; want it in flight still", res)
	}
}
