package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/cputime"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// BenchmarkServeReport is the whole in-process request of a new report,
// POST /v1/errors on a SQLite store, as cmd/loadbench's service target
// sends it (each report its own query_id, so each is handled and
// committed: a 201): the server's routing, limits, body and idempotency
// checks, metrics, the service's decode, the handler, the store's read and
// its one write through the writer goroutine, and the feedback's JSON. The
// server runs as triage serve runs it but for the job worker (off, so that
// its polls are not counted) and its log (INFO, discarded).
//
// serial sends one report at a time (ServeHTTP on a recorder: no
// connection, the server's own work); parallel from 16 goroutines, so that
// the writer batches them as under load; loopback is serial through a
// real connection (net/http's server and this process's client both).
// allocs/op and B/op are the request's; cpu-µs/report is the process's CPU
// time (user and system) per report, the figure a loaded machine moves
// least.
//
//	go test ./server -run '^$' -bench BenchmarkServeReport -benchmem -count 6
func BenchmarkServeReport(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		srv, _ := benchServer(b)
		var n atomic.Int64
		cpu := cputime.Process()
		b.ReportAllocs()
		for b.Loop() {
			if err := serveReport(srv, n.Add(1)); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu)
	})
	b.Run("parallel", func(b *testing.B) {
		srv, _ := benchServer(b)
		var n atomic.Int64
		cpu := cputime.Process()
		b.ReportAllocs()
		b.SetParallelism(16)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := serveReport(srv, n.Add(1)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		reportCPU(b, cpu)
	})
	b.Run("loopback", func(b *testing.B) {
		srv, _ := benchServer(b)
		hs := httptest.NewServer(srv)
		defer hs.Close()
		client := hs.Client()
		var n atomic.Int64
		cpu := cputime.Process()
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Post(hs.URL+"/v1/errors", "application/json", strings.NewReader(benchReport(n.Add(1))))
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
		reportCPU(b, cpu)
	})
}

// benchServer is a Server on a fresh SQLite store, configured as
// cmd/loadbench's service target (no rate limit, a log at INFO) but with
// the job worker off.
func benchServer(b *testing.B) (*Server, store.Store) {
	b.Helper()
	st, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	srv, err := New(Config{Store: st, RateLimit: -1, JobPoll: -1, ExpireEvery: -1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv, st
}

var benchRun = time.Now().UnixNano()

// benchReport is cmd/loadbench's report i: its own query_id.
func benchReport(i int64) string {
	return fmt.Sprintf(`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","context":{"metric":"sales","group_by":"month","date_range":{"start":"2015-01-01","end":"2025-08-01"},"row_count":48000000},"query_id":"q_%d_%d"}}`, benchRun, i)
}

// serveReport serves report i, which must be answered 201. Its context
// ends when it is answered, as net/http's does (a store's reads may pay
// for watching it).
func serveReport(srv *Server, i int64) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/errors", strings.NewReader(benchReport(i)))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != http.StatusCreated {
		return fmt.Errorf("status %d: %s", w.Code, w.Body)
	}
	return nil
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((cputime.Process()-since).Microseconds())/float64(b.N), "cpu-µs/report")
}
