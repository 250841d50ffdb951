package service_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/testkit/cputime"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// storeless is a store whose report path costs nothing: every peek finds
// a first delivery, its reads done (no callback, no alert rules, nothing
// cached), and every Report saves a new record at once. The rest is a
// SQLite store's, which the report path does not reach.
type storeless struct {
	*sqlite.Store
	ids atomic.Int64
}

func (s *storeless) Tenant(id string) store.Tenant { return storelessTenant{s.Store.Tenant(id), s} }

type storelessTenant struct {
	store.Tenant
	s *storeless
}

func (storelessTenant) PeekReport(context.Context, triage.StartRequest) (store.Peeked, error) {
	return store.Peeked{StartResult: triage.StartResult{First: true, Attempt: 1, Recent: 1}, Read: store.PeekedReads{Valid: true}}, nil
}

func (t storelessTenant) Report(context.Context, triage.StartRequest, triage.StartResult, store.Occurrence) (store.Saved, error) {
	return store.Saved{ID: t.s.ids.Add(1), NewRecord: true}, nil
}

// BenchmarkAcceptAroundStore is the service's own work for a new report,
// around a store that costs nothing (storeless): the decode, the
// handler's decision, the occurrence's documents and the answer, but
// neither the peek nor the write. The report is cmd/loadbench's (a
// timeout of a query asking for too much: retry, use_cache and
// reduce_scope). cpu-µs/report is the process's CPU time per report.
//
//	go test ./service -run '^$' -bench BenchmarkAcceptAroundStore -benchmem
func BenchmarkAcceptAroundStore(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	svc, err := service.New(service.Config{Store: &storeless{Store: db}})
	if err != nil {
		b.Fatal(err)
	}
	run := time.Now().UnixNano()
	var n atomic.Int64
	accept := func() error {
		body := fmt.Appendf(nil, `{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"query_id":"q_%d_%d"}}`, run, n.Add(1))
		a, err := svc.Accept(context.Background(), service.Submission{Body: body, ContentType: "application/json"})
		if err == nil && a.Status != http.StatusCreated {
			err = fmt.Errorf("status %d: %s", a.Status, a.Body)
		}
		return err
	}
	for _, parallel := range []bool{false, true} {
		name := "serial"
		if parallel {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			cpu := cputime.Process()
			b.ReportAllocs()
			if parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := accept(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			} else {
				for b.Loop() {
					if err := accept(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/float64(b.N), "cpu-µs/report")
		})
	}
}
