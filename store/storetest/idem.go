package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// begin begins key's request and checks the answer.
func begin(t *testing.T, tn store.Requests, key, hash string, want store.IdemState, wantResp store.StoredResponse) {
	t.Helper()
	st, resp, err := tn.BeginRequest(t.Context(), key, hash)
	must(t, err)
	if st != want {
		t.Errorf("BeginRequest(%q, %q) state = %v, want %v", key, hash, st, want)
	}
	if resp.Status != wantResp.Status || resp.ContentType != wantResp.ContentType || !bytes.Equal(resp.Body, wantResp.Body) {
		t.Errorf("BeginRequest(%q, %q) response = %+v, want %+v", key, hash, resp, wantResp)
	}
}

var idemTests = []test{
	{"NewThenInFlight", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		begin(t, tn, "key", "h1", store.IdemInFlight, store.StoredResponse{})
		begin(t, tn, "key", "h2", store.IdemMismatch, store.StoredResponse{})
		begin(t, tn, "other", "h1", store.IdemNew, store.StoredResponse{})
	}},
	{"DoneReturnsStoredResponse", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		resp := store.StoredResponse{Status: 201, ContentType: "application/json", Body: []byte(`{"error_id":"e1"}` + "\n")}
		must(t, tn.FinishRequest(t.Context(), "key", resp))
		begin(t, tn, "key", "h1", store.IdemDone, resp)
		begin(t, tn, "key", "h2", store.IdemMismatch, store.StoredResponse{})
		e.clock.Advance(3 * store.ClaimLease) // a response stored does not expire with the lease
		begin(t, tn, "key", "h1", store.IdemDone, resp)
	}},
	{"AbandonMakesItNew", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		must(t, tn.AbandonRequest(t.Context(), "key"))
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		must(t, tn.AbandonRequest(t.Context(), "key"))
		begin(t, tn, "key", "h2", store.IdemNew, store.StoredResponse{})
		begin(t, tn, "key", "h2", store.IdemInFlight, store.StoredResponse{})
	}},
	{"LostRequestIsTakenOver", func(t *testing.T, e *env) {
		tn := e.s.Tenant("a")
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		e.clock.Advance(store.ClaimLease - time.Second)
		begin(t, tn, "key", "h1", store.IdemInFlight, store.StoredResponse{})
		e.clock.Advance(2 * time.Second)
		begin(t, tn, "key", "h1", store.IdemNew, store.StoredResponse{})
		begin(t, tn, "key", "h1", store.IdemInFlight, store.StoredResponse{})
		e.clock.Advance(store.ClaimLease - time.Second) // the take-over's lease runs from it
		begin(t, tn, "key", "h1", store.IdemInFlight, store.StoredResponse{})
		resp := store.StoredResponse{Status: 200, ContentType: "text/plain", Body: []byte("ok")}
		must(t, tn.FinishRequest(t.Context(), "key", resp))
		begin(t, tn, "key", "h1", store.IdemDone, resp)
	}},
}
