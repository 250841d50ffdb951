package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// movingStore answers store.ErrReportMoved to the first moves reports'
// one write, as a store does when another report counted the attempt
// between the read and the write.
type movingStore struct {
	*sqlite.Store
	moves atomic.Int64 // left to answer moved
	tries atomic.Int64 // Report calls
}

func (m *movingStore) Tenant(id string) store.Tenant {
	return movingTenant{Tenant: m.Store.Tenant(id), m: m}
}

type movingTenant struct {
	store.Tenant
	m *movingStore
}

func (t movingTenant) Report(ctx context.Context, req triage.StartRequest, read triage.StartResult, o store.Occurrence) (store.Saved, error) {
	t.m.tries.Add(1)
	if t.m.moves.Add(-1) >= 0 {
		return store.Saved{}, store.ErrReportMoved
	}
	return t.Tenant.Report(ctx, req, read, o)
}

// A report whose one write finds its counts moved is read and decided
// again, and counted once in the handler's metrics, as decided last; past
// five moves it goes the two-write way and is still saved and counted once.
func TestReportDecidedAgainCountedOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		moves       int64
		wantTries   int64
		wantAttempt int
	}{
		{"moved once", 1, 2, 1},
		{"moved past the tries", 100, 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ms := &movingStore{Store: st}
			ms.moves.Store(tc.moves)
			reg := prometheus.NewRegistry()
			svc, err := service.New(service.Config{Store: ms, Registerer: reg})
			if err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",
				"data":{"error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_456"}}`)
			a, err := svc.Accept(t.Context(), service.Submission{Body: body})
			if err != nil || a.Status != http.StatusCreated {
				t.Fatalf("Accept: %d, %v", a.Status, err)
			}
			if got := ms.tries.Load(); got != tc.wantTries {
				t.Errorf("one-write tries: %d, want %d", got, tc.wantTries)
			}
			var fb triage.Feedback
			if err := json.Unmarshal(a.Body, &fb); err != nil {
				t.Fatal(err)
			}
			if fb.Attempt != tc.wantAttempt {
				t.Errorf("attempt %d, want %d", fb.Attempt, tc.wantAttempt)
			}
			if n := counted(t, reg, "triage_handler_reports_total"); n != 1 {
				t.Errorf("triage_handler_reports_total: %v, want 1", n)
			}
			list, err := st.Tenant(service.DefaultTenant).ErrorRecords(t.Context(), store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Records) != 1 || list.Records[0].Count != 1 {
				t.Errorf("records after the report: %+v, want one with one occurrence", list.Records)
			}
		})
	}
}

// counted sums the samples of a counter family in reg.
func counted(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			n += m.GetCounter().GetValue()
		}
	}
	return n
}
